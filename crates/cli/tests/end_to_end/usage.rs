//! What agents cost and the account's limits, end to end: the real `clawmux-statusline` (and `clawmux
//! statusline`, which settings written before it name) run as Claude Code runs a status-line command (the payload on stdin, its stdout the line), against a real hub; what the
//! window hears; `clawmux usage`; a restart.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{output_with, wait_until, TestHub};
use serde_json::{json, Value};

const SECS5: Duration = Duration::from_secs(5);

/// A payload as Claude Code 2.1.330 sends it, with known figures.
fn payload(percent: u8, cost: f64, five_hour: Option<(u8, i64)>) -> Value {
    let mut v = json!({
        "session_id": "c1", "cwd": "/w", "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "cost": {"total_cost_usd": cost, "total_duration_ms": 6424},
        "context_window": {"total_input_tokens": 96_000, "total_output_tokens": 4_000, "context_window_size": 200_000,
            "current_usage": {"input_tokens": 16_000, "output_tokens": 10, "cache_creation_input_tokens": 0,
                              "cache_read_input_tokens": 80_000},
            "used_percentage": percent, "remaining_percentage": 100_u8.saturating_sub(percent)},
        "exceeds_200k_tokens": false
    });
    if let Some((p, resets)) = five_hour {
        v["rate_limits"] = json!({"five_hour": {"used_percentage": p, "resets_at": resets}});
    }
    v
}

/// Runs the bridge as `agent` (chaining `then`): what it printed, and how long it took.
fn bridge(hub: &TestHub, agent: &str, then: Option<&str>, stdin: &str) -> (String, Duration) {
    let mut cmd = hub.status_line(Some(agent));
    if let Some(then) = then {
        cmd.args(["--then", then]);
    }
    let started = Instant::now();
    let out = output_with(cmd, stdin);
    let took = started.elapsed();
    assert!(out.status.success(), "the bridge always exits 0");
    (String::from_utf8_lossy(&out.stdout).into_owned(), took)
}

#[test]
fn the_bridge_hands_the_figures_to_the_hub_and_never_blanks_the_line() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);

    let (line, _) = bridge(&hub, "sky", None, &payload(48, 1.2, None).to_string());
    assert_eq!(line, "Opus 5.5 · 48% · 96k/200k · $1.20\n");
    let ev = feed
        .until(SECS5, |v| v["type"] == "usage")
        .expect("the window hears the figures");
    assert_eq!(ev["usage"]["session_id"], "sky");
    assert_eq!(ev["usage"]["line"], "48% · 96k/200k · $1.20");
    assert_eq!(
        ev["usage"]["context"],
        json!({"used": 96_000, "size": 200_000, "percent": 48})
    );
    assert_eq!(ev["usage"]["tokens"]["cache_read"], 80_000);
    assert_eq!(hub.session("sky")["usage"]["cost_usd"], 1.2);

    // Out of range or not JSON: a line is still printed, and no figure moves.
    for bad in [
        payload(180, 9.0, None).to_string(),
        "{\"cost\": ".to_owned(),
        String::new(),
    ] {
        let (line, _) = bridge(&hub, "sky", None, &bad);
        assert_eq!(line, "ClawMux\n", "{bad}");
    }
    assert_eq!(
        hub.session("sky")["usage"]["line"],
        "48% · 96k/200k · $1.20"
    );

    // The user's own command keeps its line, and the hub still hears the payload.
    let mine = "cat > /dev/null; echo \"my line: $USER_LINE_TAG\"";
    let (line, _) = bridge(&hub, "sky", Some(mine), &payload(50, 1.3, None).to_string());
    assert_eq!(line, "my line: \n");
    feed.until(SECS5, |v| {
        v["type"] == "usage" && v["usage"]["context"]["percent"] == 50
    })
    .expect("chained, the figures still reach the hub");

    // A chained command that fails, prints nothing or hangs: its last good line, and on time.
    for broken in ["exit 3", "cat > /dev/null", "sleep 7.25"] {
        let (line, took) = bridge(
            &hub,
            "sky",
            Some(broken),
            &payload(51, 1.4, None).to_string(),
        );
        assert_eq!(line, "my line: \n", "{broken}");
        assert!(took < Duration::from_secs(2), "{broken}: {took:?}");
    }
    // The hung one was ended with its group, not left behind.
    wait_until(SECS5, || {
        !Command::new("pgrep")
            .args(["-f", "sleep 7.25"])
            .status()
            .unwrap()
            .success()
    });

    // Past the context threshold (80 % by default) the user is told once that auto-compaction nears.
    let notes = |hub: &TestHub| {
        hub.history("sky")
            .iter()
            .filter(|m| {
                m["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("compacts it by itself"))
            })
            .count()
    };
    bridge(&hub, "sky", None, &payload(85, 1.5, None).to_string());
    wait_until(SECS5, || notes(&hub) == 1);
    assert!(hub.history("sky").iter().any(|m| m["text"]
        .as_str()
        .is_some_and(|t| t.contains("context is 85% full"))));
    bridge(&hub, "sky", None, &payload(90, 1.6, None).to_string());
    feed.until(SECS5, |v| {
        v["type"] == "usage" && v["usage"]["context"]["percent"] == 90
    })
    .expect("the figures past the threshold");
    assert_eq!(notes(&hub), 1, "told once");

    // `clawmux statusline`, which settings written before the program name, runs the same bridge.
    let out = hub.command_hook_output(
        Some("sky"),
        &["statusline"],
        &payload(91, 1.7, None).to_string(),
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Opus 5.5 · 91% · 96k/200k · $1.70\n"
    );
    feed.until(SECS5, |v| {
        v["type"] == "usage" && v["usage"]["context"]["percent"] == 91
    })
    .expect("the figures of `clawmux statusline`");

    // Outside an agent (no hub to tell), the line is still printed.
    let out = output_with(hub.status_line(None), &payload(5, 0.0, None).to_string());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Opus 5.5 · 5% · 96k/200k · $0.00\n"
    );
}

