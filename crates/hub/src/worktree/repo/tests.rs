//! Tests of `repo.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

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
