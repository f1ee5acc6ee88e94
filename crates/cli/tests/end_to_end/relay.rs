//! An agent's hook relay (`clawmux hook relay`), the real binary between Claude Code's HTTP hooks and the
//! hub, as the hub starts it (the key, then the agent's PID, on its stdin): a permission held longer than
//! every idle limit on the way is still answered from the app, silent connections never keep a hook
//! waiting, and a tool's reports are answered before the hub has them (no message can wait), reach it in
//! Claude Code's order, and never take a message that then arrives.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{TestHub, BIN};
use serde_json::{json, Value};

/// A running relay for one agent, and the process it lives as long as.
struct RunningRelay {
    relay: Child,
    agent: Child,
    port: u16,
    key: String,
}

impl Drop for RunningRelay {
    fn drop(&mut self) {
        let _ = self.agent.kill();
        let _ = self.agent.wait();
        let _ = self.relay.wait();
    }
}

/// Starts `clawmux hook relay NAME` for `hub` with `idle_ms`, as the hub does.
fn start_relay(hub: &TestHub, agent: &str, idle_ms: u64) -> RunningRelay {
    let key = "5e".repeat(32);
    let mut relay = Command::new(BIN)
        .args(["hook", "relay", agent, "--data-dir"])
        .arg(hub.data())
        .args(["--idle-ms", &idle_ms.to_string()])
        .env_clear()
        .env("HOME", hub.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = relay.stdin.take().unwrap();
    writeln!(stdin, "{key}").unwrap();
    let mut line = String::new();
    BufReader::new(relay.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().parse().unwrap();
    let process = Command::new("sleep").arg("600").spawn().unwrap();
    writeln!(stdin, "{}", process.id()).unwrap();
    // Its stdin stays open as the hub's does: dropping it here would be no different.
    std::mem::forget(stdin);
    RunningRelay {
        relay,
        agent: process,
        port,
        key,
    }
}

/// Posts `payload` to the relay's `path` with the agent's key, as Claude Code's HTTP hook does: (status,
/// body), within `within`.
fn post(relay: &RunningRelay, path: &str, payload: &Value, within: Duration) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .timeout_global(Some(within))
        .build()
        .into();
    let mut answer = agent
        .post(format!("http://127.0.0.1:{}{path}", relay.port))
        .header("clawmux-hook-key", &relay.key)
        .header("Content-Type", "application/json")
        .send(payload.to_string())
        .unwrap();
    let status = answer.status().as_u16();
    let body = answer.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[test]
fn a_permission_is_held_past_every_idle_limit_on_its_way_and_answered_from_the_app() {
    // Every idle limit on the way is 300 ms: the relay's, and the hub's for the click's connection.
    let idle_ms = 300;
    let hub = TestHub::start_with_options(&[("CLAWMUX_IDLE_TIMEOUT_MS", "300")]);
    hub.add_agent("sky");
    let relay = start_relay(&hub, "sky", idle_ms);
    let mut feed = hub.feed(None);
    let ask = json!({"hook_event_name": "PermissionRequest", "session_id": "c1", "tool_name": "Bash",
        "tool_input": {"command": "make test"}});
    std::thread::scope(|s| {
        let hook = s.spawn(|| post(&relay, "/hook/permission", &ask, Duration::from_secs(60)));
        let open = feed
            .until(Duration::from_secs(10), |v| {
                v["type"] == "session_status" && v["needs"]["request"]["id"].is_string()
            })
            .expect("the request is shown");
        let id = open["needs"]["request"]["id"].clone();
        // Ten idle limits of the user's silence: the request is still open, its hook still waiting.
        std::thread::sleep(Duration::from_millis(10 * idle_ms));
        assert!(
            !hook.is_finished(),
            "the hook was let go: {:?}",
            hook.join()
        );
        assert_eq!(hub.session("sky")["needs"]["request"]["id"], id);
        let answer = json!({"command": "answer", "session_id": "sky", "request_id": id,
            "decision": "allow"});
        let (status, v) = hub.post("/api/command", None, &answer.to_string());
        assert_eq!(status, 200, "{v}");
        let (status, printed) = hook.join().unwrap();
        assert_eq!(status, 200);
        assert_eq!(
            printed["hookSpecificOutput"]["decision"]["behavior"], "allow",
            "{printed}"
        );
    });
}

#[test]
fn silent_connections_to_a_relay_never_keep_a_hook_waiting() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    // The relay's own default idle limit (a minute): the silent ones would hold their places that long.
    let relay = start_relay(&hub, "sky", 60_000);
    // More silent connections than the relay holds at once (64), each accepted or queued.
    let silent: Vec<TcpStream> = (0..80)
        .map(|_| TcpStream::connect(("127.0.0.1", relay.port)).unwrap())
        .collect();
    let started = Instant::now();
    let pre = json!({"hook_event_name": "PreToolUse", "session_id": "c1", "tool_name": "Read",
        "tool_use_id": "t1", "tool_input": {"file_path": "/w/a"}});
    let (status, _) = post(&relay, "/hook/tool-status", &pre, Duration::from_secs(30));
    let took = started.elapsed();
    assert_eq!(status, 200);
    // Well before a silent connection's first seconds (5 s) would free a place by themselves.
    assert!(
        took < Duration::from_secs(3),
        "the hook waited {took:?} behind silent connections"
    );
    // The silent ones that made room were closed: reading them ends.
    let closed = silent
        .into_iter()
        .filter(|c| {
            let mut c: &TcpStream = c;
            c.set_read_timeout(Some(Duration::from_millis(1))).unwrap();
            matches!(c.read(&mut [0u8; 1]), Ok(0))
        })
        .count();
    assert!(closed >= 1, "no silent connection made room");
}

/// A tool's report as Claude Code posts it.
fn report(event: &str, tool: &str, id: &str) -> Value {
    json!({"hook_event_name": event, "session_id": "c1", "tool_name": tool, "tool_use_id": id,
        "tool_input": {"pattern": "*.rs"}, "tool_response": {"filenames": []}})
}

/// Sends the hub's process `signal` (STOP or CONT).
fn signal(hub: &TestHub, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &hub.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_tools_reports_are_answered_before_the_hub_has_them_and_reach_it_in_order() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let relay = start_relay(&hub, "sky", 60_000);
    // A first report waits for the hub, which looks at the inbox, finds nothing, and tells the relay.
    let (status, _) = post(
        &relay,
        "/hook/tool-status",
        &report("PreToolUse", "Glob", "t0"),
        Duration::from_secs(30),
    );
    assert_eq!(status, 200);
    // Then, with the hub stopped, a tool's two reports are answered all the same (before it, the relay
    // waited for the hub, a second, on each). The relay hears the hub's word a moment after that first
    // answer: tried until it has.
    let mut answered = false;
    for n in 1..=20 {
        signal(&hub, "STOP");
        let quick = ureq::Agent::config_builder()
            .proxy(None)
            .timeout_global(Some(Duration::from_millis(400)))
            .build()
            .new_agent();
        let mut both = ["PreToolUse", "PostToolUse"].into_iter().map(|event| {
            quick
                .post(format!("http://127.0.0.1:{}/hook/tool-status", relay.port))
                .header("clawmux-hook-key", &relay.key)
                .send(report(event, "Grep", &format!("t{n}")).to_string())
                .ok()
                .and_then(|mut a| a.body_mut().read_to_string().ok())
        });
        let pre = both.next().flatten();
        let post = pre.as_ref().and_then(|_| both.next().flatten());
        signal(&hub, "CONT");
        if let (Some(pre), Some(post)) = (pre, post) {
            assert_eq!((pre.as_str(), post.as_str()), ("{}", "{}"));
            answered = true;
            break;
        }
    }
    assert!(answered, "no report was answered while the hub was stopped");
    // The hub has both, in Claude Code's order, once it runs.
    let timeline = || hub.run(None, &["timeline", "sky"]);
    crate::common::wait_until(Duration::from_secs(30), || {
        timeline().contains("hook:PostToolUse tool_name=Grep")
    });
    let text = timeline();
    let pre = text
        .rfind("hook:PreToolUse tool_name=Grep")
        .expect("the PreToolUse was recorded");
    let post = text.rfind("hook:PostToolUse tool_name=Grep").unwrap();
    assert!(pre < post, "recorded out of order:\n{text}");
}

#[test]
fn a_message_that_arrives_while_reports_are_answered_first_is_handed_over_once() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let relay = start_relay(&hub, "sky", 60_000);
    let mut answers = Vec::new();
    for n in 0..5 {
        answers.push(
            post(
                &relay,
                "/hook/tool-status",
                &report("PostToolUse", "Glob", &format!("a{n}")),
                Duration::from_secs(30),
            )
            .1,
        );
    }
    hub.user_message("sky", "also lint the docs");
    // Reports go on; one of them (the first the relay waits for, once the hub has told it) carries it.
    for n in 0..200 {
        let (status, answer) = post(
            &relay,
            "/hook/tool-status",
            &report("PostToolUse", "Glob", &format!("b{n}")),
            Duration::from_secs(30),
        );
        assert_eq!(status, 200);
        let carried = answer.to_string().contains("also lint the docs");
        answers.push(answer);
        if carried {
            break;
        }
    }
    let carried = answers
        .iter()
        .filter(|a| a.to_string().contains("also lint the docs"))
        .count();
    assert_eq!(carried, 1, "handed over {carried} times: {answers:?}");
    feed.until(Duration::from_secs(10), |v| {
        v["type"] == "inbox_update" && v["session_id"] == "sky" && v["pending"] == 0
    })
    .expect("the inbox is empty once the message was handed over");
}
