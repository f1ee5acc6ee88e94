//! Voice through the hub with real speech: a WAV that espeak-ng speaks, posted as a recording, sent by the
//! hub to a transcription service run by the test (an OpenAI-compatible `/v1/audio/transcriptions`) that
//! checks it received the whole recording as real audio of the right length and format before it answers;
//! and the faults: no service, a service down, garbage answers, not audio, too big. Nothing is lost: the
//! recording is kept until its message is stored, and a retry stores it once.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::common::TestHub;
use serde_json::{json, Value};

/// What a WAV file's header says.
#[derive(Debug, PartialEq)]
struct Wav {
    rate: u32,
    channels: u16,
    bits: u16,
    data: u32,
}

fn wav_header(b: &[u8]) -> Option<Wav> {
    if b.len() < 44 || &b[0..4] != b"RIFF" || &b[8..12] != b"WAVE" {
        return None;
    }
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut i = 12;
    let (mut fmt, mut data) = (None, None);
    while i + 8 <= b.len() {
        let size = u32_at(i + 4) as usize;
        match &b[i..i + 4] {
            b"fmt " if u16_at(i + 8) == 1 => {
                fmt = Some((u32_at(i + 12), u16_at(i + 10), u16_at(i + 22)))
            }
            b"data" => {
                data = Some(u32_at(i + 4));
                break;
            }
            _ => {}
        }
        i += 8 + size;
    }
    let (rate, channels, bits) = fmt?;
    Some(Wav {
        rate,
        channels,
        bits,
        data: data?,
    })
}

/// Every request a service got: (path, headers, body).
pub(crate) type Requests = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;

/// A service the test runs: every request is kept, `answer` makes the response.
pub(crate) struct Service {
    pub(crate) port: u16,
    pub(crate) seen: Requests,
}

pub(crate) fn service(
    answer: impl Fn(&str, &str, &[u8]) -> (u16, &'static str, Vec<u8>) + Send + 'static,
) -> Service {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Requests = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split(' ').nth(1).unwrap_or("").to_owned();
            let mut headers = String::new();
            let mut length = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h == "\r\n" || h.is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                headers.push_str(&h);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let (status, ctype, out) = answer(&path, &headers, &body);
            log.lock().unwrap().push((path, headers, body));
            let head = format!("HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", out.len());
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&out);
        }
    });
    Service { port, seen }
}

/// The file part of a multipart body.
fn file_part(headers: &str, body: &[u8]) -> Vec<u8> {
    let boundary = headers
        .split("boundary=")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_owned();
    let text = body;
    let marker = b"filename=";
    let at = text
        .windows(marker.len())
        .position(|w| w == marker)
        .unwrap();
    let start = at
        + text[at..]
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap()
        + 4;
    let end_marker = format!("\r\n--{boundary}--");
    let end = start
        + text[start..]
            .windows(end_marker.len())
            .position(|w| w == end_marker.as_bytes())
            .unwrap();
    text[start..end].to_vec()
}

pub(crate) fn speak_wav(dir: &std::path::Path, words: &str) -> Vec<u8> {
    let file = dir.join("speech.wav");
    let out = Command::new("espeak-ng")
        .arg("-w")
        .arg(&file)
        .arg(words)
        .output()
        .expect("espeak-ng (scripts/setup installs it)");
    assert!(out.status.success());
    std::fs::read(file).unwrap()
}

fn post_audio(
    hub: &TestHub,
    agent: &str,
    recording: &str,
    ctype: &str,
    audio: &[u8],
) -> (u16, Value) {
    let mut resp = hub
        .http()
        .post(hub.url(&format!(
            "/api/sessions/{agent}/voice?recording={recording}"
        )))
        .header("Authorization", format!("Bearer {}", hub.token))
        .header("Content-Type", ctype)
        .send(audio)
        .unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_str(&resp.body_mut().read_to_string().unwrap_or_default())
            .unwrap_or(Value::Null),
    )
}

pub(crate) fn settings(hub: &TestHub, v: Value) -> (u16, Value) {
    hub.post("/api/voice/settings", None, &v.to_string())
}

