//! The agent protocol end to end: the real hub, the real `clawmux` binary as agent and hook.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{start_wait, wait_until, TestHub};
use serde_json::{json, Value};

const SEC: Duration = Duration::from_secs(1);

fn pre_tool(tool: &str, input: Value) -> Value {
    json!({"hook_event_name":"PreToolUse","session_id":"c1","cwd":"/x","transcript_path":"/x/t.jsonl",
           "tool_name":tool,"tool_input":input,"tool_use_id":"toolu_1"})
}

#[test]
fn wait_prints_the_message_with_its_id_and_sender_then_exits() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    let pid_file = hub.work_dir("sky").join(".waiting");
    assert_eq!(
        std::fs::read_to_string(&pid_file).unwrap(),
        wait.id().to_string()
    );
    let id = hub.user_message("sky", "hello\nsecond line");
    feed.state("sky", "processing", 2 * SEC);
    let status = wait.wait().unwrap();
    let mut out = String::new();
    wait.stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(status.success());
    assert_eq!(out, format!("[MSG id:{id} from:user] hello\nsecond line\n"));
    assert!(!pid_file.exists(), ".waiting must be removed at exit");

    // A voice message reads as VOICE.
    let wait = start_wait(&hub, &mut feed, "sky");
    let (_, v) = hub.post(
        "/api/sessions/sky/messages",
        None,
        r#"{"text":"spoken","voice":true}"#,
    );
    let out = wait.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "[VOICE id:{} from:user] spoken\n",
            v["id"].as_str().unwrap()
        )
    );
}

#[test]
fn messages_sent_while_nobody_waits_are_delivered_at_the_next_wait() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let a = hub.user_message("sky", "first");
    let b = hub.user_message("sky", "second");
    let out = hub.clawmux(Some("sky")).arg("wait").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{a} from:user] first\n[MSG id:{b} from:user] second\n")
    );
}

#[test]
fn a_killed_wait_is_noticed_within_two_seconds_and_its_messages_stay() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    wait.kill().unwrap();
    wait.wait().unwrap();
    let took = feed.state("sky", "processing", 2 * SEC);
    eprintln!("killed wait noticed after {took:?}");
    // Nothing was handed to the dead waiter: the next wait gets the message.
    let id = hub.user_message("sky", "after the kill");
    let out = hub.clawmux(Some("sky")).arg("wait").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] after the kill\n")
    );
}

#[test]
fn a_silent_half_open_wait_is_noticed_within_two_seconds() {
    use tungstenite::client::IntoClientRequest;
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut req = format!("ws://127.0.0.1:{}/ws/wait/sky", hub.port)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert(
        "Authorization",
        format!("Bearer {}", hub.token).parse().unwrap(),
    );
    // Connects, then never reads again: it answers no ping, like a peer behind a dead network.
    let (_silent, _) = tungstenite::connect(req).unwrap();
    feed.state("sky", "idle", 2 * SEC);
    let took = feed.state("sky", "processing", Duration::from_millis(2500));
    assert!(took <= 2 * SEC, "took {took:?}");
}

