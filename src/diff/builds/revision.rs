//! `--before-rev REV`: this repository's memtx-check as of git revision
//! REV, built once into a cache under `target/memtx-check-builds/` and
//! reused. The revision is checked out into a folder of its own
//! (`COMMIT/src`, a clone sharing the repository's objects, removed once
//! built or when a signal ends the run: nothing is written into the
//! repository itself), built in release with one cargo
//! target folder shared by every cached revision (so dependencies are
//! compiled once), and its binary kept as `COMMIT/memtx-check` beside a
//! `built` marker written last: a cache entry without the marker is
//! incomplete and built again. An exclusive lock on the cache serialises
//! two runs that build at once. git and cargo run as children the
//! reaper owns (`driver::reaper`), so a signal to memtx-check kills the
//! build rather than leave it running, orphaned.

use crate::driver::reaper;
use crate::outputs::scratch;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A revision's binary in the cache.
pub struct RevisionBuild {
    /// The revision as given.
    pub rev: String,
    /// The commit it names, 40 hex digits.
    pub commit: String,
    pub exe: PathBuf,
}

/// Runs git in `dir` (a child this process owns: a signal kills it);
/// its trimmed stdout, or its stderr as the error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = reaper::output(
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stdin(Stdio::null()),
    )
    .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(crate::input::one_line(
            String::from_utf8_lossy(&out.stderr).trim(),
        ))
    }
}

/// The binary of `rev` of the repository around the current directory,
/// built if the cache does not hold it; `say` is told what is happening
/// (building takes minutes the first time).
pub fn build_revision(rev: &str, say: &dyn Fn(&str)) -> Result<RevisionBuild, String> {
    let here = std::env::current_dir().map_err(|e| format!("--before-rev: {e}"))?;
    let top = git(&here, &["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .map_err(|e| format!("--before-rev {rev}: not inside a git checkout ({e})"))?;
    let commit = git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        format!(
            "--before-rev {rev}: not a commit of the repository at {}",
            top.display()
        )
    })?;
    if commit.len() != 40 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "--before-rev {rev}: git named {commit:?}, not a commit"
        ));
    }
    let cache = top.join("target").join("memtx-check-builds");
    let entry = cache.join(&commit);
    let exe = entry.join("memtx-check");
    let done = |exe: PathBuf| RevisionBuild {
        rev: rev.to_owned(),
        commit: commit.clone(),
        exe,
    };
    if entry.join("built").is_file() && exe.is_file() {
        return Ok(done(exe));
    }
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        format!("--before-rev {rev}: {what} {}: {e}", cache.display())
    };
    std::fs::create_dir_all(&cache).map_err(|e| fail("cannot create", &e))?;
    let lock = File::create(cache.join(".lock")).map_err(|e| fail("cannot lock", &e))?;
    if lock.try_lock().is_err() {
        say(&format!(
            "waiting for another memtx-check that is building into {}",
            cache.display()
        ));
        lock.lock().map_err(|e| fail("cannot lock", &e))?;
    }
    // Another run may have built it while this one waited.
    if entry.join("built").is_file() && exe.is_file() {
        return Ok(done(exe));
    }
    let src = entry.join("src");
    // The checkout is this run's temporary: a signal removes it.
    scratch::track_dir(&src);
    let checked_out = check_out(&top, &commit, &src)
        .map_err(|e| format!("--before-rev {rev}: cannot check out {commit}: {e}"));
    if let Err(e) = checked_out {
        let _ = std::fs::remove_dir_all(&src);
        scratch::forget_dir(&src);
        return Err(e);
    }
    say(&format!(
        "building memtx-check at {rev} ({}) into {} (once; later runs reuse it)",
        crate::build_info::prefix(&commit, 10),
        entry.display()
    ));
    let built = cargo_build(&src, &cache.join("cargo-target"));
    let result = built.and_then(|binary| {
        let tmp = entry.join("memtx-check.tmp");
        std::fs::copy(&binary, &tmp)
            .and_then(|_| std::fs::rename(&tmp, &exe))
            .map_err(|e| format!("cannot keep {}: {e}", binary.display()))?;
        std::fs::write(entry.join("built"), format!("{commit}\n"))
            .map_err(|e| format!("cannot mark {} built: {e}", entry.display()))
    });
    let _ = std::fs::remove_dir_all(&src);
    scratch::forget_dir(&src);
    result.map_err(|e| format!("--before-rev {rev}: {e}"))?;
    Ok(done(exe))
}

