//! Every bad input an agent or a client can send gets a clear error, stores nothing, and the hub keeps serving.

use crate::common::TestHub;
use serde_json::{json, Value};

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
    // A client still sending its body is not cut off, and reads the refusal.
    for _ in 0..5 {
        let (status, v) = post_whole(&hub, "/api/hooks/tool-status", 3 * 1024 * 1024);
        assert_eq!((status, v["code"].as_str()), (413, Some("body_too_large")));
    }
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
fn names_cannot_leave_the_data_folder() {
    let hub = TestHub::start();
    let listing = |dir: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let top = listing(hub.dir.path());
    let data = listing(&hub.data());
    for name in [
        "../evil",
        "a/b",
        ".",
        "..",
        "/etc",
        "x\u{0}y",
        "sky\n",
        "",
        "user",
        &"n".repeat(33),
        "ü",
    ] {
        let body = json!({ "name": name }).to_string();
        let (status, v) = hub.post("/api/agents", None, &body);
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("bad_agent_name")),
            "{name:?}"
        );
        let (status, v) = hub.post(
            "/api/spawn",
            None,
            &json!({ "name": name, "demo": true }).to_string(),
        );
        assert_eq!(
            (status, v["code"].as_str()),
            (400, Some("bad_agent_name")),
            "spawn {name:?}"
        );
    }
    for path in [
        "/api/history/..%2F..%2Fetc%2Fpasswd",
        "/api/sessions/..%2Fx/log/events",
        "/ui/..%2F..%2FCargo.toml",
        "/ui/../../Cargo.toml",
    ] {
        let (status, _) = hub.get(path);
        assert!(status == 400 || status == 404, "{path}: {status}");
    }
    assert_eq!(listing(hub.dir.path()), top);
    assert_eq!(listing(&hub.data()), data);
}

/// The hook endpoints, each with how it names its agent: the header, or (observed sessions) the payload.
fn hook_post(hub: &TestHub, path: &str, payload: &str) -> (u16, Value) {
    if path == "/api/observe" {
        hub.post(path, None, payload)
    } else {
        hub.post(path, Some("sky"), payload)
    }
}

#[test]
fn every_hook_endpoint_records_what_it_cannot_use_answers_it_alike_and_moves_nothing() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let (s, _) = hub.post(
        "/api/observe",
        None,
        r#"{"hook_event_name":"SessionStart","session_id":"c0ffee","cwd":"/tmp/webapp","source":"startup"}"#,
    );
    assert_eq!(s, 200);
    let decisions = |agent: &str| {
        hub.get_text(&format!("/api/sessions/{agent}/log/decisions"))
            .lines()
            .count()
    };
    for (path, agent, unknown_answer) in [
        ("/api/hooks/tool-status", "sky", json!({})),
        ("/api/hooks/permission", "sky", json!({})),
        (
            "/api/hooks/stop",
            "sky",
            json!({"block": false, "reason": ""}),
        ),
        ("/api/observe", "webapp-c0ffee", json!({})),
    ] {
        let before = (hub.session(agent), decisions(agent));
        let with_id =
            |fields: &str| format!(r#"{{"session_id":"c0ffee","cwd":"/tmp/webapp",{fields}}}"#);
        // A kind with no rule (a newer Claude Code's): answered as if nothing happened.
        let unknown = with_id(r#""hook_event_name":"TeammateIdle""#);
        assert_eq!(
            hook_post(&hub, path, &unknown),
            (200, unknown_answer),
            "{path}"
        );
        // A known kind without what it needs.
        let malformed = with_id(r#""hook_event_name":"PreToolUse""#);
        let (s, v) = hook_post(&hub, path, &malformed);
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("malformed_event")),
            "{path} {v}"
        );
        let mut recorded = 2;
        if path != "/api/observe" {
            // Not JSON: only the header names the agent (an observed session is named by its payload).
            let (s, v) = hook_post(&hub, path, "not json");
            assert_eq!(
                (s, v["code"].as_str()),
                (400, Some("malformed_json")),
                "{path} {v}"
            );
            recorded += 1;
        }
        let after = (hub.session(agent), decisions(agent));
        assert_eq!(after.0, before.0, "{path}: nothing moved");
        assert_eq!(after.1, before.1 + recorded, "{path}: each one recorded");
    }
    // Nothing was held open for the user, and nothing registered.
    assert_eq!(hub.session("sky")["needs"], Value::Null);
    let names: Vec<Value> = hub
        .get("/api/sessions")
        .1
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].clone())
        .collect();
    assert_eq!(names, [json!("sky"), json!("webapp-c0ffee")]);
}

