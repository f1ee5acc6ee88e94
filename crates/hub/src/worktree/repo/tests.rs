//! Tests of `repo.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use clawmux_core::changes::FileStatus;

use super::super::testing::{git, repo};
use super::*;

#[tokio::test]
async fn a_worktree_on_its_own_branch_from_the_checked_out_one_with_the_listed_files() {
    let (_tmp, top, data) = repo();
    std::fs::write(top.join(".gitignore"), ".env\nlocal.toml\n").unwrap();
    std::fs::write(top.join(INCLUDE_FILE), ".env\nREADME\n").unwrap();
    git(&top, &["add", "."]);
    git(&top, &["commit", "-q", "-m", "ignore"]);
    std::fs::write(top.join(".env"), "KEY=1\n").unwrap();
    std::fs::write(top.join("local.toml"), "mine\n").unwrap();
    let (spec, path) = create(&data, "sky", &top.join("src"), None).await.unwrap();
    assert_eq!(path, data.join("worktrees/sky"));
    assert_eq!(
        (spec.branch.as_str(), spec.base.as_str()),
        ("clawmux/sky", "main")
    );
    assert_eq!(spec.repo, top);
    assert_eq!(
        git(&path, &["symbolic-ref", "--short", "HEAD"]).trim(),
        "clawmux/sky"
    );
    assert_eq!(
        std::fs::read_to_string(path.join("src/a.rs")).unwrap(),
        "fn a() {}\n"
    );
    assert_eq!(
        std::fs::read_to_string(path.join(".env")).unwrap(),
        "KEY=1\n",
        "listed and ignored"
    );
    assert!(!path.join("local.toml").exists(), "ignored but not listed");
    assert_eq!(
        git(&path, &["status", "--porcelain"]),
        "",
        "a tracked file is never copied over"
    );
    assert_eq!(
        git(&top, &["symbolic-ref", "--short", "HEAD"]).trim(),
        "main",
        "the user's checkout stays"
    );
    discard_new(&spec, &path).await;
    assert!(!path.exists());
    assert_eq!(git(&top, &["branch", "--list", "clawmux/*"]), "");
}

#[tokio::test]
async fn a_base_names_any_commit_and_bad_input_makes_nothing() {
    let (_tmp, top, data) = repo();
    git(&top, &["tag", "v1"]);
    let (spec, _) = create(&data, "tagged", &top, Some("v1")).await.unwrap();
    assert_eq!(spec.base, "v1");
    let code = |r: Result<(WorktreeSpec, PathBuf), HubError>| r.map(drop).unwrap_err().code;
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(
        code(create(&data, "a", elsewhere.path(), None).await),
        Code::NotARepository
    );
    assert_eq!(
        code(create(&data, "a", &top, Some("nope")).await),
        Code::BadBase
    );
    assert_eq!(
        code(create(&data, "a", &top, Some("--orphan")).await),
        Code::BadBase
    );
    assert_eq!(
        code(create(&data, "tagged", &top, None).await),
        Code::BranchExists
    );
    git(&top, &["checkout", "-q", "--detach"]);
    assert_eq!(
        code(create(&data, "a", &top, None).await),
        Code::DetachedHead
    );
    assert!(!data.join("worktrees/a").exists(), "nothing made");
    assert_eq!(git(&top, &["branch", "--list", "clawmux/a"]), "");
}

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
