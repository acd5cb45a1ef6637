//! Build identity, computed when the crate is built: the git commit the
//! sources come from and whether the work tree was dirty, and a hash of
//! the protocol's sources (`src/protocol/**`, with the cargo features
//! that change it), so that every summary, dump and baseline names the
//! build that made it and `diff`/`ci` can tell when the protocol changed
//! between two runs (`src/build_info.rs` reads these).
//!
//! Nothing here needs a dependency: git is asked through its command line
//! (absent git, or a tree that is not a checkout, reads as "unknown"), and
//! the hash is 128-bit FNV-1a over each file's path and bytes in path order.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The paths whose state decides the binary.
const SOURCES: [&str; 4] = ["src", "build.rs", "Cargo.toml", "Cargo.lock"];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let protocol = root.join("src").join("protocol");
    // The sources the build reads: what "dirty" is judged on.
    for path in SOURCES {
        println!("cargo:rerun-if-changed={path}");
    }
    let features = features();
    println!(
        "cargo:rustc-env=MEMTX_BUILD_FEATURES={}",
        features.join(",")
    );
    println!(
        "cargo:rustc-env=MEMTX_PROTOCOL_HASH={:032x}",
        protocol_hash(&protocol, &features)
    );
    let (commit, dirty) = git_identity(&root);
    println!("cargo:rustc-env=MEMTX_BUILD_COMMIT={commit}");
    println!("cargo:rustc-env=MEMTX_BUILD_DIRTY={dirty}");
}

/// The enabled cargo features, sorted (cargo passes each as
/// `CARGO_FEATURE_NAME`, upper case with `-` as `_`).
fn features() -> Vec<String> {
    let mut features: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_").map(str::to_owned))
        .map(|f| f.to_lowercase().replace('_', "-"))
        .collect();
    features.sort();
    features
}

/// FNV-1a, 128 bits.
struct Fnv(u128);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0x6c62272e07bb014262b821756295c58d)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul((1u128 << 88) + 0x13b);
        }
    }
}

fn protocol_hash(dir: &Path, features: &[String]) -> u128 {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    let mut h = Fnv::new();
    for file in &files {
        let rel = file.strip_prefix(dir).unwrap_or(file);
        let name = rel.to_string_lossy().replace('\\', "/");
        let bytes = std::fs::read(file).unwrap_or_default();
        h.write(name.as_bytes());
        h.write(&[0]);
        h.write(&(bytes.len() as u64).to_le_bytes());
        h.write(&bytes);
    }
    h.write(b"features=");
    h.write(features.join(",").as_bytes());
    h.0
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The commit (40 hex digits, or `unknown`) and whether the sources
/// ([`SOURCES`]: tracked files changed, or untracked unignored ones) differ
/// from it (`true`, `false`, or `unknown`). Reruns when a source, HEAD,
/// the branch it names or the index moves.
fn git_identity(root: &Path) -> (String, String) {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            // `status` would otherwise refresh the index, which would
            // make this script run again at every build.
            .arg("--no-optional-locks")
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
    };
    let Some(commit) = git(&["rev-parse", "--verify", "HEAD"]) else {
        return ("unknown".to_owned(), "unknown".to_owned());
    };
    // Only files that exist are watched: cargo takes a missing watched
    // file as changed, so watching one (a checkout without `packed-refs`,
    // a branch held only there) reran this script, and rebuilt the crate,
    // at every cargo command. HEAD's reflog moves with every commit,
    // checkout and reset, wherever the branch itself is stored.
    let mut watched = vec![
        "HEAD".to_owned(),
        "index".to_owned(),
        "logs/HEAD".to_owned(),
    ];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
        watched.push("packed-refs".to_owned());
    }
    for file in &watched {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            let path = root.join(path);
            if path.is_file() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    let mut status = vec!["status", "--porcelain", "--untracked-files=normal", "--"];
    status.extend(SOURCES);
    let dirty = match git(&status) {
        Some(status) => (!status.is_empty()).to_string(),
        None => "unknown".to_owned(),
    };
    (commit, dirty)
}
