//! Tests of `diff.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clawmux_core::changes::FileStatus;

use super::super::repo::create;
use super::super::testing::{git, repo};
use super::*;

#[tokio::test]
async fn changes_committed_or_not_against_the_fork_point_leave_the_agents_index_alone() {
    let (_tmp, top, data) = repo();
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    // The agent commits one change, then edits, adds, renames and drops files without committing.
    std::fs::write(wt.join("src/a.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    git(&wt, &["commit", "-q", "-am", "Add b"]);
    std::fs::write(wt.join("src/a.rs"), "fn a() {}\nfn b() {}\nfn c() {}\n").unwrap();
    std::fs::write(wt.join("new.txt"), "one\ntwo\n").unwrap();
    std::fs::write(wt.join("logo.png"), [0u8, 1, 2, 255, 0]).unwrap();
    git(&wt, &["mv", "README", "README.md"]);
    std::fs::write(wt.join(".waiting"), "4242").unwrap();
    // Meanwhile the base moves on: the fork point stays where the branch left it.
    std::fs::write(top.join("other.rs"), "x\n").unwrap();
    git(&top, &["add", "other.rs"]);
    git(&top, &["commit", "-q", "-m", "base moves"]);
    let staged_before = git(&wt, &["diff", "--cached", "--name-only"]);
    let scratch = data.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let (changes, patches) = changes(&spec, &wt, &scratch).await.unwrap();
    assert_eq!(
        git(&wt, &["diff", "--cached", "--name-only"]),
        staged_before,
        "index untouched"
    );
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        ["index-clawmux-sky"],
        "only the index kept for the next read"
    );
    assert!(changes.uncommitted);
    assert_eq!(changes.commits.len(), 1);
    assert_eq!(changes.commits[0].summary, "Add b");
    let files: Vec<_> = changes
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status, f.added, f.removed, f.shown))
        .collect();
    assert_eq!(
        files,
        [
            (
                "README.md",
                FileStatus::Renamed,
                Some(0),
                Some(0),
                Shown::Diff
            ),
            ("logo.png", FileStatus::Added, None, None, Shown::Binary),
            ("new.txt", FileStatus::Added, Some(2), Some(0), Shown::Diff),
            (
                "src/a.rs",
                FileStatus::Modified,
                Some(2),
                Some(0),
                Shown::Diff
            ),
        ]
    );
    let patch: std::collections::HashMap<_, _> = patches.into_iter().collect();
    assert!(
        patch["src/a.rs"].contains("+fn b() {}\n+fn c() {}\n"),
        "{}",
        patch["src/a.rs"]
    );
    assert!(patch["new.txt"].contains("+one\n+two\n"));
    assert!(patch["README.md"].contains("rename from README"));
    assert!(!patch.contains_key("logo.png"));
    assert!(
        !changes.files.iter().any(|f| f.path == "other.rs"),
        "the base's own changes are not the agent's"
    );
}

#[tokio::test]
async fn a_read_after_a_read_sees_new_edits_and_what_the_agents_git_untracked() {
    let (_tmp, top, data) = repo();
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    let scratch = data.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    let paths = |c: &Changes| -> Vec<(String, FileStatus)> {
        c.files.iter().map(|f| (f.path.clone(), f.status)).collect()
    };
    std::fs::write(wt.join("one.txt"), "1\n").unwrap();
    let (first, _) = changes(&spec, &wt, &scratch).await.unwrap();
    assert_eq!(paths(&first), [("one.txt".to_owned(), FileStatus::Added)]);
    // From the kept index: a new edit and a new file show.
    std::fs::write(wt.join("one.txt"), "1\n2\n").unwrap();
    std::fs::write(wt.join("src/a.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    let (second, patches) = changes(&spec, &wt, &scratch).await.unwrap();
    assert_eq!(
        paths(&second),
        [
            ("one.txt".to_owned(), FileStatus::Added),
            ("src/a.rs".to_owned(), FileStatus::Modified)
        ]
    );
    assert!(patches
        .iter()
        .any(|(p, d)| p == "one.txt" && d.contains("+2\n")));
    // The agent's git stops tracking README and ignores it: the kept index is not trusted over its own.
    std::fs::write(wt.join(".gitignore"), "README\n").unwrap();
    git(&wt, &["rm", "-q", "--cached", "README"]);
    let (third, _) = changes(&spec, &wt, &scratch).await.unwrap();
    assert!(
        third
            .files
            .iter()
            .any(|f| f.path == "README" && f.status == FileStatus::Deleted),
        "{:?}",
        paths(&third)
    );
}
