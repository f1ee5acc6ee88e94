//! Several agents in one repository, each in a worktree of its own: the real hub, the real `clawmux`,
//! the user's `git` on real repositories.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::TestHub;

/// Runs git in `dir` as the user would, with an identity for commits.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
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

/// A repository on `main` with one commit, in the hub's temporary folder.
pub(crate) fn repository(hub: &TestHub) -> std::path::PathBuf {
    let repo = hub.dir.path().join("app");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    // The user's identity, as their git config would give it to the hub's git too.
    git(&repo, &["config", "user.name", "Test"]);
    git(&repo, &["config", "user.email", "test@example.com"]);
    std::fs::write(repo.join("src/a.rs"), "fn a() {}\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    repo
}

/// A hub that finds the user's programs (tmux, git) on its PATH.
pub(crate) fn hub() -> TestHub {
    let path = std::env::var("PATH").unwrap_or_default();
    TestHub::start_with_options(&[("PATH", &path)])
}

/// `clawmux args`, expected to fail: what it said.
fn refused(hub: &TestHub, args: &[&str]) -> String {
    let out = hub.clawmux(None).args(args).output().unwrap();
    assert!(!out.status.success(), "clawmux {args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn agents_in_one_repository_each_work_in_a_worktree_of_their_own_and_show_their_changes() {
    let hub = hub();
    let repo = repository(&hub);
    let repo_arg = repo.to_str().unwrap();
    let mut feed = hub.feed(None);
    for name in ["sky", "moon"] {
        hub.run(
            None,
            &[
                "spawn",
                name,
                "--demo",
                "--worktree",
                "--work-dir",
                repo_arg,
            ],
        );
    }
    for name in ["sky", "moon"] {
        feed.state(name, "idle", Duration::from_secs(20));
    }
    let sky = hub.data().join("worktrees/sky");
    let moon = hub.data().join("worktrees/moon");
    assert_eq!(hub.session("sky")["work_dir"], sky.to_str().unwrap());
    assert_eq!(
        git(&sky, &["symbolic-ref", "--short", "HEAD"]).trim(),
        "clawmux/sky"
    );
    assert_eq!(
        git(&moon, &["symbolic-ref", "--short", "HEAD"]).trim(),
        "clawmux/moon"
    );

    // Each edits its own checkout; neither sees the other's change, nor does the user's.
    std::fs::write(sky.join("src/a.rs"), "fn a() {}\nfn sky() {}\n").unwrap();
    std::fs::write(moon.join("notes.txt"), "moon's note\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(moon.join("src/a.rs")).unwrap(),
        "fn a() {}\n"
    );
    assert_eq!(
        git(&repo, &["status", "--porcelain"]),
        "",
        "the user's checkout is untouched"
    );

    let stat = hub.run(None, &["diff", "sky", "--stat"]);
    assert!(
        stat.starts_with("sky: branch clawmux/sky from main"),
        "{stat}"
    );
    assert!(stat.contains("changes not committed yet"), "{stat}");
    assert!(stat.contains(" M src/a.rs  +1 -0"), "{stat}");
    assert!(
        !stat.contains("notes.txt") && !stat.contains("CLAUDE.md"),
        "only sky's own: {stat}"
    );
    assert!(!stat.contains("+fn sky"), "--stat prints no diff: {stat}");
    let diff = hub.run(None, &["diff", "moon"]);
    assert!(diff.contains(" A notes.txt  +1 -0"), "{diff}");
    assert!(diff.contains("+moon's note\n"), "{diff}");

    // A commit of the agent's counts as its change too.
    git(&sky, &["commit", "-q", "-am", "Add sky"]);
    let stat = hub.run(None, &["diff", "sky", "--stat"]);
    assert!(
        stat.contains("1 commit\n") && stat.contains(" Add sky (Test)"),
        "{stat}"
    );
    assert!(stat.contains(" M src/a.rs  +1 -0"), "{stat}");

    // A restart resumes in the same worktree.
    hub.run(None, &["restart", "sky"]);
    feed.state("sky", "idle", Duration::from_secs(20));
    assert_eq!(hub.session("sky")["work_dir"], sky.to_str().unwrap());
    assert_eq!(git(&sky, &["log", "-1", "--format=%s"]).trim(), "Add sky");

    // sky tells the user what it did; a merge takes that for its message, and lands one commit on main.
    let said = hub
        .clawmux(None)
        .env("CLAWMUX_SESSION_ID", "sky")
        .env("CLAWMUX_WORK_DIR", &sky)
        .current_dir(&sky)
        .args([
            "send",
            "--to",
            "user",
            "Added sky() to a.rs.\n\nNothing else.",
        ])
        .output()
        .unwrap();
    assert!(
        said.status.success(),
        "{}",
        String::from_utf8_lossy(&said.stderr)
    );
    let merged = hub.run(None, &["merge", "sky", "--squash"]);
    assert!(merged.starts_with("sky merged into main: "), "{merged}");
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%B"]).trim(),
        "Added sky() to a.rs.\n\nNothing else.\n\nFrom sky's branch:\n- Add sky"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("src/a.rs")).unwrap(),
        "fn a() {}\nfn sky() {}\n",
        "the user's checkout of main has it"
    );
    assert!(refused(&hub, &["merge", "sky"]).contains("has no commit that `main` lacks"));
    // moon's note is not committed: nothing is merged.
    assert!(refused(&hub, &["merge", "moon", "-m", "notes"]).contains("not all committed"));
    assert_eq!(git(&repo, &["log", "--format=%s"]).lines().count(), 2);

    // Cleanup never loses work: the list says what each holds; a running agent's worktree stays; moon's
    // note, in no commit, goes only with --discard.
    let list = hub.run(None, &["worktree", "list"]);
    assert!(list.contains("sky  clawmux/sky from main  "), "{list}");
    assert!(list.contains("nothing unsaved, running"), "{list}");
    assert!(list.contains("1 not committed, running"), "{list}");
    assert!(refused(&hub, &["worktree", "remove", "sky"]).contains("terminate it first"));
    for name in ["sky", "moon"] {
        hub.run(None, &["terminate", name]);
    }
    assert_eq!(
        hub.run(None, &["worktree", "remove", "sky"]),
        "sky's worktree and branch removed\n"
    );
    assert!(!sky.exists());
    assert!(
        hub.session("sky").get("branch").is_none(),
        "no Changes panel for it now"
    );
    let said = refused(&hub, &["worktree", "remove", "moon"]);
    assert!(said.contains("1 file not committed (notes.txt)"), "{said}");
    assert!(moon.join("notes.txt").exists());
    let removed = hub.run(None, &["worktree", "remove", "moon", "--discard"]);
    assert!(removed.contains("(discarded: "), "{removed}");
    assert!(!moon.exists());
    assert_eq!(git(&repo, &["branch", "--list", "clawmux/*"]), "");
    assert_eq!(
        hub.run(None, &["worktree", "list"]),
        "no agent has a worktree\n"
    );
}

