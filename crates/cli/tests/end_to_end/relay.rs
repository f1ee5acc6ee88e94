//! An agent's hook relay (`clawmux hook relay`), the real binary between Claude Code's HTTP hooks and the
//! hub, as the hub starts it (the key, then the agent's PID, on its stdin): a permission held longer than
//! every idle limit on the way is still answered from the app, and silent connections never keep a hook
//! waiting.

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
