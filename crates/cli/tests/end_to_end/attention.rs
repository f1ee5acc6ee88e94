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

fn pre_tool(id: &str, tool: &str, input: Value, transcript: Option<&Path>) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "c1", "tool_name": tool, "tool_input": input,
           "tool_use_id": id, "transcript_path": transcript})
}

fn permission(tool: &str, input: Value) -> Value {
    json!({"hook_event_name": "PermissionRequest", "session_id": "c1", "tool_name": tool, "tool_input": input})
}

fn decisions(hub: &TestHub, agent: &str) -> Vec<Value> {
    hub.get_text(&format!("/api/sessions/{agent}/log/decisions"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn iso(at: std::time::SystemTime) -> String {
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

#[test]
fn replay_checks_every_case_of_the_corpus_and_timeline_interleaves() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let out = Command::new(BIN).arg("replay").arg(&path).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let missing = Command::new(BIN)
        .args(["replay", "/nonexistent.jsonl"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));

    // A usable check: what does not reproduce, or holds nothing to replay, or is too large, fails.
    let cases = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str| {
        let path = cases.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = Command::new(BIN).arg("replay").arg(&path).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The recorded decision differs only in "needs you": the DIFFERS line says how.
    let recorded = r#"{"trigger":"wait:connect","source":"wait","at":1,"from":"starting","to":"idle","activity":null,"outcome":"moved","detail":null,"attention":{"change":"cleared","need":"permission"}}"#;
    let (code, out, err) = run(
        "needs.jsonl",
        &format!(
            "{{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:connect\",\"decision\":{recorded}}}\n"
        ),
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("DIFFERS recorded starting -> idle, needs you ended (permission), replayed starting -> idle\n"),
        "{out}"
    );
    assert!(err.contains("it does not reproduce"), "{err}");
    let (code, _, err) = run("empty.jsonl", "");
    assert!(
        code == Some(1) && err.contains("no event to replay"),
        "{err}"
    );
    let (code, _, err) = run(
        "renamed.jsonl",
        "{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:conect\"}\n",
    );
    assert!(
        code == Some(1) && err.contains("line 1: `wait:conect` is not a kind of event"),
        "{err}"
    );
    // 2 GB (a sparse file): refused before anything is read.
    let huge = cases.path().join("huge.jsonl");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = Command::new(BIN).arg("replay").arg(&huge).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1) && err.contains("2048 MB, more than the 256 MB"),
        "{err}"
    );

    let hub = TestHub::start();
    hub.add_agent("sky");
    let transcript = hub.dir.path().join("t/c1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let now = iso(std::time::SystemTime::now());
    std::fs::write(&transcript, format!("{{\"type\":\"assistant\",\"timestamp\":\"{now}\",\"message\":{{\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\"}}]}}}}\n")).unwrap();
    hub.hook(
        "sky",
        pre_tool("t1", "Bash", json!({"command": "ls"}), Some(&transcript)),
    );
    hub.hook("sky", permission("Bash", json!({"command": "ls"})));
    let out = hub
        .clawmux(None)
        .args(["timeline", "sky"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "[hook]",
        "hook:PermissionRequest tool_name=Bash",
        "[decision]",
        "NEEDS YOU: permission",
        "[transcript]",
        "tool_use Bash t1",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
    let later = hub
        .clawmux(None)
        .args(["timeline", "sky", "--from", "2999-01-01T00:00:00Z"])
        .output()
        .unwrap();
    assert!(later.status.success());
    assert!(later.stdout.is_empty());
    let bad = hub
        .clawmux(None)
        .args(["timeline", "sky", "--from", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// `clawmux explain` and `clawmux status` print what the hub's typed answers say: the indicator's word and
/// state, what set it, the need and what ends it, the latest decisions; a hostile tool input is made
/// printable before the terminal shows it.
#[test]
fn explain_and_status_print_the_hubs_typed_answers() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let (status, _) = hub.hook(
        "sky",
        permission(
            "Bash",
            json!({"command": "rm -rf build\u{1b}]0;owned\u{7}"}),
        ),
    );
    assert_eq!(status, 200);
    let said = hub.run(None, &["explain", "sky"]);
    assert!(said.starts_with("sky: Needs you ("), "{said}");
    assert!(said.contains("  needs you: Permission: "), "{said}");
    assert!(said.contains("    ends with:\n      - "), "{said}");
    assert!(
        said.contains("  latest decisions (newest first):\n    "),
        "{said}"
    );
    assert!(said.contains(" -> "), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}'),
        "{said:?}"
    );
    let status = hub.run(None, &["status"]);
    let row = status.lines().find(|l| l.starts_with("sky ")).unwrap();
    assert!(row.split_whitespace().nth(1).is_some(), "{status}");
    assert!(!status.contains('\u{1b}'), "{status:?}");
}
