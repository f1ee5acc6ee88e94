//! Speech to text on the device, through the hub: a real recording (espeak-ng's speech, as a WAV at its
//! own rate) posted to the hub, heard by whisper.cpp with a real model (tiny.en, converted by
//! `scripts/voice-test-model`), printed by the agent's `clawmux wait`; a model not downloaded yet keeps
//! the recording for a retry; and the model's download through the hub, told on the UI feed, refusing a
//! file that is not the pinned one.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::common::{start_wait, TestHub};
use serde_json::json;

/// How long a test waits for speech to be heard: the hub's own bound on an utterance (30 s) and more,
/// so a machine whose cores are busy fails the hub, not the test's patience.
const HEARING: Duration = Duration::from_secs(60);

fn test_model() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    let path = cache.join("clawmux-tests/whisper/ggml-tiny.en.bin");
    assert!(
        path.exists(),
        "the test model {} is missing: run scripts/voice-test-model",
        path.display()
    );
    path
}

fn speech(hub: &TestHub, words: &str) -> Vec<u8> {
    let file = hub.dir.path().join("speech.wav");
    assert!(Command::new("espeak-ng")
        .arg("-w")
        .arg(&file)
        .arg(words)
        .status()
        .unwrap()
        .success());
    std::fs::read(file).unwrap()
}

fn post_audio(hub: &TestHub, recording: &str, audio: &[u8]) -> (u16, serde_json::Value) {
    post_wav(
        hub,
        &format!("/api/sessions/sky/voice?recording={recording}"),
        audio,
    )
}

/// Posts a WAV recording to `path`, waiting as long as hearing it may take: (status, answer).
fn post_wav(hub: &TestHub, path: &str, audio: &[u8]) -> (u16, serde_json::Value) {
    let mut resp = hub
        .http_within(HEARING)
        .post(hub.url(path))
        .header("Authorization", format!("Bearer {}", hub.token))
        .header("Content-Type", "audio/wav")
        .send(audio)
        .unwrap();
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&body).unwrap_or_default())
}

#[test]
fn real_speech_is_heard_on_the_device_and_reaches_the_agent_once() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let audio = speech(&hub, "please run the tests and tell me the result");
    let (status, _) = hub.post(
        "/api/voice/settings",
        None,
        &json!({"speech_to_text": "device", "local_model": "tiny.en"}).to_string(),
    );
    assert_eq!(status, 200);

    // The model is not here yet: refused with what to do, the recording kept.
    let (status, v) = post_audio(&hub, "rec-1", &audio);
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("model_not_downloaded")),
        "{v}"
    );
    assert!(hub.data().join("voice/rec-1.wav").exists());

    // Now it is (as a finished download leaves it): the retry is heard, and the agent gets the words.
    std::fs::create_dir_all(hub.data().join("models")).unwrap();
    std::fs::copy(test_model(), hub.data().join("models/ggml-tiny.en.bin")).unwrap();
    let mut feed = hub.feed(None);
    let wait = start_wait(&hub, &mut feed, "sky");
    let (warm, _) = hub.post("/api/command", None, r#"{"command":"warm_voice"}"#);
    assert_eq!(warm, 200);
    let started = std::time::Instant::now();
    let (status, v) = post_audio(&hub, "rec-1", &audio);
    let took = started.elapsed();
    assert_eq!(status, 200, "{v}");
    let text = v["text"].as_str().unwrap().to_lowercase();
    assert!(
        text.contains("run the tests") && text.contains("result"),
        "heard: {text}"
    );
    let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
    assert!(printed.starts_with("[VOICE id:msg-"), "{printed}");
    assert!(
        printed.to_lowercase().contains("run the tests"),
        "{printed}"
    );
    // Sent again (a retry after a lost answer): stored once.
    let (status, again) = post_audio(&hub, "rec-1", &audio);
    assert_eq!((status, again["id"].clone()), (200, v["id"].clone()));
    assert_eq!(
        hub.history("sky")
            .iter()
            .filter(|m| m["voice"] == true)
            .count(),
        1
    );
    assert!(
        !hub.data().join("voice/rec-1.wav").exists(),
        "the kept file goes once stored"
    );
    eprintln!("3 s of speech, tiny.en, warm, posted to stored: {took:?}");
}