#[test]
fn wait_for_an_unknown_agent_fails_clearly() {
    let hub = TestHub::start();
    std::fs::create_dir_all(hub.work_dir("ghost")).unwrap();
    let out = hub.clawmux(Some("ghost")).arg("wait").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown agent"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn tool_hooks_hand_the_inbox_over_once_and_the_stop_hook_insists_on_an_answer() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let id = hub.user_message("sky", "please look");
    let sentinel = hub.work_dir("sky").join(".hook_delivered");

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
    assert!(sentinel.exists());
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
    assert!(!sentinel.exists());
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
                std::path::Path::new(common::BIN)
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
    let transcript = std::fs::read_to_string(
        std::path::Path::new(hub.session("demo")["work_dir"].as_str().unwrap())
            .join(".demo-transcript.jsonl"),
    )
    .unwrap();
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

#[test]
fn bad_input_gets_a_clear_error_stores_nothing_and_the_hub_keeps_serving() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let http = hub.http();
    let url = hub.url("/api/sessions");
    // No token, a wrong token, a foreign Host, a foreign Origin.
    let cases: Vec<(
        ureq::RequestBuilder<ureq::typestate::WithoutBody>,
        u16,
        &str,
    )> = vec![
        (http.get(&url), 401, "unauthorized"),
        (
            http.get(&url).header("Authorization", "Bearer nope"),
            401,
            "unauthorized",
        ),
        (
            http.get(&url)
                .header("Authorization", format!("Bearer {}", hub.token))
                .header("Host", "evil.example"),
            403,
            "bad_host",
        ),
        (
            http.get(&url)
                .header("Authorization", format!("Bearer {}", hub.token))
                .header("Origin", "http://evil.example"),
            403,
            "bad_origin",
        ),
    ];
    for (req, status, code) in cases {
        let mut resp = req.call().unwrap();
        assert_eq!(resp.status().as_u16(), status);
        let v: Value = serde_json::from_str(&resp.body_mut().read_to_string().unwrap()).unwrap();
        assert_eq!(v["code"], code);
        assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let before = hub.history("sky").len();
    // Over 1 MiB: refused from its declared length, before it is read.
    let (status, v) = hub.post_declaring(
        "/api/sessions/sky/messages",
        "application/json",
        1024 * 1024 + 10,
    );
    assert_eq!((status, v["code"].as_str()), (413, Some("body_too_large")));
    for (path, session, body, status, code) in [
        (
            "/api/sessions/sky/messages",
            None,
            "{not json",
            400,
            "malformed_json",
        ),
        (
            "/api/sessions/sky/messages",
            None,
            r#"{"text":"   "}"#,
            400,
            "empty_message",
        ),
        (
            "/api/sessions/ghost/messages",
            None,
            r#"{"text":"x"}"#,
            404,
            "unknown_agent",
        ),
        (
            "/api/hooks/tool-status",
            Some("sky"),
            "not json",
            400,
            "malformed_json",
        ),
        (
            "/api/hooks/tool-status",
            Some("ghost"),
            r#"{"hook_event_name":"Stop"}"#,
            404,
            "unknown_agent",
        ),
        (
            "/api/agents",
            None,
            r#"{"name":"../x"}"#,
            400,
            "bad_agent_name",
        ),
        (
            "/api/agents",
            None,
            r#"{"name":"ok","work_dir":"relative/path"}"#,
            400,
            "bad_work_dir",
        ),
        (
            "/api/send",
            None,
            r#"{"to":"user","text":"x"}"#,
            400,
            "missing_session",
        ),
    ] {
        let (s, v) = hub.post(path, session, body);
        assert_eq!(
            (s, v["code"].as_str().unwrap()),
            (status, code),
            "{path} {v}"
        );
    }
    assert_eq!(hub.history("sky").len(), before);
    assert_eq!(hub.session("sky")["state"], "starting");
    // A well-formed event with no rule is stored and answered {} (Claude must never see an error for it);
    // a malformed one is stored, answered with a typed error, and changes nothing.
    assert_eq!(
        hub.hook("sky", json!({"hook_event_name":"TeammateIdle"})),
        (200, json!({}))
    );
    let (s, v) = hub.hook("sky", json!({"hook_event_name":"PreToolUse"}));
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "malformed_event"));
    assert_eq!(hub.session("sky")["activity"], "");
    // The hub still serves.
    assert_eq!(hub.get("/api/health").0, 200);
}

