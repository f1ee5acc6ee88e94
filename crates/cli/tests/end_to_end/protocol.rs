//! The agent protocol end to end: the real hub, the real `clawmux` binary as agent and hook.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{start_wait, wait_until, TestHub};
use serde_json::{json, Value};

const SEC: Duration = Duration::from_secs(1);

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"hook_event_name":"PreToolUse","session_id":"c1","cwd":"/x","transcript_path":"/x/t.jsonl",
           "tool_name":tool,"tool_input":input,"tool_use_id":"toolu_1"})
}

#[test]
fn tool_hooks_hand_the_inbox_over_once_and_the_stop_hook_insists_on_an_answer() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let id = hub.user_message("sky", "please look");

    // The PreToolUse of `clawmux wait` leaves the message for the wait itself.
    let (status, v) = hub.hook("sky", pre_tool("Bash", json!({"command":"clawmux wait"})));
    assert_eq!((status, &v), (200, &json!({})));

    let (status, v) = hub.hook("sky", pre_tool("Read", json!({"file_path":"/x/a.rs"})));
    assert_eq!(status, 200);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(
        v["hookSpecificOutput"]["additionalContext"],
        format!("You have 1 new message(s):\n[MSG id:{id} from:user] please look")
    );
    // The hand-over is remembered by the hub: nothing is written into the agent's work folder.
    assert!(!hub.work_dir("sky").join(".hook_delivered").exists());
    // Handed over once: the next hook gets nothing.
    let (_, v) = hub.hook(
        "sky",
        json!({"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"toolu_1"}),
    );
    assert_eq!(v, json!({}));

    // Stop: first "answer what you got", then "run clawmux wait".
    let stop = json!({"hook_event_name":"Stop","stop_hook_active":false}).to_string();
    let (code, err) = hub.command_hook(Some("sky"), &["hook", "stop"], &stop);
    assert_eq!(code, 2);
    assert!(err.contains("Answer them"), "{err}");
    let (code, err) = hub.command_hook(Some("sky"), &["hook", "stop"], &stop);
    assert_eq!(code, 2);
    assert!(err.contains("clawmux wait"), "{err}");
    // The original script form does the same.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../hooks/stop-check-inbox.sh"
    );
    let mut sh = std::process::Command::new("bash");
    sh.arg(script)
        .env(
            "PATH",
            format!(
                "{}:/usr/bin:/bin",
                std::path::Path::new(crate::common::BIN)
                    .parent()
                    .unwrap()
                    .display()
            ),
        )
        .env("HOME", hub.dir.path())
        .env("CLAWMUX_HOME", hub.data())
        .env("CLAWMUX_PORT", hub.port.to_string())
        .env("CLAWMUX_SESSION_ID", "sky")
        .env("CLAWMUX_WORK_DIR", hub.work_dir("sky"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = sh.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stop.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_stop_hook_hands_over_pending_messages_and_lets_a_waiting_agent_stop() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let stop = json!({"hook_event_name":"Stop","stop_hook_active":true}).to_string();
    let id = hub.user_message("sky", "one more thing");
    let (code, err) = hub.command_hook(Some("sky"), &["hook", "stop"], &stop);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("[MSG id:{id} from:user] one more thing")),
        "{err}"
    );

    // With a live wait (e.g. run in the background), Claude may stop.
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "sky");
    let (code, _) = hub.command_hook(Some("sky"), &["hook", "stop"], &stop);
    assert_eq!(code, 0);
    // And hooks leave the inbox to the waiter while it is connected.
    let id = hub.user_message("sky", "for the waiter");
    let out = wait.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] for the waiter\n")
    );
}

#[test]
fn hooks_fail_fast_and_never_block_when_the_hub_is_down_or_outside_an_agent() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let stop = r#"{"hook_event_name":"Stop"}"#;
    // Outside an agent: a silent no-op.
    let (code, err) = hub.command_hook(None, &["hook", "stop"], stop);
    assert_eq!((code, err.as_str()), (0, ""));
    // Hub down (killed: its socket file is left, and nobody answers on it): exit 0 (Claude carries on) in
    // well under a second.
    let mut hub = hub;
    hub.kill();
    for args in [&["hook", "stop"][..], &["hook", "tool-status"][..]] {
        let start = Instant::now();
        let mut cmd = hub.clawmux(Some("sky"));
        cmd.args(args).stdin(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), stop.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let took = start.elapsed();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(took < SEC, "{args:?} took {took:?}");
    }
}

