//! Speech from the user's speech service, or a clear error; and an utterance heard too slowly answered in
//! its time with nothing of it kept.

use crate::common::TestHub;
use crate::voice::{service, settings, speak_wav};
use serde_json::{json, Value};

#[test]
fn speech_comes_from_the_speech_service_or_a_clear_error() {
    let hub = TestHub::start();
    // The device's own voice speaks by default: not downloaded here, and said so.
    let (status, v) = hub.post("/api/speech", None, r#"{"text":"hello"}"#);
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("voice_not_downloaded"))
    );
    // The window's voices chosen: the hub has none to give.
    settings(&hub, json!({"text_to_speech": "window"}));
    let (status, v) = hub.post("/api/speech", None, r#"{"text":"hello"}"#);
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("voice_not_configured"))
    );
    // A variant is one of the voice's: two steps at most either way.
    let (status, _) = hub.post("/api/speech", None, r#"{"text":"hello","variant":3}"#);
    assert_eq!(status, 400);
    let kokoro = service(|path, _, body| {
        let req: Value = serde_json::from_slice(body).unwrap();
        if path == "/v1/audio/speech"
            && req["input"] == "Build is green."
            && req["voice"] == "af_sky"
        {
            (200, "audio/mpeg", b"ID3fake-mp3-frames".to_vec())
        } else {
            (200, "text/plain", b"no".to_vec())
        }
    });
    settings(
        &hub,
        json!({"speech_url": format!("http://127.0.0.1:{}/v1/audio/speech", kokoro.port)}),
    );
    let mut resp = hub
        .http()
        .post(hub.url("/api/speech"))
        .header("Authorization", format!("Bearer {}", hub.token))
        .header("Content-Type", "application/json")
        .send(r#"{"text":"Build is green."}"#)
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers().get("content-type").unwrap(), "audio/mpeg");
    assert_eq!(
        resp.body_mut().read_to_vec().unwrap(),
        b"ID3fake-mp3-frames"
    );
    let (status, v) = hub.post("/api/speech", None, r#"{"text":"something else"}"#);
    assert_eq!((status, v["code"].as_str()), (502, Some("speech_failed")));
    assert_eq!(hub.post("/api/speech", None, r#"{"text":""}"#).0, 400);
}

#[test]
fn an_utterance_heard_too_slowly_is_answered_in_its_time_and_nothing_of_it_is_kept() {
    // Hearing may take a second here; the user's service takes a minute (a busy machine, a slow server).
    // The connection's idle time is shorter still: a slow answer must not find it closed.
    let hub = TestHub::start_with_options(&[
        ("CLAWMUX_HEAR_WITHIN_MS", "1000"),
        ("CLAWMUX_IDLE_TIMEOUT_MS", "300"),
    ]);
    hub.add_agent("sky");
    let slow = service(|_, _, _| {
        std::thread::sleep(std::time::Duration::from_secs(60));
        (
            200,
            "application/json",
            br#"{"text":"run the tests"}"#.to_vec(),
        )
    });
    settings(
        &hub,
        json!({"speech_to_text": "service",
            "transcription_url": format!("http://127.0.0.1:{}/v1/audio/transcriptions", slow.port)}),
    );
    let audio = speak_wav(hub.dir.path(), "sky, run the tests");
    let started = std::time::Instant::now();
    let mut resp = hub
        .http()
        .post(hub.url("/api/voice/hear?recording=hf-slow&shown=sky"))
        .header("Authorization", format!("Bearer {}", hub.token))
        .header("Content-Type", "audio/wav")
        .send(&audio[..])
        .unwrap();
    let status = resp.status().as_u16();
    let v: Value = serde_json::from_str(&resp.body_mut().read_to_string().unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(
        (status, v["code"].as_str()),
        (502, Some("transcription_failed")),
        "{v}"
    );
    assert!(v["message"].as_str().unwrap().contains("busy"), "{v}");
    assert!(started.elapsed() < std::time::Duration::from_secs(9));
    // Nothing kept, nothing sent.
    crate::common::wait_until(std::time::Duration::from_secs(5), || {
        !hub.data().join("voice/hf-slow.wav").exists()
    });
    assert!(hub.history("sky").is_empty());
}
