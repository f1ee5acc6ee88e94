//! Prints the on-device voice figures with the real release hub: the model's load, and the time from a
//! recording posted (Talk released) to its words stored, for a 3 s and a 15 s clip of real speech
//! (espeak-ng), and the hub's peak memory; for each model found:
//! - tiny.en: the test model (`scripts/voice-test-model`), which hears the words;
//! - base.en-sized: a model of base.en's sizes with zero weights (`tests/voice-model/shaped_model.py`;
//!   no registry here ships base.en): the same arithmetic in the encoder, with the text ended after a
//!   token or two (a real sentence decodes ten or so more, a few ms each), so it hears nothing and the
//!   hub answers `nothing_heard` after the same work.
//!
//! Run: `cargo bench -p clawmux --bench voice` (or `scripts/bench`, which makes both models).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

// The hub benchmark's helpers; this one uses a few of them.
#[path = "hub/support.rs"]
#[allow(dead_code)]
mod support;

use support::{ms, pct, Hub};

const RUNS: usize = 5;
const SHORT: &str = "please run the tests and tell me the result";
const LONG: &str = "please run the whole test suite, then look at the failures one by one, fix the \
    flaky browser test first, and when everything is green, write a short summary of what changed and \
    what is still left for tomorrow morning, and put the notes in the usual folder so that the others \
    can read them before the meeting";

fn cache() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("clawmux-tests/whisper")
}

fn speech(dir: &std::path::Path, name: &str, words: &str) -> (Vec<u8>, f64) {
    let file = dir.join(name);
    assert!(Command::new("espeak-ng")
        .arg("-w")
        .arg(&file)
        .arg(words)
        .status()
        .unwrap()
        .success());
    let bytes = std::fs::read(&file).unwrap();
    // espeak-ng: 16-bit mono, its rate in the header.
    let rate = u32::from_le_bytes(bytes[24..28].try_into().unwrap());
    let seconds = (bytes.len() - 44) as f64 / f64::from(rate * 2);
    (bytes, seconds)
}