/// A server that sends `body` for any request, whole.
#[test]
fn a_hands_free_utterance_without_the_model_says_why_and_keeps_nothing() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let audio = speech(&hub, "sky, run the tests");
    let (status, _) = hub.post(
        "/api/voice/settings",
        None,
        &json!({"speech_to_text": "device", "local_model": "tiny.en"}).to_string(),
    );
    assert_eq!(status, 200);
    let mut resp = hub
        .http_within(HEARING)
        .post(hub.url("/api/voice/hear?recording=hf-1&shown=sky"))
        .header("Authorization", format!("Bearer {}", hub.token))
        .header("Content-Type", "audio/wav")
        .send(&audio[..])
        .unwrap();
    let status = resp.status().as_u16();
    let v: serde_json::Value =
        serde_json::from_str(&resp.body_mut().read_to_string().unwrap_or_default())
            .unwrap_or_default();
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("model_not_downloaded")),
        "{v}"
    );
    // Hands-free offers no retry (the user says it again): what was said is not kept on disk.
    assert!(!hub.data().join("voice/hf-1.wav").exists());
    assert!(hub.history("sky").is_empty());
}

fn serve(body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.write_all(&body));
        }
    });
    url
}

#[test]
fn a_download_through_the_hub_is_told_on_the_feed_and_a_wrong_file_is_refused() {
    // The test model is a conversion, not whisper.cpp's own tiny.en: made the pinned size, its hash is
    // still not the pinned one, so the hub's download must refuse it and leave no model behind.
    let mut body = std::fs::read(test_model()).unwrap();
    body.resize(77_704_715, 0);
    let url = serve(body);
    let hub = TestHub::start_with_options(&[("CLAWMUX_MODELS_URL", &url)]);
    let mut feed = hub.feed(None);
    let (status, v) = hub.post(
        "/api/command",
        None,
        r#"{"command":"download_model","model":"tiny.en"}"#,
    );
    assert_eq!(status, 200, "{v}");
    let (status, v) = hub.post(
        "/api/command",
        None,
        r#"{"command":"download_model","model":"base.en"}"#,
    );
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("download_in_progress"))
    );
    let end = feed
        .until(Duration::from_secs(60), |e| {
            e["type"] == "model_download" && e["state"] != "running"
        })
        .expect("the download ended");
    assert_eq!(end["state"], "failed", "{end}");
    assert!(
        end["message"].as_str().unwrap().contains("not the model"),
        "{end}"
    );
    assert!(!hub.data().join("models/ggml-tiny.en.bin").exists());
    let (_, models) = hub.post("/api/command", None, r#"{"command":"voice_models"}"#);
    let tiny = &models["models"][0];
    assert_eq!(
        (tiny["model"].as_str(), tiny["downloaded"].as_bool()),
        (Some("tiny.en"), Some(false))
    );
    assert_eq!(tiny["size"], 77_704_715);
    let (status, v) = hub.post("/api/command", None, r#"{"command":"cancel_download"}"#);
    assert_eq!((status, v["code"].as_str()), (409, Some("not_pending")));

    // The same from a terminal: `clawmux voice download` follows the hub's download and says how it ended.
    let out = hub
        .clawmux(None)
        .args(["voice", "download", "tiny.en"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("tiny.en is not downloaded") && said.contains("not the model"),
        "{said}"
    );
    let listed = hub.run(None, &["voice", "models"]);
    assert!(
        listed.contains("tiny.en") && listed.contains("not downloaded"),
        "{listed}"
    );
    assert!(
        listed.contains("base.en") && listed.contains("141 MiB"),
        "{listed}"
    );
}

/// Posts one hands-free utterance, as the page does: (status, what the app made of it).
fn hear(hub: &TestHub, recording: &str, said: &str, audio: &[u8]) -> (u16, serde_json::Value) {
    let path = format!(
        "/api/voice/hear?recording={recording}&shown=sky&said={}",
        urlencoding(said)
    );
    post_wav(hub, &path, audio)
}

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_apps_own_question_naming_a_path_heard_back_is_never_a_message() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    hub.add_agent("rain");
    std::fs::create_dir_all(hub.data().join("models")).unwrap();
    std::fs::copy(test_model(), hub.data().join("models/ggml-tiny.en.bin")).unwrap();
    let (status, _) = hub.post(
        "/api/voice/settings",
        None,
        &json!({"speech_to_text": "device", "local_model": "tiny.en"}).to_string(),
    );
    assert_eq!(status, 200);
    // What the page speaks, heard back through the speakers by the microphone.
    let questions = [
        "sky asks to run echo held out > /tmp/clawmux-h3/harmless.txt. Allow, or deny?",
        "rain asks to write notes.md. Allow, or deny?",
        "sky asks to run ls -la /home/user/projects/clawmux/crates. Allow, or deny?",
    ];
    for (i, said) in questions.iter().enumerate() {
        let audio = speech(&hub, said);
        let (status, v) = hear(&hub, &format!("echo-{i}"), said, &audio);
        assert_eq!(status, 200, "{v}");
        println!("heard back: {:?} -> {}", v["heard"], v["done"]);
        assert!(
            ["nothing", "asked_again"].contains(&v["done"].as_str().unwrap()),
            "{said}: {v}"
        );
    }
    assert!(hub.history("sky").is_empty() && hub.history("rain").is_empty());
}
