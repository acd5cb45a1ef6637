//! Every relative link in `README.md` and `docs/**/*.md` resolves (issue 29
//! item 3): to a file or folder that exists and, for a `#anchor` into a
//! Markdown file (or `#anchor` alone, into the page itself), to one of its
//! headings by GitHub's slug. Links with a scheme (`https:`, `mailto:`)
//! are not followed, nor anything inside code. The checker takes the file
//! system as two functions, so the unit tests below can show it failing
//! on pages made up in memory.

use crate::support::root;

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// The targets of the links in `text`: inline links and images
/// (`[text](target "title")`) and reference definitions (`[label]: target`),
/// outside fenced code blocks and inline code, each with its line number.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            fence = Some("```");
            continue;
        }
        if trimmed.starts_with("~~~") {
            fence = Some("~~~");
            continue;
        }
        let line = without_inline_code(line);
        // A reference definition: `[label]: target`.
        let t = line.trim_start();
        if t.starts_with('[') && !t.starts_with("[^") {
            if let Some(close) = t.find("]:") {
                let target = t[close + 2..].split_whitespace().next().unwrap_or("");
                found.push((n + 1, clean(target)));
                continue;
            }
        }
        let mut from = 0;
        while let Some(at) = line[from..].find("](") {
            let start = from + at + 2;
            let mut depth = 1;
            let mut end = None;
            for (i, c) in line[start..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(start + i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            let target = line[start..end].split_whitespace().next().unwrap_or("");
            found.push((n + 1, clean(target)));
            from = end;
        }
    }
    found
}

/// A target without the angle brackets Markdown allows around it.
fn clean(target: &str) -> String {
    target
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned()
}