fn main() {
    let models = [
        (
            "tiny.en",
            cache().join("ggml-tiny.en.bin"),
            "tiny.en (the test model)",
        ),
        (
            "base.en",
            cache().join("ggml-base.en-shaped.bin"),
            "base.en-sized (zero weights)",
        ),
    ];
    for (name, file, label) in models {
        if !file.exists() {
            println!(
                "{label}: {} is missing (scripts/bench makes it)",
                file.display()
            );
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data/models")).unwrap();
        std::fs::copy(
            &file,
            dir.path().join(format!("data/models/ggml-{name}.bin")),
        )
        .unwrap();
        let (short, short_s) = speech(dir.path(), "short.wav", SHORT);
        let (long, long_s) = speech(dir.path(), "long.wav", LONG);
        let hub = Hub::start(dir);
        let http = hub.http();
        hub.add(&http, "sky");
        hub.post(
            &http,
            "/api/voice/settings",
            None,
            &json!({"speech_to_text": "device", "local_model": name}).to_string(),
        );
        let rss_before = hub.rss_mb();
        let started = Instant::now();
        hub.post(&http, "/api/command", None, r#"{"command":"warm_voice"}"#);
        let load = started.elapsed();
        println!("{label}: model load (warm_voice, when Talk is pressed) {}; hub RSS {rss_before:.0} -> {:.0} MB", ms(load), hub.rss_mb());
        for (clip, audio, seconds) in [("3 s", &short, short_s), ("15 s", &long, long_s)] {
            let mut times: Vec<Duration> = Vec::new();
            let mut heard = String::new();
            for run in 0..RUNS {
                let started = Instant::now();
                let mut resp = http
                    .post(
                        format!(
                            "http://127.0.0.1:{}/api/sessions/sky/voice?recording=r{clip}{run}",
                            hub.port
                        )
                        .replace(' ', ""),
                    )
                    .header("Authorization", format!("Bearer {}", hub.token))
                    .header("Content-Type", "audio/wav")
                    .send(audio.as_slice())
                    .unwrap();
                times.push(started.elapsed());
                let body = resp.body_mut().read_to_string().unwrap_or_default();
                heard = serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| {
                        v["text"]
                            .as_str()
                            .map(str::to_owned)
                            .or_else(|| v["code"].as_str().map(str::to_owned))
                    })
                    .unwrap_or(body);
            }
            println!(
                "  {clip} clip ({seconds:.1} s of speech): posted to stored p50 {}, max {}; heard: {heard}",
                ms(pct(&mut times, 50)),
                ms(pct(&mut times, 100)),
            );
        }
        if name == "tiny.en" {
            hands_free(&hub, &http, dir_path(&hub));
        }
        println!("  hub peak memory (VmHWM): {:.0} MB", hub.peak_mb());
    }
}

fn dir_path(hub: &Hub) -> PathBuf {
    hub.dir.path().to_owned()
}

/// Hands-free through the hub (`POST /api/voice/hear`): an utterance addressed to an agent, from the end
/// of speech (the clip posted whole) to the words stored for that agent; and "who needs me?" to the
/// answer's words (what the window then speaks), with nobody waiting and, as the user meets it, while an
/// agent asks a permission (the recognizer's prompt then holds the answers too).
fn hands_free(hub: &Hub, http: &ureq::Agent, dir: PathBuf) {
    hub.add(http, "rain");
    utterances(
        hub,
        http,
        &dir,
        &[
            (
                "an utterance for an agent (\"Rain, run the tests.\")",
                "Rain, run the tests.",
            ),
            ("\"Who needs me?\" to its answer", "Who needs me?"),
        ],
    );
    // rain asks a permission: its hook waits on the hub's port until it is answered below.
    let asking = {
        let (hub_port, token) = (hub.port, hub.token.clone());
        std::thread::spawn(move || {
            let ask = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
                "tool_input": {"command": "cargo test"}});
            ureq::post(format!("http://127.0.0.1:{hub_port}/api/hooks/permission"))
                .header("Authorization", format!("Bearer {token}"))
                .header("ClawMux-Session", "rain")
                .header("Content-Type", "application/json")
                .send(ask.to_string())
                .map(|_| ())
        })
    };
    let request = loop {
        let sessions = hub.get(http, "/api/sessions");
        let id = sessions
            .as_array()
            .and_then(|s| s.iter().find(|a| a["session_id"] == "rain"))
            .and_then(|a| a["needs"]["request"]["id"].as_str().map(str::to_owned));
        if let Some(id) = id {
            break id;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    utterances(
        hub,
        http,
        &dir,
        &[(
            "\"Who needs me?\" to its answer, rain asking a permission",
            "Who needs me?",
        )],
    );
    let answer = json!({"command": "answer", "session_id": "rain", "request_id": request,
        "decision": "deny"});
    hub.post(http, "/api/command", None, &answer.to_string());
    let _ = asking.join();
}

/// Each of `said` (what it is, the words) posted as hands-free posts it, `RUNS` times: the time to the
/// hub's answer.
fn utterances(hub: &Hub, http: &ureq::Agent, dir: &std::path::Path, said: &[(&str, &str)]) {
    for &(what, words) in said {
        let (audio, seconds) = speech(dir, "hands-free.wav", words);
        let mut times: Vec<Duration> = Vec::new();
        let mut reply = String::new();
        for run in 0..RUNS {
            let started = Instant::now();
            let mut resp = http
                .post(format!(
                    "http://127.0.0.1:{}/api/voice/hear?recording=hf{run}{}{}&shown=sky",
                    hub.port,
                    words.len(),
                    what.len()
                ))
                .header("Authorization", format!("Bearer {}", hub.token))
                .header("Content-Type", "audio/wav")
                .send(audio.as_slice())
                .unwrap();
            times.push(started.elapsed());
            reply = resp.body_mut().read_to_string().unwrap_or_default();
        }
        println!(
            "  hands-free, {what} ({seconds:.1} s of speech): p50 {}, max {}; {reply}",
            ms(pct(&mut times, 50)),
            ms(pct(&mut times, 100)),
        );
    }
}