#[test]
fn a_worktree_that_cannot_be_made_is_refused_saying_why_and_leaves_nothing() {
    let hub = hub();
    let repo = repository(&hub);
    let plain = hub.dir.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    git(&repo, &["branch", "clawmux/taken"]);
    let spawn = |name: &str, dir: &Path, more: &[&str]| {
        let mut args = vec![
            "spawn",
            name,
            "--demo",
            "--worktree",
            "--work-dir",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(more);
        refused(&hub, &args)
    };
    assert!(spawn("a", &plain, &[]).contains("not in a git repository"));
    assert!(spawn("b", &repo, &["--base", "nope"]).contains("`nope` names no commit"));
    assert!(spawn("taken", &repo, &[]).contains("the branch `clawmux/taken` exists already"));
    git(&repo, &["checkout", "-q", "--detach"]);
    assert!(spawn("c", &repo, &[]).contains("detached HEAD"));
    let usage = refused(&hub, &["spawn", "d", "--demo", "--base", "main"]);
    assert!(usage.contains("--worktree"), "{usage}");

    assert!(
        hub.run(None, &["agent", "list"]).starts_with("no agents"),
        "no agent was made"
    );
    assert_eq!(
        git(&repo, &["branch", "--list", "clawmux/*"]).trim(),
        "clawmux/taken"
    );
    let made = hub.data().join("worktrees");
    assert!(
        !made.exists() || std::fs::read_dir(&made).unwrap().count() == 0,
        "no worktree left"
    );

    hub.add_agent("plain");
    assert!(refused(&hub, &["diff", "plain"]).contains("has no worktree of its own"));
}
