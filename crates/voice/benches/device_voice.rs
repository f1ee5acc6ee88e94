//! Prints how fast the device's own voice speaks: the Piper voice (en_US-joe-medium, as the app downloads
//! it) loaded, then answers of the lengths hands-free reads (a request said, "who needs me?" answered, an
//! answer's first paragraph) spoken in each of the voice's variants; for each, the time to make it and its
//! real-time factor (seconds of speech per second of work), and the time to the first sentence, which is
//! what the user waits for when the page asks for speech a sentence at a time.
//!
//! Run: `cargo bench -p clawmux-voice --bench device_voice` (after `scripts/voice-test-model`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::time::Instant;

use clawmux_voice::piper::{Piper, Variant};

const TEXTS: [&str; 3] = [
    "sky asks to run npm publish. Allow npm publish, or deny?",
    "Two agents need you. sky asks to run git push. moon has a question about the schema.",
    "I ran the whole test suite and everything passes now. The failure was a race in the socket \
     test: it read the port before the server had bound it, so it sometimes connected to nothing. \
     I made the test wait for the listening event instead of sleeping. Say more for the rest.",
];

fn voices() -> PathBuf {
    std::env::var_os("CLAWMUX_TEST_VOICES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
                .join("clawmux-tests/piper")
        })
}

fn main() {
    let dir = voices();
    let started = Instant::now();
    let voice = Piper::load(
        &dir.join("en_US-joe-medium.onnx"),
        &dir.join("en_US-joe-medium.onnx.json"),
    )
    .expect("the test voice: run scripts/voice-test-model");
    println!("voice loaded in {} ms", started.elapsed().as_millis());
    // The first run after the load sets up what the runtime keeps: what the first answer waits for.
    let t = Instant::now();
    voice
        .speak("Nobody needs you.", Variant::default())
        .unwrap();
    println!(
        "the first sentence after the load: {} ms",
        t.elapsed().as_millis()
    );
    let t = Instant::now();
    voice
        .speak("Nobody needs you.", Variant::default())
        .unwrap();
    println!("the same sentence again: {} ms", t.elapsed().as_millis());

    let mut factors = Vec::new();
    for text in TEXTS {
        for steps in -Variant::MAX..=Variant::MAX {
            let variant = Variant::new(steps).unwrap();
            let first = text.split_inclusive(['.', '?']).next().unwrap();
            let t = Instant::now();
            voice.speak(first, variant).unwrap();
            let first_ms = t.elapsed().as_millis();
            let t = Instant::now();
            let speech = voice.speak(text, variant).unwrap();
            let took = t.elapsed().as_secs_f64();
            let factor = speech.seconds() / took;
            factors.push(factor);
            println!(
                "{:>3} chars, variant {steps:+}: {:.2} s of speech in {:.0} ms = {factor:.1}x real time; first sentence in {first_ms} ms",
                text.len(),
                speech.seconds(),
                took * 1000.0
            );
        }
    }
    factors.sort_by(f64::total_cmp);
    println!(
        "real-time factor over {} texts: min {:.1}x, median {:.1}x (goal > 5x)",
        factors.len(),
        factors[0],
        factors[factors.len() / 2]
    );
}
