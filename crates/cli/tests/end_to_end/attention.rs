//! "Needs you", the transcript watcher, observed sessions and the diagnosis tools, end to end: a real hub
//! (`clawmux serve`), real hook requests, a real transcript file watched with inotify, the real `clawmux`
//! binary run as Claude Code runs an installed hook, and `clawmux replay` on an exported log.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::feed::needs_is;
use crate::common::{wait_until, TestHub, BIN};
use serde_json::{json, Value};

const SECS5: Duration = Duration::from_secs(5);

pub(crate) fn pre_tool(id: &str, tool: &str, input: Value, transcript: Option<&Path>) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "c1", "tool_name": tool, "tool_input": input,
           "tool_use_id": id, "transcript_path": transcript})
}

pub(crate) fn permission(tool: &str, input: Value) -> Value {
    json!({"hook_event_name": "PermissionRequest", "session_id": "c1", "tool_name": tool, "tool_input": input})
}

fn decisions(hub: &TestHub, agent: &str) -> Vec<Value> {
    hub.get_text(&format!("/api/sessions/{agent}/log/decisions"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub(crate) fn iso(at: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

#[test]
fn needs_you_is_sticky_ends_with_its_tool_and_replays_from_the_export() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);

    hub.hook(
        "sky",
        pre_tool("t1", "Bash", json!({"command": "git push"}), None),
    );
    hub.hook("sky", permission("Bash", json!({"command": "git push"})));
    let ev = feed
        .until(SECS5, |v| needs_is(v, "sky", Some("permission")))
        .expect("needs you");
    assert_eq!(ev["needs"]["reason"], "Permission: Running git push");
    assert_eq!(
        ev["needs"]["tool_use_id"], "t1",
        "borrowed from the PreToolUse"
    );

    // A subagent's tool calls and another tool's end do not end the wait.
    let mut sub = pre_tool("s1", "Read", json!({"file_path": "/a"}), None);
    sub["agent_id"] = json!("sub1");
    hub.hook("sky", sub);
    hub.hook("sky", json!({"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": "s1", "agent_id": "sub1"}));
    hub.hook(
        "sky",
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "t0"}),
    );
    assert_eq!(hub.session("sky")["needs"]["need"], "permission");

    hub.hook(
        "sky",
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "t1"}),
    );
    feed.until(SECS5, |v| needs_is(v, "sky", None))
        .expect("the tool's end ends the wait");

    hub.hook("sky", json!({"hook_event_name": "StopFailure", "error": "server_error", "error_details": "500 Internal Server Error"}));
    let ev = feed
        .until(SECS5, |v| needs_is(v, "sky", Some("error")))
        .expect("error mark");
    assert_eq!(
        ev["needs"]["reason"],
        "server_error: 500 Internal Server Error"
    );
    // The usage limit is a mark of its own, in Claude Code's words.
    hub.hook("sky", json!({"hook_event_name": "StopFailure", "error": "rate_limit", "error_details": "You've hit your 5-hour limit"}));
    let ev = feed
        .until(SECS5, |v| needs_is(v, "sky", Some("rate_limited")))
        .expect("rate-limited mark");
    assert_eq!(ev["needs"]["reason"], "You've hit your 5-hour limit");

    let suppressed = decisions(&hub, "sky")
        .into_iter()
        .filter(|d| d["reason"] == "subagent")
        .count();
    assert_eq!(
        suppressed, 2,
        "both subagent events are in the log as suppressed"
    );

    // The exported events replay to the same end, and an expectation that does not hold fails the replay.
    let exported = hub.get_text("/api/sessions/sky/log/events");
    let case = hub.dir.path().join("case.jsonl");
    let replay = |expect: &str| {
        std::fs::write(&case, format!("{exported}{{\"expect\":{expect}}}\n")).unwrap();
        Command::new(BIN).arg("replay").arg(&case).output().unwrap()
    };
    let ok = replay(r#"{"state":"starting","needs":"rate_limited"}"#);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let bad = replay(r#"{"needs":null}"#);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("FAIL"));

    // Unknown logs and agents are refused.
    assert_eq!(hub.get("/api/sessions/sky/log/secrets").0, 400);
    assert_eq!(hub.get("/api/sessions/ghost/log/events").0, 404);
}

