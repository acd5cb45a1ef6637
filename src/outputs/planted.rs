//! The names a run makes in a report folder itself, and so must find
//! made by a run or not at all: `manifest.json` a regular file (written
//! by a rename, never through a link or into a FIFO) and `links/` a real
//! folder (the parent links spilled there are written and removed by
//! name). A symlink or a special file planted under either name would
//! send the run's writes, or its removals, to a file of the user's, or
//! block it: [`refuse_planted`] refuses the folder before the run.

use super::manifest::MANIFEST;
use std::fs;
use std::path::Path;

/// The spill folder of parent links under a report folder.
pub const LINKS: &str = "links";

/// `Err` with one line when `dir/manifest.json` is there but not a
/// regular file, or `dir/links` there but not a folder (a symlink to
/// either counts as neither); `flag` names how the user chose `dir`.
pub fn refuse_planted(dir: &Path, flag: &str) -> Result<(), String> {
    for (name, want_dir) in [(MANIFEST, false), (LINKS, true)] {
        let path = dir.join(name);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let t = meta.file_type();
        let fits = if want_dir { t.is_dir() } else { t.is_file() };
        if !fits {
            let found = if t.is_symlink() {
                "a symlink"
            } else if t.is_dir() {
                "a folder"
            } else if t.is_file() {
                "a file"
            } else {
                "a special file"
            };
            let want = if want_dir {
                "the folder of the run's parent links"
            } else {
                "the report set's manifest, a regular file"
            };
            return Err(format!(
                "{}: {flag}: {found} is where this run writes {want}; \
                 nothing was written: move it away, or choose another folder",
                path.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_or_a_special_file_under_a_name_the_run_makes_is_refused() {
        let dir = std::env::temp_dir().join(format!("memtx-planted-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("elsewhere")).unwrap();
        assert!(refuse_planted(&dir, "--out").is_ok(), "nothing there");
        fs::create_dir(dir.join(LINKS)).unwrap();
        fs::write(dir.join(MANIFEST), b"{}").unwrap();
        assert!(refuse_planted(&dir, "--out").is_ok(), "what a run makes");
        fs::remove_dir(dir.join(LINKS)).unwrap();
        symlink(dir.join("elsewhere"), dir.join(LINKS)).unwrap();
        let e = refuse_planted(&dir, "--out").unwrap_err();
        assert!(
            e.starts_with(&format!("{}: --out: a symlink", dir.join(LINKS).display())),
            "{e}"
        );
        fs::remove_file(dir.join(LINKS)).unwrap();
        fs::remove_file(dir.join(MANIFEST)).unwrap();
        symlink(dir.join("elsewhere/user.json"), dir.join(MANIFEST)).unwrap();
        let e = refuse_planted(&dir, "--baselines").unwrap_err();
        assert!(e.contains("manifest.json: --baselines: a symlink"), "{e}");
        fs::remove_file(dir.join(MANIFEST)).unwrap();
        fs::create_dir(dir.join(MANIFEST)).unwrap();
        assert!(refuse_planted(&dir, "--out")
            .unwrap_err()
            .contains("a folder"));
        assert!(!e.contains('\n'));
        fs::remove_dir_all(&dir).unwrap();
    }
}
