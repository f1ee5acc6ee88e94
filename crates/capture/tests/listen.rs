//! Hands-free listening through the path the desktop app uses: a WAV file as the microphone (a quiet room,
//! espeak-ng's words, the room again) heard by `listen`, whose detector cuts the utterance out. The
//! utterance handed over holds the words sample for sample, from a little before they start to a little
//! after they end, and nothing is handed over while the room is quiet.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clawmux_capture::listen::{listen, Heard};
use clawmux_capture::Source;

/// A quiet room (white noise about 50 dB under the voice): `seconds` of it at `rate`.
fn room(rate: u32, seconds: f32, seed: &mut u32) -> Vec<i16> {
    (0..(rate as f32 * seconds) as usize)
        .map(|_| {
            *seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            ((*seed >> 16) % 200) as i16 - 100
        })
        .collect()
}

/// `lead` seconds of the room, espeak-ng's `text`, `tail` seconds of the room, as `file`; returns the rate,
/// the words' samples and where they start.
fn room_with_words(file: &Path, text: &str, lead: f32, tail: f32) -> (u32, Vec<i16>, usize) {
    let status = std::process::Command::new("espeak-ng")
        .arg("-w")
        .arg(file)
        .arg(text)
        .status()
        .expect("espeak-ng runs (scripts/setup installs it)");
    assert!(status.success());
    let mut reader = hound::WavReader::open(file).unwrap();
    let spec = reader.spec();
    let words: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let mut seed = 7;
    let mut all = room(spec.sample_rate, lead, &mut seed);
    let start = all.len();
    all.extend(&words);
    all.extend(room(spec.sample_rate, tail, &mut seed));
    let mut writer = hound::WavWriter::create(file, spec).unwrap();
    for s in all {
        writer.write_sample(s).unwrap();
    }
    writer.finalize().unwrap();
    (spec.sample_rate, words, start)
}

#[test]
fn an_utterance_in_a_quiet_room_is_cut_out_whole_and_handed_over_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("room.wav");
    let (rate, words, _) = room_with_words(&file, "Sky, run the tests.", 1.5, 2.0);
    let voiced_at = words.iter().position(|x| x.abs() > 1000).unwrap();
    let (tx, rx) = mpsc::channel();
    let began = Instant::now();
    let listening = listen(&Source::File(file), move |heard| {
        let _ = tx.send((heard, began.elapsed()));
    })
    .unwrap();
    let (start, at) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(start, Heard::Start);
    let voice = 1.5 + voiced_at as f32 / rate as f32;
    println!(
        "the voice's start to the listener's: {:.0} ms",
        (at.as_secs_f32() - voice) * 1000.0
    );
    // The voice starts 1.5 s in (espeak's own first quiet aside); the start is told 60 ms later, at the
    // next 20 ms tick.
    assert!(
        at >= Duration::from_millis(1500) && at < Duration::from_millis(1800),
        "the start told at {at:?}"
    );
    let (utterance, _) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let Heard::Utterance(clip) = utterance else {
        panic!("{utterance:?}")
    };
    let mut reader = hound::WavReader::new(&clip.wav[..]).unwrap();
    assert_eq!(reader.spec().sample_rate, rate);
    let heard: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let voiced = |s: &[i16]| s.iter().position(|x| x.abs() > 1000).unwrap();
    let last_voiced = |s: &[i16]| s.iter().rposition(|x| x.abs() > 1000).unwrap();
    let at = heard
        .windows(words.len())
        .position(|w| w == &words[..])
        .expect("the words, sample for sample");
    // Before the words: the pre-roll (0.3 s before the detector's start); after the voice, 0.7 s of quiet.
    let before = (at + voiced(&words)) as f32 / rate as f32;
    assert!(
        (0.25..0.45).contains(&before),
        "{before} s before the voice"
    );
    let after = (heard.len() - at - last_voiced(&words)) as f32 / rate as f32;
    assert!((0.6..1.0).contains(&after), "{after} s after the voice");
    // Nothing more: the room alone is not speech.
    assert!(rx.recv_timeout(Duration::from_millis(1500)).is_err());
    drop(listening);
}

#[test]
fn a_file_that_cannot_play_says_why_and_listens_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not.wav");
    std::fs::write(&file, b"not a wav").unwrap();
    let err = listen(&Source::File(file), |_| {}).unwrap_err();
    assert!(err.to_string().contains("cannot be played"), "{err}");
}
