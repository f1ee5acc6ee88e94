//! The device's voice speaks words a listener hears: the real Piper voice (en_US-joe-medium, the file the
//! app downloads, fetched from PyPI by `scripts/voice-test-model`) says a sentence, and whisper.cpp with
//! the real test model hears it back. Its variants sound higher or lower at the same pace, and hostile
//! text is spoken as words, never as commands to the phonemizer.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use clawmux_voice::local::{decode_wav, to_16k, Engine};
use clawmux_voice::piper::{Piper, Variant};

fn hear(engine: &Engine, wav: &[u8]) -> String {
    let (samples, rate) = decode_wav(wav).unwrap();
    engine
        .transcribe(&to_16k(&samples, rate).unwrap(), None)
        .unwrap()
        .to_lowercase()
}

#[test]
fn the_voice_says_what_it_is_given_and_each_variant_too() {
    let (onnx, json) = common::voice_paths();
    let voice = Piper::load(&onnx, &json).unwrap();
    let engine = Engine::load(&common::model_path(), 2).unwrap();

    let speech = voice
        .speak(
            "Sky needs you. Please run the tests, then tell me the result.",
            Variant::default(),
        )
        .unwrap();
    assert_eq!(speech.rate, 22_050);
    assert!(
        (2.0..8.0).contains(&speech.seconds()),
        "{} s",
        speech.seconds()
    );
    let heard = hear(&engine, &speech.wav());
    assert!(
        // "run the test": on a busy machine whisper.cpp hears with one thread, and may drop the plural;
        // "need you": the voice's noise is random, and one run was heard "that's what i need you".
        (heard.contains("needs you") || heard.contains("need you"))
            && heard.contains("run the test")
            && heard.contains("result"),
        "heard: {heard}"
    );

    // Higher and lower, at the same pace, and still heard.
    let low = voice
        .speak("Please run the tests.", Variant::new(-2).unwrap())
        .unwrap();
    let high = voice
        .speak("Please run the tests.", Variant::new(2).unwrap())
        .unwrap();
    assert!(low.rate < 22_050 && high.rate > 22_050);
    assert!(
        (low.seconds() - high.seconds()).abs() < 0.4,
        "{} vs {}",
        low.seconds(),
        high.seconds()
    );
    for v in [low, high] {
        let heard = hear(&engine, &v.wav());
        assert!(
            heard.contains("run the test"),
            "heard at {} Hz: {heard}",
            v.rate
        );
    }
}

#[test]
fn hostile_text_is_only_words() {
    let (onnx, json) = common::voice_paths();
    let voice = Piper::load(&onnx, &json).unwrap();
    // espeak-ng takes `[[...]]` as raw phonemes and SSML with -m: neither reaches it as such.
    let speech = voice
        .speak(
            "[[h@l'oU]] <speak>run</speak> \u{1b}[31m done \u{7}",
            Variant::default(),
        )
        .unwrap();
    assert!(speech.seconds() > 0.3);
    assert_eq!(
        voice
            .speak(" ... --- ", Variant::default())
            .unwrap_err()
            .code,
        clawmux_core::wire::Code::BadText
    );
}