/// The line with every `code span` removed (backtick runs of any length).
fn without_inline_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].chars().take_while(|&c| c == '`').count();
        let ticks = &rest[at..at + run];
        match rest[at + run..].find(ticks) {
            Some(close) => rest = &rest[at + run + close + run..],
            None => {
                rest = &rest[at + run..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchors GitHub gives the headings of a Markdown page: the heading's
/// text lowercased, every character but letters, digits, `_`, `-` and
/// spaces dropped, spaces turned into `-`; a repeated slug gets `-1`,
/// `-2`, … Headings inside fenced code are not headings.
fn heading_slugs(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut slugs = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let rest = &line[hashes..];
        if hashes > 6 || !(rest.is_empty() || rest.starts_with(' ')) {
            continue;
        }
        let slug = slug(rest.trim().trim_end_matches('#').trim());
        let count = seen.entry(slug.clone()).or_insert(0);
        slugs.push(if *count == 0 {
            slug
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    slugs
}

/// GitHub's slug of one heading's text; a link inside it counts by its text.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        match rest[open..].find("](").map(|m| open + m) {
            Some(mid) if rest[mid..].contains(')') => {
                let close = mid + rest[mid..].find(')').unwrap_or(0);
                text.push_str(&rest[..open]);
                text.push_str(&rest[open + 1..mid]);
                rest = &rest[close + 1..];
            }
            _ => break,
        }
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// `base` joined with `relative`, `.` and `..` resolved without touching the
/// file system.
fn join(base: &Path, relative: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(relative).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Every broken link of `page` (a path relative to the repository root),
/// as `page:line: target: why`. `exists` says whether a path names a file
/// or folder; `read` gives a Markdown page's text.
fn broken_links(
    page: &Path,
    text: &str,
    exists: &dyn Fn(&Path) -> bool,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Vec<String> {
    let mut broken = Vec::new();
    let dir = page.parent().unwrap_or(Path::new(""));
    for (line, target) in link_targets(text) {
        let at = format!("{}:{line}: {target}", page.display());
        if target.is_empty() {
            broken.push(format!("{at}: an empty link"));
            continue;
        }
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            page.to_path_buf()
        } else if let Some(from_root) = path.strip_prefix('/') {
            join(Path::new(""), from_root)
        } else {
            join(dir, path)
        };
        if !path.is_empty() && !exists(&file) {
            broken.push(format!("{at}: {} does not exist", file.display()));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if file.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Some(target_text) = read(&file) else {
            broken.push(format!("{at}: {} cannot be read", file.display()));
            continue;
        };
        if !heading_slugs(&target_text).iter().any(|s| s == anchor) {
            broken.push(format!(
                "{at}: {} has no heading whose anchor is #{anchor}",
                file.display()
            ));
        }
    }
    broken
}

/// `README.md` and every `*.md` under `docs/`, relative to the root.
fn pages(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("docs/ is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let rel = path
                .strip_prefix(root)
                .expect("under the root")
                .to_path_buf();
            if path.is_dir() {
                walk(root, &rel, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(rel);
            }
        }
    }
    let mut out = vec![PathBuf::from("README.md")];
    walk(root, Path::new("docs"), &mut out);
    out
}

#[test]
fn every_relative_link_in_the_readme_and_the_guide_resolves() {
    let root = root();
    let exists = |p: &Path| root.join(p).exists();
    let read = |p: &Path| std::fs::read_to_string(root.join(p)).ok();
    let pages = pages(root);
    assert!(pages.len() > 10, "the guide's pages are found: {pages:?}");
    let mut broken = Vec::new();
    let mut links = 0;
    for page in &pages {
        let text = read(page).expect("a page is readable");
        links += link_targets(&text).len();
        broken.extend(broken_links(page, &text, &exists, &read));
    }
    assert!(links > 100, "the links are found ({links})");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_guide_is_listed_in_its_index() {
    let root = root();
    let index = std::fs::read_to_string(root.join("docs/README.md")).expect("docs/README.md");
    let listed: Vec<PathBuf> = link_targets(&index)
        .into_iter()
        .map(|(_, t)| join(Path::new("docs"), t.split('#').next().unwrap_or("")))
        .collect();
    let missing: Vec<_> = pages(root)
        .into_iter()
        .filter(|p| p.starts_with("docs") && p != Path::new("docs/README.md"))
        .filter(|p| !listed.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "pages docs/README.md does not list: {missing:?}"
    );
}

/// The checker on pages made up in memory.
fn check_in_memory(files: &[(&str, &str)], page: &str) -> Vec<String> {
    let files: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    let exists = |p: &Path| files.contains_key(p) || files.keys().any(|f| f.starts_with(p));
    let read = |p: &Path| files.get(p).cloned();
    broken_links(Path::new(page), &files[Path::new(page)], &exists, &read)
}

#[test]
fn a_broken_link_is_reported() {
    let files = [
        (
            "docs/a.md",
            "# A\n\nSee [b](b.md), [gone](missing.md), [up](../README.md),\n\
             [a heading](b.md#the-second-part), [no such](b.md#nowhere),\n\
             [here](#a), [not here](#b), ![img](pic.png), `[code](no.md)`.\n\n\
             ```\n[fenced](nope.md)\n```\n\n[ref]: ../docs/gone.md\n",
        ),
        ("docs/b.md", "# B\n\n## The second part\n"),
        ("README.md", "# R\n"),
    ];
    let broken = check_in_memory(&files, "docs/a.md");
    assert_eq!(
        broken,
        [
            "docs/a.md:3: missing.md: docs/missing.md does not exist",
            "docs/a.md:4: b.md#nowhere: docs/b.md has no heading whose anchor is #nowhere",
            "docs/a.md:5: #b: docs/a.md has no heading whose anchor is #b",
            "docs/a.md:5: pic.png: docs/pic.png does not exist",
            "docs/a.md:11: ../docs/gone.md: docs/gone.md does not exist",
        ]
    );
}

#[test]
fn anchors_are_githubs_slugs() {
    let page = "# memtx-check\n## A finding: scope laundering\n## `diff DUMP_A DUMP_B` reads\n\
                ## Symmetry: paired runs\n## Notes\n## Notes\n```\n# not a heading\n```\n\
                ## [Linked](x.md) text\n#not a heading either\n";
    assert_eq!(
        heading_slugs(page),
        [
            "memtx-check",
            "a-finding-scope-laundering",
            "diff-dump_a-dump_b-reads",
            "symmetry-paired-runs",
            "notes",
            "notes-1",
            "linked-text",
        ]
    );
}
