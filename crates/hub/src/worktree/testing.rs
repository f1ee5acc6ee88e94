//! Real repositories for the worktree tests: the test's own `git`, and a repository made for each test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the test's own git in `dir`, as the user would; its output.
pub(super) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A repository on `main` with one commit and an identity of its own (the user's, as the hub's git reads
/// it), and a data folder beside it.
pub(super) fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (top, data) = (tmp.path().join("app"), tmp.path().join("data"));
    std::fs::create_dir_all(top.join("src")).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    git(&top, &["init", "-q", "-b", "main"]);
    git(&top, &["config", "user.name", "Test"]);
    git(&top, &["config", "user.email", "test@example.com"]);
    std::fs::write(top.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(top.join("README"), "app\n").unwrap();
    git(&top, &["add", "."]);
    git(&top, &["commit", "-q", "-m", "first"]);
    (tmp, top, data)
}
