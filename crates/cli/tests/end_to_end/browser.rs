//! The browser's side of the hub end to end: its feed, its sends, the page it is served.

use std::time::Duration;

use crate::common::{wait_until, TestHub};
use serde_json::json;

const SEC: Duration = Duration::from_secs(1);

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