/// Claude Code hands hooks everything (a Write's whole content, a command's whole output): a payload over
/// the hub's megabyte reaches it as its shape with previews, through the real `clawmux hook` commands.
#[test]
fn a_hook_payload_over_a_megabyte_reaches_the_app_as_its_shape_and_a_preview() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let mut feed = hub.feed(None);
    let input = json!({"file_path": "/w/big.txt", "content": "x".repeat(1_200_000)});
    let pre = json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_w",
        "tool_input": input});
    let (code, err) = hub.command_hook(Some("sky"), &["hook", "tool-status"], &pre.to_string());
    assert_eq!((code, err.as_str()), (0, ""));
    feed.until(std::time::Duration::from_secs(5), |v| {
        v["type"] == "session_status" && v["activity"] == "Writing /w/big.txt"
    })
    .expect("the tool call is shown");
    let ask =
        json!({"hook_event_name": "PermissionRequest", "tool_name": "Write", "tool_input": input});
    std::thread::scope(|s| {
        let hook = s.spawn(|| {
            hub.command_hook_output(Some("sky"), &["hook", "permission"], &ask.to_string())
        });
        let open = feed
            .until(std::time::Duration::from_secs(5), |v| {
                v["type"] == "session_status" && v["needs"]["request"]["id"].is_string()
            })
            .expect("the request card has what it needs");
        let preview = open["needs"]["request"]["tool_input"]["content"]
            .as_str()
            .unwrap();
        assert!(preview.starts_with("xxxx"), "{preview:.40}");
        assert!(
            preview.ends_with(" more bytes not sent to ClawMux]"),
            "{}",
            &preview[preview.len() - 60..]
        );
        assert_eq!(
            open["needs"]["request"]["tool_input"]["file_path"],
            "/w/big.txt"
        );
        let answer = json!({"command": "answer", "session_id": "sky",
            "request_id": open["needs"]["request"]["id"], "decision": "allow"});
        let (status, v) = hub.post("/api/command", None, &answer.to_string());
        assert_eq!(status, 200, "{v}");
        let out = hook.join().unwrap();
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            printed["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
    });
    // A result of two megabytes ends the call as any other does.
    let post = json!({"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": "toolu_w",
        "tool_input": input, "tool_response": {"stdout": "y".repeat(2_000_000)}});
    let (code, err) = hub.command_hook(Some("sky"), &["hook", "tool-status"], &post.to_string());
    assert_eq!((code, err.as_str()), (0, ""));
    let events = hub.get_text("/api/sessions/sky/log/events");
    let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(
        last["kind"], "hook:PostToolUse",
        "taken as the call's end, not as malformed: {last:.300}"
    );
    let decisions = hub.get_text("/api/sessions/sky/log/decisions");
    let last: Value = serde_json::from_str(decisions.lines().last().unwrap()).unwrap();
    assert_eq!(last["trigger"], "hook:PostToolUse", "{last}");
}

/// Posts a body of `length` bytes over the hub's private socket, as a hook does, written whole while the
/// answer may already be coming, then reads the answer: (status, body).
fn post_whole(hub: &TestHub, path: &str, length: usize) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut socket = std::os::unix::net::UnixStream::connect(hub.data().join("hub.sock")).unwrap();
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nClawMux-Session: sky\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    let mut writer = socket.try_clone().unwrap();
    let sending = std::thread::spawn(move || {
        writer.write_all(head.as_bytes())?;
        writer.write_all(&vec![b' '; length])
    });
    let mut answer = Vec::new();
    let read = socket.read_to_end(&mut answer);
    // A client that sends its whole body before it reads (as curl does) must not find the connection
    // closed under it: the hub reads what it refused to its end before closing.
    sending
        .join()
        .unwrap()
        .unwrap_or_else(|e| panic!("the hub closed while the body was being sent: {e}"));
    read.unwrap_or_else(|e| panic!("the answer was lost: {e}"));
    crate::common::status_and_body(&answer)
}
