//! A paired phone against a real hub (`docs/SECURITY.md`, "Phones"): nothing until phones are on; a
//! pairing code good once; a phone's token reaching what the window does to agents and nothing else,
//! through a tunnel's address (a loopback name at another port) and from the page it loaded there only;
//! revoked or phones off, shut out at once, its open feed closed.

use std::time::Duration;

use crate::common::raw_http::{raw, request};
use crate::common::TestHub;
use serde_json::{json, Value};
use tungstenite::client::IntoClientRequest;

/// Sends `method path` with `body`, the token `token` and these `Host` and `Origin`: the status and
/// the JSON answer.
fn call(
    hub: &TestHub,
    (method, path, body): (&str, &str, Value),
    token: Option<&str>,
    host: &str,
    origin: Option<&str>,
) -> (u16, Value) {
    let mut headers = vec![
        ("Host", host.to_owned()),
        ("Content-Type", "application/json".to_owned()),
    ];
    if let Some(t) = token {
        headers.push(("Authorization", format!("Bearer {t}")));
    }
    if let Some(o) = origin {
        headers.push(("Origin", o.to_owned()));
    }
    let (status, text) = raw(
        hub.port,
        &request(method, path, &headers, &body.to_string()),
    );
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

fn command(hub: &TestHub, command: Value) -> Value {
    let (status, answer) = hub.post("/api/command", None, &command.to_string());
    assert_eq!(status, 200, "{command}: {answer}");
    answer
}

#[test]
fn a_paired_phone_reaches_only_what_the_window_does_to_agents_until_it_is_revoked() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let own = format!("127.0.0.1:{}", hub.port);
    // The end of an `ssh -L 8022:127.0.0.1:PORT` on the phone: its own port, its own page.
    let tunnel = "127.0.0.1:8022";
    let page = Some("http://127.0.0.1:8022");

    // Off: no pairing, and a tunnel's address is not the hub's.
    let pair = |code: &str| {
        let body = json!({"code": code, "name": "Pixel 8"});
        call(&hub, ("POST", "/api/phone/pair", body), None, tunnel, page)
    };
    assert_eq!(pair("00").0, 403, "a tunnel's Host while phones are off");
    let (status, refused) = call(
        &hub,
        ("POST", "/api/phone/pair", json!({"code": "00"})),
        None,
        &own,
        None,
    );
    assert_eq!(
        (status, refused["code"].as_str()),
        (403, Some("phones_off")),
        "{refused}"
    );

    command(&hub, json!({"command": "set_phone", "on": true}));
    let code = command(&hub, json!({"command": "phone_pair"}))["code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        pair("0123456789abcdef0123456789abcdef").0,
        401,
        "a wrong code"
    );
    let foreign = call(
        &hub,
        ("POST", "/api/phone/pair", json!({"code": code})),
        None,
        tunnel,
        Some("http://evil.example"),
    );
    assert_eq!(foreign.0, 403, "a pairing from another page");
    let (status, paired) = pair(&code);
    assert_eq!(status, 200, "{paired}");
    assert_eq!(pair(&code).0, 401, "a code works once");
    let token = paired["token"].as_str().unwrap().to_owned();
    let phone = paired["phone"]["id"].as_str().unwrap().to_owned();
    assert_ne!(token, hub.token);

    // What the window does to agents: read, send, answer, interrupt.
    let as_phone = |route: (&str, &str, Value)| call(&hub, route, Some(&token), tunnel, page);
    assert_eq!(as_phone(("GET", "/api/sessions", json!(null))).0, 200);
    let (status, sent) = as_phone((
        "POST",
        "/api/sessions/sky/messages",
        json!({"text": "from the phone"}),
    ));
    assert_eq!(status, 200, "{sent}");
    assert_eq!(hub.history("sky").last().unwrap()["text"], "from the phone");
    assert_eq!(
        as_phone(("POST", "/api/command", json!({"command": "sessions"}))).0,
        200
    );
    // Nothing that changes the hub or runs a program, and nothing its token could not do here.
    for route in [
        ("POST", "/api/spawn", json!({"name": "x"})),
        ("POST", "/api/agents", json!({"name": "x"})),
        ("POST", "/api/sessions/sky/terminate", json!({})),
        ("GET", "/metrics", json!(null)),
        ("GET", "/ws/terminal/sky", json!(null)),
        ("GET", "/api/sessions/sky/log/events", json!(null)),
        (
            "POST",
            "/api/command",
            json!({"command": "set_phone", "on": true}),
        ),
        ("POST", "/api/command", json!({"command": "phone_pair"})),
        (
            "POST",
            "/api/command",
            json!({"command": "machine_add", "name": "m", "url": "ssh://h"}),
        ),
        (
            "POST",
            "/api/command",
            json!({"command": "spawn", "name": "x"}),
        ),
        (
            "POST",
            "/api/command",
            json!({"command": "on_machine", "machine": "m", "forward": {"command": "spawn", "name": "x"}}),
        ),
    ] {
        let what = format!("{} {} {}", route.0, route.1, route.2);
        let (status, answer) = as_phone(route);
        assert_eq!(
            (status, answer["code"].as_str()),
            (403, Some("not_for_phones")),
            "{what}: {answer}"
        );
    }
    // From any other page, even with its token; the desktop's token is not good from the phone's page.
    let other = call(
        &hub,
        ("GET", "/api/sessions", json!(null)),
        Some(&token),
        tunnel,
        Some("http://evil.example"),
    );
    assert_eq!(other.0, 403);
    let desktop = call(
        &hub,
        ("GET", "/api/sessions", json!(null)),
        Some(&hub.token),
        tunnel,
        page,
    );
    assert_eq!(desktop.0, 403);

    // Its feed, through the tunnel's address; revoked, it is closed and the token refused.
    let mut req = format!("ws://127.0.0.1:{}/ws?token={token}", hub.port)
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("Host", tunnel.parse().unwrap());
    req.headers_mut()
        .insert("Origin", "http://127.0.0.1:8022".parse().unwrap());
    let (mut feed, _) = tungstenite::connect(req).unwrap();
    assert!(feed.read().unwrap().to_string().contains("session_list"));
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = feed.get_ref() {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    }
    let listed = command(&hub, json!({"command": "phone_revoke", "phone": phone}));
    assert!(listed["phones"][0]["revoked_at"].is_number());
    let closed = loop {
        match feed.read() {
            Ok(tungstenite::Message::Close(_)) | Err(_) => break true,
            Ok(m) if m.to_string().contains("\"ping\"") => continue,
            Ok(_) => continue,
        }
    };
    assert!(closed, "the revoked phone's feed is closed");
    assert_eq!(
        as_phone(("GET", "/api/sessions", json!(null))).0,
        401,
        "revoked"
    );

    // Phones off shuts out every phone, paired or new.
    command(&hub, json!({"command": "set_phone", "on": true}));
    let second = command(&hub, json!({"command": "phone_pair"}))["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, paired) = pair(&second);
    let token = paired["token"].as_str().unwrap().to_owned();
    let ok = call(
        &hub,
        ("GET", "/api/sessions", json!(null)),
        Some(&token),
        tunnel,
        page,
    );
    assert_eq!(ok.0, 200);
    command(&hub, json!({"command": "set_phone", "on": false}));
    let off = call(
        &hub,
        ("GET", "/api/sessions", json!(null)),
        Some(&token),
        &own,
        None,
    );
    assert_eq!(off.0, 401, "phones off");
    // Only the hash of a phone's token is kept.
    for file in ["clawmux.db", "clawmux.db-wal"] {
        let db = std::fs::read(hub.data().join(file)).unwrap_or_default();
        assert!(
            !db.windows(token.len()).any(|w| w == token.as_bytes()),
            "a phone's token in {file}"
        );
    }
}
