//! The hands-free benchmarks' speech: espeak-ng's voices at 16 kHz, a reproducible white noise, and one
//! sound mixed under another at a level below it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use clawmux_voice::local::{decode_wav, to_16k, Engine};

/// The voices every corpus is spoken in.
pub const VOICES: [&str; 3] = ["en", "en-us", "en-us+m3"];

/// The test model loaded with two threads, or `None` (said as skipped) where it is missing.
pub fn engine() -> Option<Engine> {
    let model = model();
    if !model.exists() {
        println!(
            "skipped: {} is missing (scripts/voice-test-model makes it)",
            model.display()
        );
        return None;
    }
    Some(Engine::load(&model, 2).unwrap())
}

/// The test model (`scripts/voice-test-model`), tiny.en in whisper.cpp's format.
pub fn model() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("clawmux-tests/whisper/ggml-tiny.en.bin")
}

/// `words` spoken by espeak-ng in `voice` at `speed` words a minute, at 16 kHz.
pub fn speak(dir: &Path, voice: &str, speed: u32, words: &str) -> Vec<f32> {
    let file = dir.join("clip.wav");
    assert!(Command::new("espeak-ng")
        .args(["-v", voice, "-s", &speed.to_string(), "-w"])
        .arg(&file)
        .arg(words)
        .status()
        .unwrap()
        .success());
    let (samples, rate) = decode_wav(&std::fs::read(&file).unwrap()).unwrap();
    to_16k(&samples, rate).unwrap()
}

/// The root mean square of `x`: its level.
pub fn rms(x: &[f32]) -> f32 {
    (x.iter().map(|s| s * s).sum::<f32>() / x.len().max(1) as f32).sqrt()
}

/// A reproducible white noise.
pub fn noise(n: usize, seed: u64) -> Vec<f32> {
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
pub fn mix(speech: &[f32], other: &[f32], db: f32) -> Vec<f32> {
    let gain = rms(speech) / rms(other).max(1e-9) * 10f32.powf(-db / 20.0);
    speech
        .iter()
        .enumerate()
        .map(|(i, s)| (s + other[i % other.len()] * gain).clamp(-1.0, 1.0))
        .collect()
}