/// Builds the crate at `src` in release into `target`; the binary's path.
/// Cargo's own output goes to stderr, as the build's progress.
fn cargo_build(src: &Path, target: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // A child this process owns: a signal kills it and what it started.
    let status = reaper::status(
        Command::new(&cargo)
            .args([
                "build",
                "--release",
                "--bin",
                "memtx-check",
                "--manifest-path",
            ])
            .arg(src.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target)
            .env_remove("CARGO_TARGET_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit()),
    )
    .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    if !status.success() {
        return Err(format!(
            "building it failed (cargo: {status}); cargo's messages are above"
        ));
    }
    Ok(target.join("release").join("memtx-check"))
}

/// Checks `commit` of the repository at `top` out into `src`, a folder
/// of the cache's (an older one there is removed first): a clone that
/// borrows the repository's objects (`git clone --shared`), so nothing is
/// written into the user's repository, no worktree registered in it and
/// none of its worktrees pruned, and the build still sees a git checkout
/// of `commit` (its build identity names the commit).
fn check_out(top: &Path, commit: &str, src: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(src);
    let to = src.to_string_lossy();
    git(
        top,
        &["clone", "--quiet", "--shared", "--no-checkout", ".", &to],
    )?;
    git(src, &["checkout", "--quiet", "--detach", commit]).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_git(dir: &Path, args: &[&str]) -> String {
        let mut all = vec!["-c", "user.name=t", "-c", "user.email=t@example.org"];
        all.extend_from_slice(args);
        git(dir, &all).unwrap()
    }

    /// Issue 38.12: `--before-rev` ran `git worktree prune` on the user's
    /// repository; the checkout now leaves its worktrees, refs and index
    /// as they were.
    #[test]
    fn a_revision_is_checked_out_without_touching_the_users_repository() {
        let dir = std::env::temp_dir().join(format!("memtx-revision-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let repo = dir.join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        run_git(&repo, &["init", "--quiet"]);
        std::fs::write(repo.join("file.txt"), "first").unwrap();
        run_git(&repo, &["add", "file.txt"]);
        run_git(&repo, &["commit", "--quiet", "-m", "first"]);
        let first = run_git(&repo, &["rev-parse", "HEAD"]);
        std::fs::write(repo.join("file.txt"), "second").unwrap();
        run_git(&repo, &["commit", "--quiet", "-am", "second"]);
        // A worktree of the user's whose folder is gone for now (on a
        // removable disk, say): prunable, and not ours to prune.
        let away = dir.join("away");
        run_git(
            &repo,
            &[
                "worktree",
                "add",
                "--quiet",
                "--detach",
                &away.to_string_lossy(),
            ],
        );
        std::fs::remove_dir_all(&away).unwrap();
        let before = run_git(&repo, &["worktree", "list", "--porcelain"]);
        let status = run_git(&repo, &["status", "--porcelain"]);

        let src = dir.join("cache/src");
        check_out(&repo, &first, &src).unwrap();
        assert_eq!(
            std::fs::read_to_string(src.join("file.txt")).unwrap(),
            "first"
        );
        assert_eq!(run_git(&src, &["rev-parse", "HEAD"]), first);
        assert_eq!(
            run_git(&src, &["status", "--porcelain"]),
            "",
            "a clean checkout"
        );
        assert_eq!(run_git(&repo, &["worktree", "list", "--porcelain"]), before);
        assert!(before.contains("prunable"), "{before}");
        assert_eq!(run_git(&repo, &["status", "--porcelain"]), status);
        // Again over the first: an older checkout is replaced.
        check_out(&repo, &first, &src).unwrap();
        assert_eq!(run_git(&src, &["rev-parse", "HEAD"]), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
