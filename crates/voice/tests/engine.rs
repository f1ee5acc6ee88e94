//! The embedded engine hears real speech: espeak-ng says a sentence (22,050 Hz, as a device's rate would
//! differ from Whisper's), it is resampled to 16 kHz and transcribed by whisper.cpp with the real test
//! model (tiny.en, converted by `scripts/voice-test-model`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::path::PathBuf;
use std::process::Command;

use clawmux_core::wire::Code;
use clawmux_voice::local::{decode_wav, to_16k, Engine};

fn model() -> PathBuf {
    common::model_path()
}

fn speech(text: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("speech.wav");
    let status = Command::new("espeak-ng")
        .arg("-w")
        .arg(&wav)
        .arg(text)
        .status()
        .expect("espeak-ng runs");
    assert!(status.success());
    std::fs::read(wav).unwrap()
}

#[test]
fn real_speech_is_heard() {
    let (samples, rate) =
        decode_wav(&speech("please run the tests and tell me the result")).unwrap();
    assert_ne!(rate, 16_000, "espeak-ng speaks at its own rate");
    let audio = to_16k(&samples, rate).unwrap();
    let engine = Engine::load(&model(), 2).unwrap();
    let text = engine.transcribe(&audio, None).unwrap().to_lowercase();
    assert!(
        text.contains("run the tests") && text.contains("result"),
        "heard: {text}"
    );
}

#[test]
fn silence_is_nothing_heard_and_a_broken_model_is_refused() {
    let engine = Engine::load(&model(), 2).unwrap();
    let err = engine.transcribe(&vec![0.0; 32_000], None).unwrap_err();
    assert_eq!(err.code, Code::NothingHeard, "{}", err.message);
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("ggml-broken.bin");
    std::fs::write(&broken, b"not a model").unwrap();
    assert_eq!(
        Engine::load(&broken, 2).err().map(|e| e.code),
        Some(Code::ModelUnusable)
    );
}
