//! Prints how well hands-free answers are heard on the device, and that nothing else is ever heard as an
//! approval: a corpus of answers and of phrases that must never approve, spoken by espeak-ng in two voices,
//! each clean, under white noise (10 dB below the speech) and over the app's own question heard back
//! through the speakers (12 dB below), transcribed by whisper.cpp with and without the words expected
//! as its prompt, then judged by the closed grammar (`core::spoken::judge`). Also: noise and silence
//! alone, the time to transcribe an answer, and its real-time factor.
//!
//! Run: `cargo bench -p clawmux-voice --bench hands_free` (after `scripts/voice-test-model`). Only the
//! smallest model (tiny.en) is measured here: no registry ships the default, base.en.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use clawmux_core::spoken::{approval::Why, confirmed, danger, judge, Judged};
use clawmux_voice::local::{decode_wav, speech_seconds, to_16k, Engine};
use serde_json::json;

/// What the recognizer is told to expect while a permission is open (as the hub builds it).
const PROMPT: &str = "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But.";
const PROMPT_PUSH: &str =
    "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But. Allow git push.";
/// The app's own question, heard back.
const APP: &str = "sky asks to run npm test. Allow, or deny?";

fn model() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("clawmux-tests/whisper/ggml-tiny.en.bin")
}

/// `words` spoken by espeak-ng in `voice`, at 16 kHz.
fn speak(dir: &Path, voice: &str, words: &str) -> Vec<f32> {
    let file = dir.join("clip.wav");
    assert!(Command::new("espeak-ng")
        .args(["-v", voice, "-w"])
        .arg(&file)
        .arg(words)
        .status()
        .unwrap()
        .success());
    let (samples, rate) = decode_wav(&std::fs::read(&file).unwrap()).unwrap();
    to_16k(&samples, rate).unwrap()
}

fn speech_len(x: &[f32]) -> f32 {
    speech_seconds(x, 16_000)
}

fn rms(x: &[f32]) -> f32 {
    (x.iter().map(|s| s * s).sum::<f32>() / x.len().max(1) as f32).sqrt()
}

/// A reproducible white noise.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as f32 / (1u64 << 31) as f32) - 1.0
        })
        .collect()
}

/// `speech` with `other` under it, `db` below the speech's level (looped or cut to the speech's length).
fn mix(speech: &[f32], other: &[f32], db: f32) -> Vec<f32> {
    let gain = rms(speech) / rms(other).max(1e-9) * 10f32.powf(-db / 20.0);
    speech
        .iter()
        .enumerate()
        .map(|(i, s)| (s + other[i % other.len()] * gain).clamp(-1.0, 1.0))
        .collect()
}

fn name(j: &Judged) -> String {
    match j {
        Judged::Allow => "allow".into(),
        Judged::AllowAlways => "always allow".into(),
        Judged::Deny => "deny".into(),
        Judged::Skip => "skip".into(),
        Judged::Again(Why::SayThePhrase(_)) => "asked for the phrase".into(),
        Judged::Again(_) => "asked again".into(),
    }
}

fn approves(j: &Judged) -> bool {
    matches!(j, Judged::Allow | Judged::AllowAlways)
}

/// What the hub does with an utterance while a request is open: heard with the prompt, and an approval
/// checked against the plain words and the speech's length. (plain words, judged, prompted words); the
/// time to the judged answer in `times`.
fn hear(
    engine: &Engine,
    audio: &[f32],
    prompt: &str,
    danger: Option<&clawmux_core::spoken::Danger>,
    times: &mut Vec<Duration>,
) -> (String, Judged, String) {
    let plain = engine.transcribe(audio, None).unwrap_or_default();
    let started = Instant::now();
    let prompted = engine.transcribe(audio, Some(prompt)).unwrap_or_default();
    let mut judged = judge(&prompted, danger);
    if approves(&judged) {
        // The hub transcribes the plain words only now, for an approval; they are at hand here.
        let again = engine.transcribe(audio, None).unwrap_or_default();
        if !confirmed(&prompted, Some(&again), Some(speech_len(audio))) {
            judged = Judged::Again(Why::Unsure);
        }
    }
    times.push(started.elapsed());
    (plain, judged, prompted)
}