#[test]
fn real_speech_is_transcribed_once_and_never_lost() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let audio = speak_wav(hub.dir.path(), "please run the tests");
    let wav = wav_header(&audio).expect("espeak-ng wrote a PCM WAV");
    let seconds = f64::from(wav.data)
        / f64::from(wav.rate * u32::from(wav.channels) * u32::from(wav.bits / 8));
    assert!((0.5..5.0).contains(&seconds), "{seconds} s of speech");
    let kept = hub.data().join("voice/rec-1.wav");

    // Nothing to hear it with yet (no service set, and the device's model not downloaded): refused, kept.
    let (status, v) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("model_not_downloaded"))
    );
    assert!(v["message"].as_str().unwrap().contains("base.en"), "{v}");
    // The user's own service chosen, but none set: says so.
    settings(&hub, json!({"speech_to_text": "service"}));
    let (status, v) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(
        (status, v["code"].as_str()),
        (409, Some("voice_not_configured"))
    );
    assert_eq!(
        std::fs::read(&kept).unwrap(),
        audio,
        "the recording is kept whole"
    );

    // A service that is down.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert_eq!(settings(&hub, json!({"transcription_url": format!("http://127.0.0.1:{closed}/v1/audio/transcriptions")})).0, 200);
    let (status, v) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(
        (status, v["code"].as_str()),
        (502, Some("voice_service_unreachable")),
        "{v}"
    );

    // A service that answers garbage.
    let junk = service(|_, _, _| (200, "text/html", b"<html>hello</html>".to_vec()));
    settings(
        &hub,
        json!({"transcription_url": format!("http://127.0.0.1:{}/v1/audio/transcriptions", junk.port)}),
    );
    let (status, v) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(
        (status, v["code"].as_str()),
        (502, Some("transcription_failed")),
        "{v}"
    );
    assert!(hub.history("sky").is_empty() && kept.exists());

    // A real service: it checks the recording before it answers.
    let expected = audio.clone();
    let whisper = service(move |path, headers, body| {
        let file = file_part(headers, body);
        let ok = path == "/v1/audio/transcriptions"
            && headers.contains("multipart/form-data")
            && String::from_utf8_lossy(body).contains("name=\"model\"\r\n\r\nwhisper-1")
            && file == expected
            && wav_header(&file).is_some_and(|w| w.data as usize == file.len() - 44 || w.data > 0);
        if ok {
            (
                200,
                "application/json",
                br#"{"text":" Please run the tests. "}"#.to_vec(),
            )
        } else {
            (
                400,
                "application/json",
                br#"{"error":"not the recording"}"#.to_vec(),
            )
        }
    });
    let (status, v) = settings(
        &hub,
        json!({"transcription_url": format!("http://127.0.0.1:{}/v1/audio/transcriptions", whisper.port), "api_key": "sk-local"}),
    );
    assert_eq!(status, 200);
    assert_eq!(v["api_key_set"], true);
    assert!(
        v.get("api_key").is_none(),
        "the key never goes back to the UI"
    );
    let (status, first) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["text"], "Please run the tests.");
    let got = whisper.seen.lock().unwrap()[0].clone();
    assert!(got
        .1
        .to_ascii_lowercase()
        .contains("authorization: bearer sk-local"));
    let received = wav_header(&file_part(&got.1, &got.2)).unwrap();
    assert_eq!(
        received, wav,
        "the service got the same audio: rate, channels, bits and length"
    );
    assert!(!kept.exists(), "stored, so the file is gone");
    // The same recording again (a retry whose answer was lost): the same message, stored once.
    let (_, again) = post_audio(&hub, "sky", "rec-1", "audio/wav", &audio);
    assert_eq!(again["id"], first["id"]);
    let history = hub.history("sky");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["voice"], true);
    // The agent hears it as a voice message.
    let wait = hub
        .clawmux(Some("sky"))
        .arg("wait")
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&wait.stdout);
    assert!(
        printed.contains("[VOICE id:") && printed.contains("from:user] Please run the tests."),
        "{printed}"
    );

    // Bad input: not audio, empty, too big, a bad recording id, an unknown agent.
    assert_eq!(post_audio(&hub, "sky", "rec-2", "text/html", b"<p>").0, 415);
    assert_eq!(post_audio(&hub, "sky", "rec-2", "audio/wav", b"").0, 400);
    let (status, v) = hub.post_declaring(
        "/api/sessions/sky/voice?recording=rec-2",
        "audio/wav",
        26 * 1024 * 1024,
    );
    assert_eq!((status, v["code"].as_str()), (413, Some("body_too_large")));
    // Over the other endpoints' 1 MiB is taken here: it reaches the service, which says it is not speech.
    let (status, v) = post_audio(&hub, "sky", "rec-2", "audio/wav", &vec![0; 2 * 1024 * 1024]);
    assert_eq!(
        (status, v["code"].as_str()),
        (502, Some("transcription_failed")),
        "{v}"
    );
    assert_eq!(
        post_audio(&hub, "sky", "..%2Fx", "audio/wav", &audio).0,
        400
    );
    assert_eq!(
        post_audio(&hub, "ghost", "rec-3", "audio/wav", &audio).0,
        404
    );
    assert_eq!(
        settings(&hub, json!({"transcription_url": "file:///etc/passwd"})).0,
        400
    );
    assert_eq!(settings(&hub, json!({"shell": "rm"})).0, 400);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(hub.data().join("voice.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}
