//! Prints how hands-free words reach the agent named: utterances that name an agent first (rain, wren and
//! sky, five sentences each), spoken by espeak-ng in three voices, clean and under white noise 10 dB down,
//! heard by whisper.cpp with the names as its prompt and plain where that names nobody clearly, and
//! decided as the hub decides them with sky on screen (`core::spoken::understand_both`, a name the
//! recognizer dropped found in the audio by `dropped_name`): how many reached the agent named, how many
//! another agent (the goal: none), the rest asked whom.
//!
//! Run: `cargo bench -p clawmux-voice --bench addressing` (after `scripts/voice-test-model`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use clawmux_core::spoken::{dropped_name, understand, understand_both, Understood};
use clawmux_voice::local::{sound, Engine};

#[path = "corpus/speech.rs"]
mod corpus;

use corpus::{engine, mix, noise, speak, VOICES};

fn main() {
    let Some(engine) = engine() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (addressed, misaddressed) = addressing(&engine, dir.path());
    print(&addressed, &misaddressed);
}

/// The agents of the addressing corpus, and the prompt the hub gives while no request is open.
const AGENTS: [&str; 3] = ["rain", "wren", "sky"];
const NAMES_PROMPT: &str = "rain, wren, sky.";

/// Utterances that name an agent first, in every voice at 1x, clean and under noise, decided as the hub
/// decides them (heard with the names as the prompt, and plain where that names nobody clearly), with sky
/// on screen: (to the agent named, all) and how many went to another agent, per condition.
fn addressing(engine: &Engine, dir: &Path) -> ([(usize, usize); 2], [usize; 2]) {
    let sentences = [
        "run the tests.",
        "stop the build.",
        "check the build.",
        "what changed in the parser?",
        "commit and push when it passes.",
    ];
    let mut addressed = [(0, 0); 2];
    let mut misaddressed = [0; 2];
    for voice in VOICES {
        for agent in AGENTS {
            for sentence in sentences {
                let words = format!("{}{}, {sentence}", agent[..1].to_uppercase(), &agent[1..]);
                let clip = speak(dir, voice, 175, &words);
                for (c, audio) in [clip.clone(), mix(&clip, &noise(clip.len(), 5), 10.0)]
                    .iter()
                    .enumerate()
                {
                    let prompted = engine
                        .transcribe(audio, Some(NAMES_PROMPT))
                        .unwrap_or_default();
                    let unclear = matches!(
                        understand(&prompted, &AGENTS),
                        Understood::ToShown { .. } | Understood::Which { .. }
                    );
                    let plain = unclear.then(|| engine.transcribe(audio, None).unwrap_or_default());
                    let mut understood = understand_both(&prompted, plain.as_deref(), &AGENTS);
                    // A name said first that the recognizer dropped: the hub asks whom.
                    if matches!(understood, Understood::ToShown { .. })
                        && dropped_name(&prompted, &sound(audio, 16_000))
                    {
                        understood = Understood::Nothing;
                    }
                    addressed[c].1 += 1;
                    let to = match &understood {
                        Understood::ToAgent { agent, .. } => Some(agent.as_str()),
                        // Sent to the agent shown: sky.
                        Understood::ToShown { .. } => Some("sky"),
                        Understood::Nothing | Understood::Query(_) | Understood::Which { .. } => {
                            None
                        }
                    };
                    match to {
                        Some(to) if to == agent => addressed[c].0 += 1,
                        Some(_) => misaddressed[c] += 1,
                        None => {}
                    }
                    println!(
                        "  {voice:9} {:13} {words:44} | {prompted:?} | {:?} -> {}",
                        ["clean", "noise -10 dB"][c],
                        plain.unwrap_or_default(),
                        to.unwrap_or("asked")
                    );
                }
            }
        }
    }
    (addressed, misaddressed)
}

fn print(addressed: &[(usize, usize); 2], misaddressed: &[usize; 2]) {
    for (c, condition) in ["clean", "noise -10 dB"].iter().enumerate() {
        println!(
            "addressed by name, {condition}: {} of {} to the agent named ({:.1} %), {} to another agent (goal 0), the rest asked whom",
            addressed[c].0,
            addressed[c].1,
            100.0 * addressed[c].0 as f64 / addressed[c].1.max(1) as f64,
            misaddressed[c]
        );
    }
}