fn main() {
    let model = model();
    if !model.exists() {
        println!(
            "skipped: {} is missing (scripts/voice-test-model makes it)",
            model.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::load(&model, 2).unwrap();
    let push = danger("Bash", &json!({"command": "git push origin main"}));
    // (the words, what they must be taken as, whether the command is a push)
    let answers: &[(&str, Judged, bool)] = &[
        ("Allow.", Judged::Allow, false),
        ("Always allow.", Judged::AllowAlways, false),
        ("Deny.", Judged::Deny, false),
        ("Skip.", Judged::Skip, false),
        ("Allow git push.", Judged::Allow, true),
    ];
    let never: &[&str] = &[
        "Okay, wait, don't run that.",
        "Allow... no, deny.",
        "I would not allow that.",
        "Allow or deny?",
        "Allow, but not the push.",
        "Don't allow it.",
    ];
    let app = speak(dir.path(), "en+f3", APP);
    let voices = ["en", "en-us+m3"];
    let mut right = [[0usize; 2]; 3];
    let mut total = [0usize; 3];
    let mut false_approvals = [0usize; 2];
    let mut refusals = 0;
    let mut times: Vec<Duration> = Vec::new();
    let mut speech_seconds_total = 0.0f64;
    let conditions = ["clean", "noise -10 dB", "app's speech -12 dB"];
    println!("speech length | heard without prompt | with prompt -> judged (an approval checked against the plain words and the length)");
    for voice in voices {
        for (words, expected, is_push) in answers {
            let clip = speak(dir.path(), voice, words);
            let variants = [
                clip.clone(),
                mix(&clip, &noise(clip.len(), 7), 10.0),
                mix(&clip, &app, 12.0),
            ];
            for (c, audio) in variants.iter().enumerate() {
                total[c] += 1;
                let danger = if *is_push { push.as_ref() } else { None };
                let mut line = format!(
                    "  {voice:9} {:20} {:20} {:.2}s",
                    words,
                    conditions[c],
                    speech_len(audio)
                );
                let prompt = if *is_push { PROMPT_PUSH } else { PROMPT };
                let (plain, judged, prompted) = hear(&engine, audio, prompt, danger, &mut times);
                speech_seconds_total += audio.len() as f64 / 16_000.0;
                if &judge(&plain, danger) == expected {
                    right[c][0] += 1;
                }
                if &judged == expected {
                    right[c][1] += 1;
                }
                line.push_str(&format!(" | {plain:?} | {prompted:?} -> {}", name(&judged)));
                println!("{line}");
            }
        }
        for words in never {
            let clip = speak(dir.path(), voice, words);
            for audio in [clip.clone(), mix(&clip, &noise(clip.len(), 11), 10.0)] {
                refusals += 1;
                let mut line = format!("  {voice:9} {words:30} {:.2}s", speech_len(&audio));
                let (plain, judged, prompted) =
                    hear(&engine, &audio, PROMPT, None, &mut Vec::new());
                if approves(&judge(&plain, None)) {
                    false_approvals[0] += 1;
                }
                if approves(&judged) {
                    false_approvals[1] += 1;
                }
                line.push_str(&format!(" | {plain:?} | {prompted:?} -> {}", name(&judged)));
                println!("{line}");
            }
        }
    }
    // Nobody speaking: noise and silence, with the prompt.
    let mut idle_approvals = 0;
    for (what, audio) in [
        (
            "white noise",
            noise(32_000, 3)
                .iter()
                .map(|s| s * 0.05)
                .collect::<Vec<_>>(),
        ),
        ("silence", vec![0.0; 32_000]),
        ("the app's question alone", app.clone()),
    ] {
        refusals += 1;
        let (_, judged, heard) = hear(&engine, &audio, PROMPT, None, &mut Vec::new());
        if approves(&judged) {
            idle_approvals += 1;
        }
        println!("  {what:30} | with prompt {heard:?} -> {}", name(&judged));
    }
    println!();
    for (c, condition) in conditions.iter().enumerate() {
        println!(
            "answers heard right, {condition}: without prompt {}/{}, with prompt {}/{}",
            right[c][0], total[c], right[c][1], total[c]
        );
    }
    println!(
        "phrases that must never approve ({refusals} clips): approved without prompt {}, with prompt and its check {}",
        false_approvals[0],
        false_approvals[1] + idle_approvals
    );
    times.sort();
    let p50 = times[times.len() / 2];
    let mean_speech = speech_seconds_total / times.len() as f64;
    println!(
        "an answer judged (heard with the prompt, an approval heard again plain; tiny.en, 2 threads): p50 {:.0} ms, max {:.0} ms; real-time factor {:.2} (a clip of {:.1} s on average)",
        p50.as_secs_f64() * 1000.0,
        times.last().unwrap().as_secs_f64() * 1000.0,
        times.iter().map(Duration::as_secs_f64).sum::<f64>() / speech_seconds_total,
        mean_speech
    );
}
