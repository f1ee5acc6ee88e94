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
