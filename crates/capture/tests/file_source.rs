//! A WAV file as the microphone: real speech (espeak-ng) comes back sample for sample, as long as it was
//! held, as the 16-bit mono WAV the hub's transcription takes; files that cannot play say why.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clawmux_capture::{start, CaptureError, Source};

/// Speaks `text` into a WAV with espeak-ng; returns it, its rate and samples.
fn speech(dir: &Path, text: &str) -> (PathBuf, u32, Vec<i16>) {
    let path = dir.join("speech.wav");
    let status = std::process::Command::new("espeak-ng")
        .arg("-w")
        .arg(&path)
        .arg(text)
        .status()
        .expect("espeak-ng runs (scripts/setup installs it)");
    assert!(status.success());
    let mut reader = hound::WavReader::open(&path).unwrap();
    let rate = reader.spec().sample_rate;
    let samples = reader.samples::<i16>().map(Result::unwrap).collect();
    (path, rate, samples)
}

fn read(wav: &[u8]) -> (hound::WavSpec, Vec<i16>) {
    let mut reader = hound::WavReader::new(wav).unwrap();
    (
        reader.spec(),
        reader.samples::<i16>().map(Result::unwrap).collect(),
    )
}

/// Records from `source` for `hold`.
fn record(source: &Source, hold: Duration) -> (clawmux_capture::Clip, Duration) {
    let began = Instant::now();
    let recording = start(source).unwrap();
    std::thread::sleep(hold);
    let clip = recording.finish().unwrap();
    (clip, began.elapsed())
}

#[test]
fn the_file_plays_as_the_microphone_sample_for_sample_then_silence() {
    let dir = tempfile::tempdir().unwrap();
    let (path, rate, spoken) = speech(dir.path(), "Run the tests and tell me when they pass");
    let spoken_ms = spoken.len() as u64 * 1000 / u64::from(rate);
    let hold = Duration::from_millis(spoken_ms + 400);
    let (clip, took) = record(&Source::File(path), hold);

    let (spec, heard) = read(&clip.wav);
    assert_eq!(
        (spec.channels, spec.sample_rate, spec.bits_per_sample),
        (1, rate, 16)
    );
    assert_eq!(&heard[..spoken.len()], &spoken[..], "the speech, unchanged");
    assert!(
        heard[spoken.len()..].iter().all(|&s| s == 0),
        "then silence"
    );
    // As long as it was held: at least the hold, at most the whole call.
    assert!(
        clip.millis >= hold.as_millis() as u64 - 1,
        "{} ms held {hold:?}",
        clip.millis
    );
    assert!(
        clip.millis <= took.as_millis() as u64 + 1,
        "{} ms in {took:?}",
        clip.millis
    );
    assert!(!clip.truncated);
    println!(
        "file source: {spoken_ms} ms of speech at {rate} Hz, held {} ms, recorded {} ms ({} bytes)",
        hold.as_millis(),
        clip.millis,
        clip.wav.len()
    );
}

#[test]
fn a_short_press_keeps_the_start_of_the_speech() {
    let dir = tempfile::tempdir().unwrap();
    let (path, rate, spoken) = speech(dir.path(), "Stop");
    let (clip, _) = record(&Source::File(path), Duration::from_millis(150));
    let (spec, heard) = read(&clip.wav);
    assert_eq!(spec.sample_rate, rate);
    let n = heard.len().min(spoken.len());
    assert!(n as u32 >= rate * 15 / 100, "{n} samples for 150 ms");
    assert_eq!(&heard[..n], &spoken[..n]);
}

#[test]
fn files_that_cannot_play_say_which_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.wav");
    std::fs::write(&text, "not a recording").unwrap();
    let cut = dir.path().join("cut.wav");
    std::fs::write(&cut, b"RIFF").unwrap();
    for path in [dir.path().join("missing.wav"), text, cut] {
        match start(&Source::File(path.clone())) {
            Err(CaptureError::File { path: named, why }) => {
                assert_eq!(named, path.display().to_string());
                assert!(!why.is_empty());
            }
            other => panic!("{}: {other:?}", path.display()),
        }
    }
}

#[test]
fn a_recording_dropped_unfinished_stops_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, _) = speech(dir.path(), "Never mind");
    let recording = start(&Source::File(path)).unwrap();
    let began = Instant::now();
    drop(recording);
    assert!(
        began.elapsed() < Duration::from_millis(500),
        "the thread ended"
    );
}

#[test]
fn a_stereo_file_is_heard_mixed_down_to_mono() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stereo.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 8000,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(&path, spec).unwrap();
    for _ in 0..800 {
        writer.write_sample(1000i16).unwrap();
        writer.write_sample(3000i16).unwrap();
    }
    writer.finalize().unwrap();
    let (clip, _) = record(&Source::File(path), Duration::from_millis(150));
    let (spec, heard) = read(&clip.wav);
    assert_eq!((spec.channels, spec.sample_rate), (1, 8000));
    assert!(heard.len() >= 800, "{} samples", heard.len());
    assert!(
        heard[..800].iter().all(|&s| s == 2000),
        "the mean of the two channels"
    );
    assert!(heard[800..].iter().all(|&s| s == 0));
}
