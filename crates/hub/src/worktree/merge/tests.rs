//! Tests of `merge.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use super::super::repo::create;
use super::super::testing::{git, repo};
use super::*;

/// Installs the user's hook `name` in repository `top`.
fn hook(top: &Path, name: &str, body: &str) {
    let path = top.join(".git/hooks").join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The agent commits `text` to `file` in its worktree `wt`.
fn commit(wt: &Path, file: &str, text: &str, message: &str) {
    std::fs::write(wt.join(file), text).unwrap();
    git(wt, &["add", file]);
    git(wt, &["commit", "-q", "-m", message]);
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// The scratch folder in the data folder, made.
fn scratch(data: &Path) -> PathBuf {
    let scratch = data.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    scratch
}

#[tokio::test]
async fn a_squash_lands_one_commit_on_the_checked_out_base_through_the_users_hooks() {
    let (_tmp, top, data) = repo();
    hook(&top, "commit-msg", r#"echo "Hooked: yes" >> "$1""#);
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    commit(&wt, "src/a.rs", "fn a() {}\nfn b() {}\n", "Add b");
    commit(&wt, "new.txt", "one\n", "Add new");
    std::fs::write(wt.join(".waiting"), "1").unwrap();
    let before = head(&top);
    let merged = merge(
        &spec,
        &wt,
        &scratch(&data),
        MergeMode::Squash,
        "Sky: b and new\n\nWhat sky did.",
    )
    .await
    .unwrap();
    assert_eq!(
        (merged.base.as_str(), merged.mode),
        ("main", MergeMode::Squash)
    );
    assert_eq!(head(&top), merged.commit, "the user's checkout moved");
    assert_eq!(
        git(&top, &["rev-list", "--parents", "-1", "HEAD"]).trim(),
        format!("{} {before}", merged.commit),
        "one commit on the old base"
    );
    let message = git(&top, &["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("Sky: b and new\n\nWhat sky did."),
        "{message}"
    );
    assert!(
        message.contains("Hooked: yes"),
        "the user's hook ran: {message}"
    );
    assert_eq!(
        std::fs::read_to_string(top.join("new.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(git(&top, &["status", "--porcelain"]), "");
    assert_eq!(
        head(&wt),
        merged.commit,
        "the agent goes on from the new base"
    );
    assert_eq!(
        merge(&spec, &wt, &scratch(&data), MergeMode::Squash, "again")
            .await
            .unwrap_err()
            .code,
        Code::NothingToMerge
    );
}

#[tokio::test]
async fn a_merge_commit_keeps_the_commits_and_a_rebase_lines_them_up() {
    let (_tmp, top, data) = repo();
    let (sky, sky_wt) = create(&data, "sky", &top, None).await.unwrap();
    let (rain, rain_wt) = create(&data, "rain", &top, None).await.unwrap();
    commit(&sky_wt, "sky.txt", "sky\n", "Sky's file");
    commit(&rain_wt, "rain.txt", "rain\n", "Rain's file");
    let merged = merge(
        &sky,
        &sky_wt,
        &scratch(&data),
        MergeMode::Merge,
        "Merge sky",
    )
    .await
    .unwrap();
    let parents = git(&top, &["rev-list", "--parents", "-1", "HEAD"]);
    assert_eq!(
        parents.split_whitespace().count(),
        3,
        "a merge commit: {parents}"
    );
    assert_eq!(git(&top, &["log", "-1", "--format=%s"]).trim(), "Merge sky");
    // Rain left main before sky's merge: its commit is replayed on top of it, with no merge commit.
    let rebased = merge(
        &rain,
        &rain_wt,
        &scratch(&data),
        MergeMode::Rebase,
        "unused",
    )
    .await
    .unwrap();
    assert_eq!(
        git(&top, &["log", "--first-parent", "--format=%s"]),
        "Rain's file\nMerge sky\nfirst\n"
    );
    assert_eq!(
        git(&top, &["rev-parse", "HEAD^"]).trim(),
        merged.commit,
        "linear on the base"
    );
    assert_eq!(
        (head(&top), head(&rain_wt)),
        (rebased.commit.clone(), rebased.commit)
    );
    assert!(top.join("sky.txt").exists() && top.join("rain.txt").exists());
}

#[tokio::test]
async fn a_conflict_is_found_before_anything_is_written_and_its_files_named() {
    let (_tmp, top, data) = repo();
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    commit(&wt, "src/a.rs", "fn sky() {}\n", "Sky's a");
    commit(&wt, "README", "sky\n", "Sky's readme");
    commit(&top, "src/a.rs", "fn user() {}\n", "The user's a");
    let (top_before, wt_before) = (head(&top), head(&wt));
    for mode in [MergeMode::Merge, MergeMode::Squash, MergeMode::Rebase] {
        let err = merge(&spec, &wt, &scratch(&data), mode, "m")
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::MergeConflict, "{mode:?}");
        assert!(err.message.contains("src/a.rs"), "{}", err.message);
        assert!(!err.message.contains("README"), "{}", err.message);
        assert_eq!(
            (head(&top), head(&wt)),
            (top_before.clone(), wt_before.clone())
        );
        assert_eq!(git(&top, &["status", "--porcelain"]), "");
        assert_eq!(git(&wt, &["status", "--porcelain"]), "");
    }
    assert_eq!(
        std::fs::read_to_string(top.join("src/a.rs")).unwrap(),
        "fn user() {}\n"
    );
}

#[tokio::test]
async fn what_is_in_the_way_is_refused_and_nothing_changes() {
    let (_tmp, top, data) = repo();
    git(&top, &["tag", "v1"]);
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    let code = |r: Result<Merged, HubError>| r.unwrap_err().code;
    assert_eq!(
        code(merge(&spec, &wt, &scratch(&data), MergeMode::Merge, "m").await),
        Code::NothingToMerge
    );
    commit(&wt, "sky.txt", "sky\n", "Sky's file");
    std::fs::write(wt.join("draft.txt"), "half done\n").unwrap();
    assert_eq!(
        code(merge(&spec, &wt, &scratch(&data), MergeMode::Merge, "m").await),
        Code::Uncommitted
    );
    std::fs::remove_file(wt.join("draft.txt")).unwrap();
    std::fs::write(top.join("README"), "the user is editing\n").unwrap();
    let before = head(&top);
    let err = merge(&spec, &wt, &scratch(&data), MergeMode::Squash, "m")
        .await
        .unwrap_err();
    assert_eq!(err.code, Code::BaseDirty);
    assert!(
        err.message.contains(&top.display().to_string()),
        "{}",
        err.message
    );
    assert_eq!(head(&top), before);
    assert_eq!(
        std::fs::read_to_string(top.join("README")).unwrap(),
        "the user is editing\n"
    );
    assert!(!top.join("sky.txt").exists());
    let (tagged, tagged_wt) = create(&data, "tagged", &top, Some("v1")).await.unwrap();
    commit(&tagged_wt, "t.txt", "t\n", "On a tag");
    assert_eq!(
        code(merge(&tagged, &tagged_wt, &scratch(&data), MergeMode::Merge, "m").await),
        Code::BadBase
    );
}

#[tokio::test]
async fn a_base_checked_out_nowhere_is_merged_in_a_checkout_that_goes_away() {
    let (_tmp, top, data) = repo();
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    git(&top, &["checkout", "-q", "-b", "elsewhere"]);
    let elsewhere = head(&top);
    commit(&wt, "sky.txt", "sky\n", "Sky's file");
    let scratch = scratch(&data);
    let merged = merge(&spec, &wt, &scratch, MergeMode::Squash, "Sky's work")
        .await
        .unwrap();
    assert_eq!(git(&top, &["rev-parse", "main"]).trim(), merged.commit);
    assert_eq!(
        head(&top),
        elsewhere,
        "the user's checkout stays on its branch"
    );
    assert!(!top.join("sky.txt").exists());
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
    assert_eq!(
        git(&top, &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        2,
        "the user's checkout and sky's"
    );
}

#[tokio::test]
async fn a_hook_that_refuses_leaves_the_checkout_as_it_was() {
    let (_tmp, top, data) = repo();
    let (spec, wt) = create(&data, "sky", &top, None).await.unwrap();
    commit(&wt, "sky.txt", "sky\n", "Sky's file");
    hook(&top, "commit-msg", "echo 'no ticket number' >&2; exit 1");
    let (top_before, wt_before) = (head(&top), head(&wt));
    for mode in [MergeMode::Merge, MergeMode::Squash] {
        let err = merge(&spec, &wt, &scratch(&data), mode, "m")
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::GitFailed, "{mode:?}");
        assert!(err.message.contains("no ticket number"), "{}", err.message);
        assert_eq!(
            (head(&top), head(&wt)),
            (top_before.clone(), wt_before.clone())
        );
        assert_eq!(git(&top, &["status", "--porcelain"]), "", "{mode:?}");
        assert!(!top.join(".git/MERGE_HEAD").exists());
        assert!(!top.join("sky.txt").exists());
    }
}
