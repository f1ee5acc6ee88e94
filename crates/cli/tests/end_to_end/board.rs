//! The shared board with the real `clawmux` binary run as agents: two agents taking one item at the same
//! moment (one wins, the other is told who has it), an item done telling its creator through its wait,
//! hostile text printed without a control character, and bad calls refused clearly with nothing changed.

use std::process::Stdio;

use serde_json::json;

use crate::common::{start_wait, TestHub};

#[test]
fn two_agents_take_one_item_at_once_and_its_creator_hears_when_it_is_done() {
    let hub = TestHub::start();
    for name in ["sky", "rain", "moon"] {
        hub.add_agent(name);
    }
    let added = hub.run(
        Some("sky"),
        &["task", "add", "write the docs", "--body", "the API part"],
    );
    assert_eq!(added.trim(), "#1  open  -  write the docs");
    let takers: Vec<_> = ["rain", "moon"]
        .into_iter()
        .map(|who| {
            hub.clawmux(Some(who))
                .args(["task", "take", "1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = takers
        .into_iter()
        .map(|t| t.wait_with_output().unwrap())
        .collect();
    let won: Vec<&str> = ["rain", "moon"]
        .into_iter()
        .zip(&outs)
        .filter(|(_, o)| o.status.success())
        .map(|(who, _)| who)
        .collect();
    assert_eq!(won.len(), 1, "not one winner: {outs:?}");
    let (winner, loser) = if won[0] == "rain" {
        ("rain", &outs[1])
    } else {
        ("moon", &outs[0])
    };
    assert_eq!(loser.status.code(), Some(1));
    let refused = String::from_utf8_lossy(&loser.stderr);
    assert!(refused.contains(&format!("#1 is {winner}'s")), "{refused}");

    let listed = hub.run(Some(winner), &["task", "list", "--mine"]);
    assert_eq!(
        listed.trim(),
        format!("#1  taken  {winner}  write the docs")
    );
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "sky");
    hub.run(Some(winner), &["task", "done", "1"]);
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        printed.contains(&format!("from:{winner}] Task #1 is done: write the docs")),
        "{printed}"
    );
    let board = hub.post(
        "/api/command",
        None,
        &json!({"command": "board", "state": "done"}).to_string(),
    );
    assert_eq!(board.0, 200);
    assert_eq!(board.1[0]["owner"], winner, "{}", board.1);
}

#[test]
fn hostile_text_is_printed_without_control_characters_and_bad_calls_change_nothing() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("rain");
    hub.run(
        Some("sky"),
        &[
            "task",
            "add",
            "fix \u{1b}]0;pwned\u{7} it",
            "--body",
            "step \u{1b}[2J one\nstep two",
        ],
    );
    let shown = hub.run(Some("rain"), &["task", "show", "1"]);
    assert!(
        !shown.chars().any(|c| c.is_control() && c != '\n'),
        "{shown:?}"
    );
    assert!(
        shown.contains("fix ]0;pwned it") && shown.contains("step two"),
        "{shown:?}"
    );
    let refused = |who: &str, args: &[&str], says: &str| {
        let out = hub.clawmux(Some(who)).args(args).output().unwrap();
        // 1: the hub refused; 2: the arguments were not understood (clap).
        assert!(matches!(out.status.code(), Some(1 | 2)), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused("rain", &["task", "take", "7"], "no task #7");
    refused(
        "rain",
        &["task", "done", "1"],
        "done by an agent that has not taken it",
    );
    refused("rain", &["task", "add", ""], "bad_task");
    refused(
        "rain",
        &["task", "list", "--state", "closed"],
        "not a state",
    );
    hub.run(Some("rain"), &["task", "take", "1"]);
    refused("sky", &["task", "drop", "1"], "#1 is rain's");
    refused("rain", &["task", "take", "1"], "cannot be taken again");
    let listed = hub.run(Some("sky"), &["task", "list"]);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.starts_with("#1  taken  rain  fix"), "{listed}");
}

#[test]
fn the_user_hands_an_agents_work_in_a_worktree_to_another_with_its_branch_changes_and_items() {
    let hub = crate::worktrees::hub();
    let repo = crate::worktrees::repository(&hub);
    let mut feed = hub.feed(None);
    hub.run(
        None,
        &[
            "spawn",
            "sky",
            "--demo",
            "--worktree",
            "--work-dir",
            repo.to_str().unwrap(),
        ],
    );
    feed.state("sky", "idle", std::time::Duration::from_secs(20));
    hub.add_agent("moon");
    // `clawmux` as sky runs from a folder of the test's (sky's own is its worktree).
    std::fs::create_dir_all(hub.work_dir("sky")).unwrap();
    let sky = hub.data().join("worktrees/sky");
    std::fs::write(sky.join("src/a.rs"), "fn a() {}\nfn sky() {}\n").unwrap();
    hub.run(Some("sky"), &["task", "add", "version the API"]);
    let taken = hub.run(Some("sky"), &["task", "take", "1"]);
    assert_eq!(
        taken.trim(),
        "#1  taken  sky  version the API  (clawmux/sky)"
    );

    let wait = start_wait(&hub, &mut feed, "moon");
    let handed = hub.post(
        "/api/command",
        None,
        &json!({"command": "hand_over", "from": "sky", "to": "moon"}).to_string(),
    );
    assert_eq!(handed.0, 200, "{}", handed.1);
    assert_eq!(
        (&handed.1["items"], &handed.1["branch"]),
        (&json!([1]), &json!("clawmux/sky"))
    );
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        printed.contains("from:user] You take over sky's work."),
        "{printed}"
    );
    for part in [
        "`clawmux/sky` (from `main`)",
        "- src/a.rs (+1 -0)",
        "- #1 version the API (taken)",
    ] {
        assert!(printed.contains(part), "{part}: {printed}");
    }
    let board = hub.run(Some("moon"), &["task", "list", "--mine"]);
    assert_eq!(board.trim(), "#1  taken  moon  version the API");
    let told = hub.history("sky");
    assert!(
        told.iter().any(|m| m["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("I handed your work to moon")),
        "{told:?}"
    );
    // An agent's own hand-over, and the bad ones.
    let out = hub
        .clawmux(Some("moon"))
        .args(["handover", "moon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("name another agent"));
    let mine = hub.run(Some("moon"), &["handover", "sky"]);
    assert!(mine.trim().ends_with("(items given: #1)"), "{mine}");
}

#[test]
fn the_user_asks_what_is_open_and_gives_an_item_by_voice() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("rain");
    hub.run(Some("sky"), &["task", "add", "write the docs"]);
    let hear = |text: &str| {
        let (status, heard) = hub.post(
            "/api/command",
            None,
            &json!({"command": "hear", "text": text}).to_string(),
        );
        assert_eq!(status, 200, "{heard}");
        heard["say"].as_str().unwrap().to_owned()
    };
    assert_eq!(hear("What's open?"), "1 open: task 1, write the docs.");
    assert_eq!(
        hear("Give the docs task to Rain."),
        "Task 1, write the docs, to rain."
    );
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "rain");
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        printed.contains("The user gave you task #1: write the docs"),
        "{printed}"
    );
    assert_eq!(
        hub.run(Some("sky"), &["task", "list"]).trim(),
        "#1  taken  rain  write the docs"
    );
    assert_eq!(
        hear("what is open"),
        "Nothing is open. rain has task 1, write the docs."
    );
}