#[test]
fn a_late_payload_is_read_whole_and_a_first_run_is_not_cut() {
    use std::io::Write;
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    // The user's command prints what it was given, after a slow start (its first run: no line to show
    // instead yet).
    let mine = "sleep 0.3; echo \"mine: $(head -c 29)\"";
    let mut child = hub
        .status_line(Some("sky"))
        .args(["--then", mine])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Claude Code's writer is late on a loaded machine: the payload comes 200 ms after the start.
    std::thread::sleep(Duration::from_millis(200));
    stdin
        .write_all(payload(33, 0.33, None).to_string().as_bytes())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "mine: {\"session_id\":\"c1\",\"cwd\":\"/w\"\n"
    );
    feed.until(SECS5, |v| {
        v["type"] == "usage" && v["usage"]["context"]["percent"] == 33
    })
    .expect("the late payload reaches the hub");
    // With a good line known, a hung command is cut at once and that line shown.
    let (line, took) = bridge(
        &hub,
        "sky",
        Some("sleep 9.5"),
        &payload(34, 0.34, None).to_string(),
    );
    assert_eq!(line, "mine: {\"session_id\":\"c1\",\"cwd\":\"/w\"\n");
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[test]
fn rate_limited_until_the_reset_and_figures_kept_across_a_restart() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("moon");
    let mut feed = hub.feed(None);
    let resets = 4_102_000_000; // seconds, far ahead
    bridge(
        &hub,
        "sky",
        None,
        &payload(60, 2.0, Some((100, resets))).to_string(),
    );
    let ev = feed
        .until(SECS5, |v| v["type"] == "limits")
        .expect("the account's limits");
    assert_eq!(ev["account"]["limits"][0]["window"], "five_hour");
    assert_eq!(ev["account"]["limits"][0]["percent"], 100.0);

    // Claude Code stops moon at the limit: moon is held until the window resets.
    hub.hook(
        "moon",
        json!({"hook_event_name": "StopFailure", "error": "rate_limit", "error_details": "429"}),
    );
    let held = feed
        .until(SECS5, |v| {
            v["type"] == "usage" && v["usage"]["session_id"] == "moon"
        })
        .expect("moon is rate-limited");
    assert_eq!(held["usage"]["limited"]["until"], resets * 1000);
    let words = hub.run(None, &["usage"]);
    assert!(
        words.contains("moon: ?") && words.contains("rate-limited until"),
        "{words}"
    );
    assert!(words.contains("five_hour limit: 100% used"), "{words}");
    // `clawmux status` and the API say it is held, not that it works.
    let status = hub.run(None, &["status"]);
    let moon = status.lines().find(|l| l.starts_with("moon ")).unwrap();
    assert!(
        moon.contains("rate-limited") && moon.contains("Rate-limited: 429"),
        "{status}"
    );
    assert!(!moon.contains("processing"), "{status}");
    assert_eq!(hub.session("moon")["activity"], "Rate-limited: 429");
    // Another failure is an error, not a limit.
    hub.hook(
        "sky",
        json!({"hook_event_name": "StopFailure", "error": "overloaded"}),
    );
    // moon works again: no longer held.
    hub.hook("moon", json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}));
    feed.until(SECS5, |v| {
        v["type"] == "usage"
            && v["usage"]["session_id"] == "moon"
            && v["usage"]["limited"].is_null()
    })
    .expect("working again ends the hold");
    assert!(hub.session("sky")["usage"]["limited"].is_null());

    hub.crash_and_restart();
    let json: Value = serde_json::from_str(&hub.run(None, &["usage", "--json"])).unwrap();
    assert_eq!(json["agents"][0]["session_id"], "sky");
    assert_eq!(json["agents"][0]["line"], "60% · 96k/200k · $2.00");
    assert_eq!(json["account"]["limits"][0]["percent"], 100.0);
    assert_eq!(json["days"][0]["cost"], 2.0, "{json}");
    assert_eq!(hub.session("sky")["usage"]["cost_usd"], 2.0);
}