#[test]
fn send_prints_an_id_is_idempotent_and_fails_clearly() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    let user_msg = hub.user_message("sky", "hi");
    let send = |args: &[&str]| {
        hub.clawmux(Some("sky"))
            .arg("send")
            .args(args)
            .output()
            .unwrap()
    };

    let out = send(&["--to", "user", "--re", &user_msg, "Hello **there**"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(id.starts_with("msg-") && id.len() == 12, "{id}");
    // A retry with the same content is the same message.
    let again = send(&["--to", "user", "--re", &user_msg, "Hello **there**"]);
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), id);
    // A thumbs-up.
    let ack = send(&["--to", "user", "--re", &user_msg]);
    assert!(ack.status.success());
    let history = hub.history("sky");
    let kinds: Vec<&str> = history
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user", "assistant", "ack"]);
    assert_eq!(history[1]["parent_id"], user_msg.as_str());

    // To another agent: lands in its inbox, with the sender.
    let out = send(&["--to", "moon", "ping from sky"]);
    let to_moon = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let out = hub.clawmux(Some("moon")).arg("wait").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{to_moon} from:sky] ping from sky\n")
    );

    for (args, expect) in [
        (&["--to", "nobody", "x"][..], "unknown agent"),
        (&["--to", "user"][..], "nothing to send"),
        (&["--to", "user", "--re", "bogus", "x"][..], "msg-"),
    ] {
        let out = send(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(expect),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn agent_add_prints_exports_and_status_lists_agents() {
    let hub = TestHub::start();
    let out = hub
        .clawmux(None)
        .args(["agent", "add", "sky", "--work-dir"])
        .arg(hub.work_dir("sky"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("export CLAWMUX_SESSION_ID='sky'"), "{text}");
    assert!(text.contains(&format!("export CLAWMUX_PORT={}", hub.port)));
    assert!(text.contains(&format!("export CLAWMUX_HOME='{}'", hub.data().display())));
    assert!(
        !text.contains(&hub.token),
        "an agent needs no token: {text}"
    );
    assert!(text.contains("export CLAWMUX_WORK_DIR="));
    assert!(hub.work_dir("sky").is_dir());
    let out = hub.clawmux(None).arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("sky") && l.contains("starting")),
        "{text}"
    );
    for bad in ["../etc", "a b", "user", ""] {
        let out = hub
            .clawmux(None)
            .args(["agent", "add", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    }
    let s = hub.session("sky");
    for field in ["session_id", "state", "activity", "unread_count"] {
        assert!(s.get(field).is_some(), "{field} missing in {s}");
    }
}

#[test]
fn the_demo_agent_runs_a_whole_cycle_through_the_real_paths() {
    let hub = TestHub::start();
    let mut feed = hub.feed(None);
    let mut demo = hub
        .clawmux(None)
        .args(["demo-agent", "demo", "--pace", "0", "--messages", "1"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    feed.state("demo", "idle", 10 * SEC);
    let id = hub.user_message("demo", "do the thing");
    feed.state("demo", "processing", 2 * SEC);
    let reply = feed
        .until(10 * SEC, |v| {
            v["type"] == "assistant_text" && v["session_id"] == "demo"
        })
        .expect("the demo agent answered");
    assert_eq!(reply["parent_id"], id.as_str());
    assert!(reply["text"].as_str().unwrap().contains("do the thing"));
    assert!(demo.wait().unwrap().success());
    // The decision log holds the whole cycle, row by row of docs/STATE-MACHINE.md's table.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let moves: Vec<String> = rt.block_on(async {
        let store = clawmux_store::Store::open(&hub.data().join("clawmux.db"))
            .await
            .unwrap();
        let log = store.decisions("demo", 0, 1000).await.unwrap();
        store.close().await;
        log.iter()
            .filter(|d| d.decision.outcome == clawmux_core::Outcome::Moved)
            .map(|d| {
                format!(
                    "{}:{}>{}",
                    d.decision.trigger, d.decision.from, d.decision.to
                )
            })
            .collect()
    });
    assert!(
        moves.starts_with(&[
            "wait:connect:starting>idle".to_owned(),
            "wait:disconnect:idle>processing".to_owned()
        ]),
        "{moves:?}"
    );
    // Like Claude Code, it kept a transcript that its hooks named, and the hub read it.
    let work_dir = std::path::PathBuf::from(hub.session("demo")["work_dir"].as_str().unwrap());
    let transcript =
        std::fs::read_to_string(hub.data().join("launch/demo/demo-transcript.jsonl")).unwrap();
    let own: Vec<_> = std::fs::read_dir(&work_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(
        own.is_empty(),
        "ClawMux's files in the work folder: {own:?}"
    );
    assert!(
        transcript.contains(r#""type":"tool_use""#)
            && transcript.contains(r#""type":"tool_result""#)
    );
    let from_transcript = || {
        hub.get_text("/api/sessions/demo/log/decisions")
            .lines()
            .filter(|l| l.contains(r#""source":"transcript""#))
            .count()
    };
    wait_until(5 * SEC, || from_transcript() > 0);
}
