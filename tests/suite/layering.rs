//! The crate's import graph, file by file (issue 8): no two files of
//! `src/` import each other, and no module imports one above it in the
//! layering DESIGN.md gives. A file imports another when it names a path
//! into it (`use crate::a::b`, `use super::b`, `super::b::f(…)`); a
//! `mod.rs` that only declares and re-exports its children (`mod b;`,
//! `pub use b::X;`) does not import them, since that is how Rust spells a
//! module's public face.

use crate::support::root;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module by its path below `src/` (`["engine", "bfs"]`; `[]` is lib.rs).
type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The source without comments, string literals' contents and test
/// modules (tests may reach anywhere).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Every `::`-path in `code` that starts with `crate`, `super` or `self`,
/// as segments (a brace group contributes each of its branches).
fn paths(code: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for head in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(head) {
            let start = from + at;
            from = start + head.len();
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            // `super::super::x` is read as one path.
            let mut rest = &code[start + head.len()..];
            let mut prefix = vec![head.trim_end_matches("::").to_owned()];
            while let Some(r) = rest.strip_prefix("super::") {
                prefix.push("super".into());
                rest = r;
            }
            for branch in branches(rest) {
                let mut p = prefix.clone();
                p.extend(branch);
                found.push((head.trim_end_matches("::").to_owned(), p));
            }
        }
    }
    found
}

/// The segment lists a path's tail stands for: `a::b` or `{a::b, c}`.
fn branches(rest: &str) -> Vec<Vec<String>> {
    let ident: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let segments: Vec<String> = ident
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let after = &rest[ident.len()..];
    if ident.ends_with("::") && after.starts_with('{') {
        let mut depth = 0;
        let mut end = 0;
        for (i, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = &after[1..end];
        let mut out = Vec::new();
        let mut depth = 0;
        let mut piece = String::new();
        for c in inner.chars().chain([',']) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    for b in branches(piece.trim()) {
                        let mut p = segments.clone();
                        p.extend(b);
                        out.push(p);
                    }
                    piece.clear();
                    continue;
                }
                _ => {}
            }
            piece.push(c);
        }
        out
    } else {
        vec![segments]
    }
}

/// The longest prefix of `path` that is a file module.
fn resolve(modules: &BTreeSet<Module>, path: &[String]) -> Option<Module> {
    (1..=path.len())
        .rev()
        .map(|k| path[..k].to_vec())
        .find(|m| modules.contains(m))
}

fn import_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for file in &files {
        let me = module_of(&src, file);
        if me.iter().any(|p| p == "tests") || file.ends_with("main.rs") {
            continue;
        }
        let is_dir = file.ends_with("mod.rs") || file.ends_with("lib.rs");
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        // `self` is the module itself; `super` its parent.
        let parent: Module = me[..me.len().saturating_sub(1)].to_vec();
        let mut targets = BTreeSet::new();
        for (head, segs) in paths(&code) {
            let mut base = match head.as_str() {
                "crate" => Vec::new(),
                "self" => me.clone(),
                _ => parent.clone(),
            };
            let mut segs = &segs[1..];
            while segs.first().is_some_and(|s| s == "super") {
                base.pop();
                segs = &segs[1..];
            }
            let mut full = base;
            full.extend(segs.iter().cloned());
            if let Some(t) = resolve(&modules, &full) {
                if t != me {
                    targets.insert(t);
                }
            }
        }
        if is_dir {
            // A child named in code (not in `mod x;` or `pub use x::…;`).
            let body: String = code
                .lines()
                .filter(|l| {
                    let t = l.trim_start();
                    !(t.starts_with("pub use")
                        || t.starts_with("pub(crate) use")
                        || t.starts_with("mod ")
                        || t.starts_with("pub mod ")
                        || t.starts_with("pub(crate) mod "))
                })
                .collect::<Vec<_>>()
                .join("\n");
            for child in modules
                .iter()
                .filter(|m| m.len() == me.len() + 1 && m.starts_with(&me))
            {
                let name = format!("{}::", child.last().unwrap());
                let named = body.match_indices(&name).any(|(at, _)| {
                    at == 0 || {
                        let b = body.as_bytes()[at - 1];
                        !(b.is_ascii_alphanumeric() || b == b'_' || b == b':')
                    }
                });
                if named {
                    targets.insert(child.clone());
                }
            }
        }
        graph.insert(me, targets);
    }
    graph
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

#[test]
fn no_two_files_import_each_other() {
    let graph = import_graph();
    let mut mutual = Vec::new();
    for (a, targets) in &graph {
        for b in targets {
            if a < b && graph.get(b).is_some_and(|t| t.contains(a)) {
                mutual.push(format!("{} <-> {}", name(a), name(b)));
            }
        }
    }
    assert!(mutual.is_empty(), "files importing each other: {mutual:?}");
}

/// DESIGN.md's layers, lowest first; a module may import its own layer
/// and those below.
const LAYERS: &[&[&str]] = &[
    &["input", "outputs", "build_info", "human"],
    &["protocol", "engine", "distributed"],
    &["invariants"],
    &["config", "trace"],
    &["model"],
    &[
        "check",
        "random",
        "replay",
        "explore",
        "diff",
        "outcome_text",
        "driver",
        "conform",
        "ci",
    ],
    &["cli"],
];

fn layer(top: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&top))
}

#[test]
fn no_module_imports_a_higher_layer() {
    let graph = import_graph();
    let mut upward = Vec::new();
    for (a, targets) in &graph {
        let Some(la) = a.first().and_then(|t| layer(t)) else {
            continue;
        };
        for b in targets {
            if let Some(lb) = b.first().and_then(|t| layer(t)) {
                if lb > la {
                    upward.push(format!("{} -> {}", name(a), name(b)));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports from a lower layer to a higher one: {upward:?}"
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    // A module the table does not name would escape both checks above.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let unlayered: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(&src, f).first().cloned())
        .filter(|top| top != "main" && layer(top).is_none())
        .collect();
    assert!(
        unlayered.is_empty(),
        "modules in no layer of LAYERS: {unlayered:?}"
    );
}

#[test]
fn the_graph_sees_imports() {
    // The test can fail: the engine's run imports its phases.
    let graph = import_graph();
    let bfs = graph
        .get(&vec!["engine".to_owned(), "bfs".to_owned()])
        .expect("engine/bfs.rs is read");
    assert!(bfs.contains(&vec!["engine".to_owned(), "expand".to_owned()]));
    assert!(graph.values().map(BTreeSet::len).sum::<usize>() > 100);
}