#[test]
fn the_transcripts_answers_give_the_tokens_once_each_with_or_without_a_status_line() {
    use std::io::Write;
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let transcript = hub.dir.path().join("projects/-w/c1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let answer = |id: &str, input: u64, output: u64| {
        format!(
            "{{\"type\":\"assistant\",\"message\":{{\"id\":\"{id}\",\"model\":\"claude-opus-5-5\",\"content\":[],\
             \"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_read_input_tokens\":0,\
             \"cache_creation_input_tokens\":0}}}}}}\n"
        )
    };
    // History is never counted: watching starts at the file's end.
    std::fs::write(&transcript, answer("msg_old", 900_000, 9)).unwrap();
    let append = |text: &str| {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    hub.hook(
        "sky",
        json!({"hook_event_name": "PreToolUse", "session_id": "c1", "tool_name": "Read", "tool_input": {},
               "tool_use_id": "t0", "transcript_path": transcript}),
    );
    // Once the watch has started (an answer written before it would be history too), each answer counts
    // once, however many lines it is written as.
    let mut first = None;
    for n in 0..50 {
        append(&answer(&format!("msg_probe{n}"), 1000, 10));
        if let Some(ev) = feed.until(Duration::from_millis(300), |v| v["type"] == "usage") {
            first = Some(ev);
            break;
        }
    }
    let first = first.expect("the transcript's answers reach the figures");
    let base = first["usage"]["tokens"]["input"].as_u64().unwrap();
    assert_eq!(
        base % 1000,
        0,
        "only whole probe answers, no history: {first}"
    );
    assert!(base < 900_000, "history was not counted: {first}");
    append(&answer("msg_a", 20_000, 500));
    append(&answer("msg_a", 20_000, 500));
    append(&answer("msg_b", 5_000, 100));
    let ev = feed
        .until(SECS5, |v| {
            v["type"] == "usage" && v["usage"]["tokens"]["input"] == base + 25_000
        })
        .expect("msg_a once and msg_b");
    assert_eq!(ev["usage"]["model"], "claude-opus-5-5");
    assert!(
        ev["usage"]["line"].as_str().unwrap().starts_with("in "),
        "{ev}"
    );
    // A status line's totals are the latest response's only: the transcript stays the one count of
    // tokens, and the status line gives the context and the cost beside it.
    let (line, _) = bridge(&hub, "sky", None, &payload(48, 1.2, None).to_string());
    assert_eq!(line, "Opus 5.5 · 48% · 96k/200k · $1.20\n");
    let ev = feed
        .until(SECS5, |v| {
            v["type"] == "usage" && v["usage"]["line"] == "48% · 96k/200k · $1.20"
        })
        .expect("the status line's figures");
    assert_eq!(ev["usage"]["tokens"]["input"], base + 25_000, "{ev}");
    append(&answer("msg_c", 7_000, 70));
    let ev = feed
        .until(SECS5, |v| {
            v["type"] == "usage" && v["usage"]["tokens"]["input"] == base + 32_000
        })
        .expect("msg_c counted once beside the status line");
    assert_eq!(ev["usage"]["line"], "48% · 96k/200k · $1.20");
    let json: Value = serde_json::from_str(&hub.run(None, &["usage", "--json"])).unwrap();
    assert_eq!(
        json["days"][0]["input"],
        base + 32_000,
        "the history says the same: {json}"
    );
}