#[test]
fn a_browser_socket_from_a_foreign_origin_is_refused() {
    use tungstenite::client::IntoClientRequest;
    let hub = TestHub::start();
    let mut req = format!("ws://127.0.0.1:{}/ws?token={}", hub.port, hub.token)
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("Origin", "http://evil.example".parse().unwrap());
    match tungstenite::connect(req) {
        Err(tungstenite::Error::Http(resp)) => assert_eq!(resp.status().as_u16(), 403),
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(hub.data().join("token"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let log = std::fs::read_to_string(hub.dir.path().join("hub.log")).unwrap();
    assert!(!log.contains(&hub.token), "the token must never be logged");
}

#[test]
fn the_browser_feed_replays_exactly_the_gap_from_its_cursor() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let ids: Vec<String> = (0..30)
        .map(|i| hub.user_message("sky", &format!("m{i}")))
        .collect();
    let mut feed = hub.feed(Some(&ids[9]));
    let got: Vec<String> = feed
        .drain(SEC)
        .iter()
        .filter(|v| v["type"] == "user_text")
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(got, ids[10..]);
    // Then live, with no duplicate.
    let live = hub.user_message("sky", "live");
    let v = feed.until(2 * SEC, |v| v["type"] == "user_text").unwrap();
    assert_eq!(v["id"], live.as_str());
    // An unknown cursor says so instead of replaying nothing.
    let mut feed = hub.feed(Some("msg-00000000"));
    assert!(feed.until(2 * SEC, |v| v["type"] == "reset").is_some());
    // History pages: an unknown cursor is an error, not an empty page.
    let (s, v) = hub.get("/api/history/sky?after=msg-00000000");
    assert_eq!((s, v["code"].as_str().unwrap()), (400, "unknown_cursor"));
    let (_, v) = hub.get(&format!("/api/history/sky?after={}&limit=5", ids[0]));
    assert_eq!(v["messages"].as_array().unwrap().len(), 5);
    let (_, v) = hub.get(&format!("/api/history/sky?before={}&limit=5", ids[10]));
    assert_eq!(v["messages"][0]["id"], ids[5].as_str());
}

#[test]
fn browser_text_messages_are_stored_once_per_client_id() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let frame =
        json!({"type":"text","session_id":"sky","text":"from the browser","client_id":"c-1"})
            .to_string();
    feed.ws
        .send(tungstenite::Message::Text(frame.clone().into()))
        .unwrap();
    feed.ws
        .send(tungstenite::Message::Text(frame.into()))
        .unwrap();
    assert!(feed.until(2 * SEC, |v| v["type"] == "user_text").is_some());
    wait_until(2 * SEC, || hub.history("sky").len() == 1);
    feed.ws
        .send(tungstenite::Message::Text(
            r#"{"type":"text","session_id":"ghost","text":"x"}"#.into(),
        ))
        .unwrap();
    let err = feed.until(2 * SEC, |v| v["type"] == "error").unwrap();
    assert_eq!(err["code"], "unknown_agent");
    assert_eq!(hub.history("sky").len(), 1);
}

#[test]
fn an_agent_that_reenters_wait_at_once_is_shown_idle_every_time() {
    // The agent loop: the wait prints its message and exits, and the next `clawmux wait` starts at once.
    // If the old wait's disconnect were recorded after the new wait's connect, the agent would show
    // PROCESSING while it waits. There is no event to await when the state never left IDLE, so each cycle
    // checks the state itself, within a bound.
    let hub = TestHub::start();
    hub.add_agent("sky");
    let spawn = || {
        hub.clawmux(Some("sky"))
            .arg("wait")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut wait = spawn();
    for i in 0..40 {
        wait_until(2 * SEC, || hub.session("sky")["state"] == "idle");
        hub.user_message("sky", &format!("m{i}"));
        let mut out = String::new();
        wait.stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert!(out.contains(&format!("] m{i}")), "{out}");
        wait.wait().unwrap();
        wait = spawn();
    }
    wait_until(2 * SEC, || hub.session("sky")["state"] == "idle");
    wait.kill().unwrap();
    wait.wait().unwrap();
}

#[test]
fn the_web_ui_is_served_without_the_token_and_nothing_outside_it() {
    let hub = TestHub::start();
    let http = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(0)
        .build()
        .new_agent();
    let resp = http.get(hub.url("/")).call().unwrap();
    assert!(resp.status().is_redirection());
    assert_eq!(resp.headers()["location"], "/ui/index.html");
    let mut page = http.get(hub.url("/ui/index.html")).call().unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(page
        .body_mut()
        .read_to_string()
        .unwrap()
        .contains("js/main.js"));
    for escape in [
        "/ui/..%2f..%2fCargo.toml",
        "/ui/../Cargo.toml",
        "/ui/%2fetc%2fpasswd",
        "/ui/css/..%2f..%2f..%2fCargo.toml",
    ] {
        let status = http.get(hub.url(escape)).call().unwrap().status().as_u16();
        assert!(status == 404 || status == 400, "{escape}: {status}");
    }
    // The API itself still wants the token.
    assert_eq!(
        http.get(hub.url("/api/sessions"))
            .call()
            .unwrap()
            .status()
            .as_u16(),
        401
    );
}

#[test]
fn a_terminated_wait_cleans_up_and_the_agent_leaves_idle() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let mut wait = start_wait(&hub, &mut feed, "sky");
    let pid_file = hub.work_dir("sky").join(".waiting");
    assert!(pid_file.exists());
    let term = std::process::Command::new("kill")
        .args(["-TERM", &wait.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = wait.wait().unwrap();
    let mut err = String::new();
    wait.stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("interrupted") && !err.contains("connection lost"),
        "{err}"
    );
    assert!(!pid_file.exists(), ".waiting must be removed on SIGTERM");
    feed.state("sky", "processing", 2 * SEC);
}

/// Whether process `pid` has ended (gone, or a zombie nobody reaped yet).
fn ended(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

#[test]
fn a_wait_ends_by_itself_when_nobody_is_left_and_removes_only_its_own_pid_file() {
    let mut hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let waiting = hub.work_dir("sky").join(".waiting");

    // Its `.waiting` now names a newer wait: the old one leaves it alone on its way out.
    let mut old = start_wait(&hub, &mut feed, "sky");
    assert_eq!(
        std::fs::read_to_string(&waiting).unwrap(),
        old.id().to_string()
    );
    std::fs::write(&waiting, "4194304").unwrap();
    std::process::Command::new("kill")
        .arg(old.id().to_string())
        .status()
        .unwrap();
    old.wait().unwrap();
    assert_eq!(std::fs::read_to_string(&waiting).unwrap(), "4194304");
    std::fs::remove_file(&waiting).unwrap();

    // The shell that ran it ends (Claude's Bash tool, or Claude itself): the orphaned wait ends too.
    let mut shell = std::process::Command::new("sh");
    shell
        .envs(
            hub.clawmux(Some("sky"))
                .get_envs()
                .filter_map(|(k, v)| Some((k, v?))),
        )
        .current_dir(hub.work_dir("sky"))
        .args([
            "-c",
            &format!("'{}' wait & echo $!; exec sleep 60", common::BIN),
        ])
        .stdout(Stdio::piped());
    let mut shell = shell.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(shell.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let orphan: u32 = line.trim().parse().unwrap();
    feed.state("sky", "idle", 5 * SEC);
    shell.kill().unwrap();
    shell.wait().unwrap();
    let start = Instant::now();
    wait_until(5 * SEC, || ended(orphan));
    eprintln!(
        "an orphaned wait ended {} ms after its shell",
        start.elapsed().as_millis()
    );

    // The hub is gone for good (its data folder removed): a reconnecting wait gives up.
    let gone = start_wait(&hub, &mut feed, "sky");
    hub.kill();
    std::fs::remove_dir_all(hub.data()).unwrap();
    let out = gone.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("data folder"), "{err}");
}

#[test]
fn a_wait_whose_bash_call_returned_takes_no_message_and_ends() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let wait_call =
        json!({"tool_name": "Bash", "tool_input": {"command": "clawmux wait"}, "session_id": "c1"});
    let mut pre = wait_call.clone();
    pre["hook_event_name"] = json!("PreToolUse");
    hub.hook("sky", pre);
    let backgrounded = start_wait(&hub, &mut feed, "sky");
    // Claude Code's Bash tool reached its timeout and moved the wait to the background: the call returns.
    let mut post = wait_call;
    post["hook_event_name"] = json!("PostToolUse");
    post["tool_response"] = json!({"stdout": "", "backgroundTaskId": "b1"});
    assert_eq!(hub.hook("sky", post).0, 200);
    let out = backgrounded.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the backgrounded wait ended");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Bash call"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "it printed no message");
    feed.state("sky", "processing", 2 * SEC);
    // A message sent now waits for the next wait, in the foreground.
    let id = hub.user_message("sky", "are you there?");
    let next = start_wait(&hub, &mut feed, "sky");
    let out = next.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[MSG id:{id} from:user] are you there?\n")
    );
}

#[test]
fn a_wait_that_names_no_hubs_folder_says_so_at_once() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let start = Instant::now();
    let out = hub
        .clawmux(Some("sky"))
        .env("CLAWMUX_HOME", hub.dir.path().join("no-such-folder"))
        .arg("wait")
        .output()
        .unwrap();
    assert!(start.elapsed() < 2 * SEC, "it did not keep trying");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no hub has a data folder at") && err.contains("CLAWMUX_HOME"),
        "{err}"
    );
}
