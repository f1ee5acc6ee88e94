//! A lead with the real `clawmux` binary: the user makes moon the lead of sky; sky's permission hook (the
//! real `clawmux hook permission`, held open) is told to moon as a message with the request's id; moon
//! allows a read with `clawmux allow`, and sky's hook prints Claude Code's allow; a tool not listed, a
//! dangerous command and an agent that is not the lead are refused; once the user takes the right back,
//! moon's answer is refused too, and the user still answers.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};

use serde_json::{json, Value};

use std::time::Duration;

use crate::common::feed::Feed;
use crate::common::{start_wait, TestHub};

fn command(hub: &TestHub, command: Value) -> Value {
    let (status, answer) = hub.post("/api/command", None, &command.to_string());
    assert_eq!(status, 200, "{command}: {answer}");
    answer
}

/// Sky's PermissionRequest hook for `tool` with `input`, held open by the hub.
fn ask_permission(hub: &TestHub, tool: &str, input: Value) -> Child {
    let mut hook = hub
        .clawmux(Some("sky"))
        .args(["hook", "permission"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let payload =
        json!({"hook_event_name": "PermissionRequest", "tool_name": tool, "tool_input": input});
    hook.stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    hook
}

/// What the hook printed: Claude Code's decision.
fn decision(hook: Child) -> Value {
    let mut line = String::new();
    BufReader::new(hook.stdout.unwrap())
        .read_line(&mut line)
        .unwrap();
    serde_json::from_str(&line).unwrap_or(Value::Null)
}

/// The id of sky's request for `input`, once its status shows it open, as the window's feed tells it.
fn opened(feed: &mut Feed, input: &Value) -> String {
    let status = feed
        .until(Duration::from_secs(10), |v| {
            v["type"] == "session_status"
                && v["session_id"] == "sky"
                && v["needs"]["request"]["tool_input"] == *input
        })
        .expect("sky's request never showed");
    status["needs"]["request"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn refused(hub: &TestHub, who: &str, args: &[&str], says: &str) {
    let out = hub.clawmux(Some(who)).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(says), "{args:?}: {err}");
}

#[test]
fn a_lead_allows_what_the_user_listed_and_nothing_once_the_right_is_taken_back() {
    let hub = TestHub::start();
    for name in ["sky", "moon", "rain"] {
        hub.add_agent(name);
    }
    let grants = command(
        &hub,
        json!({"command": "set_lead", "lead": "moon", "members": ["sky"]}),
    );
    assert_eq!(
        (&grants[0]["member"], &grants[0]["lead"]),
        (&json!("sky"), &json!("moon")),
        "{grants}"
    );
    let mut feed = hub.feed(None);
    // Moon is told it leads sky, then of sky's request, with its id.
    let told = String::from_utf8(
        start_wait(&hub, &mut feed, "moon")
            .wait_with_output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(told.contains("The user made you the lead of sky"), "{told}");
    let wait = start_wait(&hub, &mut feed, "moon");
    let read = ask_permission(&hub, "Read", json!({"file_path": "/w/src/a.rs"}));
    let told = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    let id = told
        .split("clawmux allow sky ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no request id in {told}"))
        .to_owned();
    refused(&hub, "rain", &["allow", "sky", &id], "you do not lead sky");
    hub.run(Some("moon"), &["allow", "sky", &id]);
    assert_eq!(
        decision(read)["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
    let notes = hub.history("sky");
    assert!(
        notes.iter().any(|m| m["kind"] == "system"
            && m["text"]
                .as_str()
                .unwrap()
                .starts_with("moon (lead) allowed Read")),
        "{notes:?}"
    );

    // Not listed, dangerous: the lead may only deny; the user answers.
    for (tool, input, says) in [
        (
            "Bash",
            json!({"command": "ls"}),
            "did not let you allow Bash",
        ),
        (
            "Write",
            json!({"file_path": "/w/x"}),
            "did not let you allow Write",
        ),
    ] {
        let hook = ask_permission(&hub, tool, input.clone());
        let request = opened(&mut feed, &input);
        refused(&hub, "moon", &["allow", "sky", &request], says);
        hub.run(Some("moon"), &["deny", "sky", &request, "not now"]);
        let denied = decision(hook);
        assert_eq!(
            denied["hookSpecificOutput"]["decision"]["behavior"], "deny",
            "{denied}"
        );
        assert!(
            denied.to_string().contains("moon (lead): not now"),
            "{denied}"
        );
    }
    command(
        &hub,
        json!({"command": "set_lead", "lead": "moon", "members": ["sky"], "tools": ["Bash"]}),
    );
    let input = json!({"command": "git push origin main"});
    let push = ask_permission(&hub, "Bash", input.clone());
    let request = opened(&mut feed, &input);
    refused(&hub, "moon", &["allow", "sky", &request], "dangerous");
    // The right taken back: moon's answer is refused at once; the user answers.
    let left = command(&hub, json!({"command": "revoke_lead", "lead": "moon"}));
    assert_eq!(left, json!([]));
    refused(
        &hub,
        "moon",
        &["deny", "sky", &request],
        "you do not lead sky",
    );
    command(
        &hub,
        json!({"command": "answer", "session_id": "sky", "request_id": request, "decision": "deny"}),
    );
    assert_eq!(
        decision(push)["hookSpecificOutput"]["decision"]["behavior"],
        "deny"
    );
}