#[test]
fn the_transcript_ends_what_no_hook_ends_and_late_lines_are_stale() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let transcript = hub.dir.path().join("projects/-w/c1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    // History, dated in the future so it would not be stale: watching starts at the end, it is never applied.
    let future = iso(std::time::SystemTime::now() + Duration::from_secs(3600));
    std::fs::write(
        &transcript,
        format!("{{\"type\":\"user\",\"timestamp\":\"{future}\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t5\"}}]}}}}\n"),
    )
    .unwrap();
    let append = |text: &str| {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };

    // A plan approval: no PostToolUse comes, the transcript's tool_result ends the wait.
    hub.hook(
        "sky",
        pre_tool(
            "t5",
            "ExitPlanMode",
            json!({"plan": "1."}),
            Some(&transcript),
        ),
    );
    hub.hook("sky", permission("ExitPlanMode", json!({"plan": "1."})));
    feed.until(SECS5, |v| needs_is(v, "sky", Some("plan_approval")))
        .expect("plan approval");
    let now = iso(std::time::SystemTime::now());
    let line = format!("{{\"type\":\"user\",\"timestamp\":\"{now}\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t5\",\"content\":\"approved\"}}]}}}}\n");
    let (head, tail) = line.split_at(40);
    append(head);
    append(tail);
    let start = Instant::now();
    feed.until(SECS5, |v| needs_is(v, "sky", None))
        .expect("the transcript ended the wait");
    eprintln!(
        "transcript line -> needs-you cleared on the feed: {} ms",
        start.elapsed().as_millis()
    );
    let from_transcript: Vec<Value> = decisions(&hub, "sky")
        .into_iter()
        .filter(|d| d["source"] == "transcript")
        .collect();
    assert_eq!(
        from_transcript.len(),
        1,
        "history was not replayed, the half line was read once: {from_transcript:?}"
    );
    assert_eq!(from_transcript[0]["attention"]["change"], "cleared");

    // A line older than the latest decision arrives late: recorded, suppressed as stale.
    let old = iso(std::time::SystemTime::now() - Duration::from_secs(10));
    append(&format!("{{\"type\":\"user\",\"timestamp\":\"{old}\",\"message\":{{\"content\":\"[Request interrupted by user]\"}}}}\n"));
    wait_until(SECS5, || {
        decisions(&hub, "sky")
            .iter()
            .filter(|d| d["source"] == "transcript")
            .count()
            == 2
    });
    let last = decisions(&hub, "sky").pop().unwrap();
    assert_eq!(
        (last["outcome"].as_str(), last["reason"].as_str()),
        (Some("suppressed"), Some("stale"))
    );

    // Escape at a permission prompt fires no hook; the transcript's interrupt line ends the wait and the tool.
    hub.hook(
        "sky",
        pre_tool(
            "t6",
            "Bash",
            json!({"command": "rm -rf build"}),
            Some(&transcript),
        ),
    );
    hub.hook(
        "sky",
        permission("Bash", json!({"command": "rm -rf build"})),
    );
    feed.until(SECS5, |v| needs_is(v, "sky", Some("permission")))
        .expect("permission");
    let now = iso(std::time::SystemTime::now());
    append(&format!("{{\"type\":\"user\",\"timestamp\":\"{now}\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"[Request interrupted by user for tool use]\"}}]}}}}\n"));
    feed.until(SECS5, |v| needs_is(v, "sky", None))
        .expect("the interrupt ended the wait");
}

#[test]
fn watched_transcripts_cost_no_cpu_while_nobody_writes_them() {
    // Five agents whose hooks name real transcripts in one project folder, as Claude Code's do.
    let hub = TestHub::start();
    let mut feed = hub.feed(None);
    let folder = hub.dir.path().join("projects/-w");
    std::fs::create_dir_all(&folder).unwrap();
    let agents = ["a1", "a2", "a3", "a4", "a5"];
    for agent in agents {
        hub.add_agent(agent);
        let transcript = folder.join(format!("{agent}.jsonl"));
        std::fs::write(&transcript, "{\"type\":\"summary\"}\n").unwrap();
        let mut hook = pre_tool("t1", "Bash", json!({"command": "make"}), Some(&transcript));
        hook["session_id"] = json!(agent);
        assert_eq!(hub.hook(agent, hook).0, 200);
        hub.hook(agent, permission("Bash", json!({"command": "make"})));
        feed.until(SECS5, |v| needs_is(v, agent, Some("permission")))
            .expect("waiting for permission");
    }
    // Nothing is written: the hub is idle.
    let quiet = Duration::from_secs(3);
    let before = hub.cpu_time();
    std::thread::sleep(quiet);
    let used = hub.cpu_time() - before;
    eprintln!(
        "hub CPU over {} s with 5 watched transcripts untouched: {} ms ({:.1}% of a core)",
        quiet.as_secs(),
        used.as_millis(),
        used.as_secs_f64() / quiet.as_secs_f64() * 100.0
    );
    assert!(
        used <= Duration::from_millis(90),
        "the idle hub used {used:?} of CPU in {quiet:?}"
    );
    // And the watchers still see what is written: an interrupt in a3's transcript ends its wait alone.
    let now = iso(std::time::SystemTime::now());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(folder.join("a3.jsonl"))
        .unwrap();
    f.write_all(format!("{{\"type\":\"user\",\"timestamp\":\"{now}\",\"message\":{{\"content\":\"[Request interrupted by user]\"}}}}\n").as_bytes())
        .unwrap();
    feed.until(SECS5, |v| needs_is(v, "a3", None))
        .expect("the interrupt in a3's transcript ended its wait");
    assert_eq!(hub.session("a2")["needs"]["need"], "permission");
}
