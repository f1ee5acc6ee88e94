//! The real microphone path (the sound server's default source, through libpulse), fed real speech: a PulseAudio server of the
//! test's own (its folder as home and runtime dir, never the user's) with a virtual source reading a FIFO,
//! made the default; espeak-ng's speech is written into the FIFO while the recording runs.
//!
//! One test in its own binary: it points this process's PulseAudio client at the test's server through the
//! environment.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use clawmux_capture::{start, Source};

#[path = "common/pulse.rs"]
mod pulse;

fn speech(dir: &Path) -> (PathBuf, u32, Vec<i16>) {
    let path = dir.join("speech.wav");
    let text = "Open the pull request and ask for a review";
    let status = Command::new("espeak-ng")
        .arg("-w")
        .arg(&path)
        .arg(text)
        .status()
        .unwrap();
    assert!(status.success());
    let mut reader = hound::WavReader::open(&path).unwrap();
    let rate = reader.spec().sample_rate;
    (
        path.clone(),
        rate,
        reader.samples::<i16>().map(Result::unwrap).collect(),
    )
}

fn rms(samples: &[i16]) -> f64 {
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / samples.len().max(1) as f64).sqrt()
}

#[test]
fn speech_on_the_default_source_is_recorded_through_the_microphone_path() {
    let dir = tempfile::tempdir().unwrap();
    let (_, rate, spoken) = speech(dir.path());
    let fifo = dir.path().join("speech.fifo");
    let (_server, address) = pulse::start(dir.path(), &fifo, rate);
    pulse::use_it(dir.path(), &address);

    let opening = Instant::now();
    let recording = start(&Source::Microphone).expect("the virtual source opens as the microphone");
    let opened = opening.elapsed();
    // The speech, paced as a microphone would deliver it, then half a second of silence.
    let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let began = Instant::now();
    let chunk = rate as usize / 50;
    let silence = vec![0i16; rate as usize / 2];
    for (i, part) in spoken
        .chunks(chunk)
        .chain(silence.chunks(chunk))
        .enumerate()
    {
        let bytes: Vec<u8> = part.iter().flat_map(|s| s.to_le_bytes()).collect();
        pipe.write_all(&bytes).unwrap();
        let due = began + Duration::from_millis(20 * (i as u64 + 1));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    let clip = recording.finish().expect("a recording");

    let mut reader = hound::WavReader::new(&clip.wav[..]).unwrap();
    let spec = reader.spec();
    let heard: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    assert_eq!((spec.channels, spec.bits_per_sample), (1, 16));
    let spoken_ms = spoken.len() as u64 * 1000 / u64::from(rate);
    assert!(
        clip.millis + 200 >= spoken_ms,
        "{} ms recorded for {spoken_ms} ms of speech",
        clip.millis
    );
    // The speech is there at its loudness (the server may resample it, so no sample-for-sample match).
    let loud = rms(&heard);
    let expected =
        rms(&spoken) * (spoken.len() as f64 / (spoken.len() + silence.len()) as f64).sqrt();
    assert!(
        loud > expected * 0.5 && loud < expected * 1.5,
        "rms {loud:.0}, expected about {expected:.0}"
    );
    println!(
        "microphone (cpal, ALSA -> PulseAudio virtual source): opened in {opened:?}; {spoken_ms} ms of speech -> {} ms at {} Hz, rms {loud:.0} (about {expected:.0} expected)",
        clip.millis, spec.sample_rate
    );
}
