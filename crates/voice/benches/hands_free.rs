//! Prints how well hands-free answers are heard on the device, and that nothing else is ever heard as an
//! approval. A corpus of answers and of phrases that must never approve (hesitant ones among them: a filler
//! before or after the word, "um, allow", "allow... uh"), spoken by espeak-ng in three voices at four
//! speeds (0.8x to 1.3x), each clean, under white noise (10 dB below the speech) and over the app's own
//! question heard back through the speakers (12 dB below), transcribed by whisper.cpp with and without
//! the words expected as its prompt, then judged as the hub judges them: the closed grammar
//! (`core::spoken::judge`), and an approval checked against the plain words and the audio
//! (`core::spoken::confirmed`: its length, its runs of speech). Also: noise and silence alone, the time
//! to judge an answer, and its real-time factor.
//!
//! Run: `cargo bench -p clawmux-voice --bench hands_free` (after `scripts/voice-test-model`). Only the
//! smallest model (tiny.en) is measured here: no registry ships the default, base.en. Addressing by name
//! is `--bench addressing`.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::{Duration, Instant};

use clawmux_core::spoken::{approval::Why, confirmed, danger, judge, Danger, Judged, Sound};
use clawmux_voice::local::{sound, Engine};
use serde_json::json;

// The corpus's speech, noise and mixing, shared with the addressing benchmark.
#[path = "corpus/speech.rs"]
mod corpus;

use corpus::{engine, mix, noise, speak, VOICES};

/// What the recognizer is told to expect while a permission is open (as the hub builds it).
const PROMPT: &str = "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But.";
const PROMPT_PUSH: &str =
    "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But. Allow git push.";
/// The app's own question, heard back.
const APP: &str = "sky asks to run npm test. Allow, or deny?";
/// The speeds (words a minute: espeak-ng's 175 is 1x).
const SPEEDS: [(u32, &str); 4] = [(140, "0.8x"), (175, "1x"), (200, "1.15x"), (228, "1.3x")];
const CONDITIONS: [&str; 3] = ["clean", "noise -10 dB", "app's speech -12 dB"];

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

/// One clip as the hub hears it while a request is open.
struct Hearing {
    /// Without the prompt.
    plain: String,
    /// With it.
    prompted: String,
    /// What its audio says.
    sound: Sound,
    /// Judged by the words alone.
    words_only: Judged,
    /// Judged with the check of the words and the speech's length, the runs of speech left out (the
    /// last release's check).
    without_runs: Judged,
    /// Judged as the hub judges it now.
    judged: Judged,
}

/// Heard with the prompt, an approval checked against the plain words and the audio; the time to the
/// judged answer in `times`.
fn hear(
    engine: &Engine,
    audio: &[f32],
    prompt: &str,
    danger: Option<&Danger>,
    times: &mut Vec<Duration>,
) -> Hearing {
    let started = Instant::now();
    let prompted = engine.transcribe(audio, Some(prompt)).unwrap_or_default();
    let words_only = judge(&prompted, danger);
    let sound = sound(audio, 16_000);
    let mut plain = None;
    let mut judged = words_only.clone();
    if approves(&judged) {
        // The hub transcribes the plain words only for an approval.
        let again = engine.transcribe(audio, None).unwrap_or_default();
        if !confirmed(&prompted, Some(&again), Some(sound)) {
            judged = Judged::Again(Why::Unsure);
        }
        plain = Some(again);
    }
    times.push(started.elapsed());
    // Not an approval: the plain words change nothing, and are not transcribed (shown empty).
    let plain = plain.unwrap_or_default();
    let one_run = Sound { runs: 1, ..sound };
    let without_runs =
        if approves(&words_only) && !confirmed(&prompted, Some(&plain), Some(one_run)) {
            Judged::Again(Why::Unsure)
        } else {
            words_only.clone()
        };
    Hearing {
        plain,
        prompted,
        sound,
        words_only,
        without_runs,
        judged,
    }
}

/// Counts of a group of clips: how many, and how many the words alone, the last release's check and the
/// check now took as expected (or, for those that must never approve, approved).
#[derive(Default)]
struct Tally {
    clips: usize,
    words_only: usize,
    without_runs: usize,
    now: usize,
}

impl Tally {
    fn add(&mut self, h: &Hearing, hit: impl Fn(&Judged) -> bool) {
        self.clips += 1;
        self.words_only += usize::from(hit(&h.words_only));
        self.without_runs += usize::from(hit(&h.without_runs));
        self.now += usize::from(hit(&h.judged));
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} of {} now (the words alone {}, with the last release's check {})",
            self.now, self.clips, self.words_only, self.without_runs
        )
    }
}

fn main() {
    let Some(engine) = engine() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
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
    // Hesitant: a filler before or after the word, apart from it by a pause.
    let hesitant: &[&str] = &[
        "Um, allow.",
        "Uh, allow.",
        "Er... allow.",
        "Hmm, allow.",
        "Well, allow.",
        "Um, always allow.",
        "Allow, um.",
        "Allow... uh.",
        "Allow, hmm.",
        "Uh, allow it.",
    ];
    let app = speak(dir.path(), "en+f3", 175, APP);
    let mut right: Vec<Tally> = CONDITIONS.iter().map(|_| Tally::default()).collect();
    let mut plain_allow_quiet = Tally::default();
    let mut never_approved = Tally::default();
    let mut hesitant_approved = Tally::default();
    let mut times: Vec<Duration> = Vec::new();
    let mut speech_seconds_total = 0.0f64;
    println!(
        "voice speed condition words | speech (s, runs) | heard plain | with prompt -> judged now"
    );
    for voice in VOICES {
        for (speed, speed_name) in SPEEDS {
            let variants = |clip: &[f32], seed: u64| {
                [
                    clip.to_vec(),
                    mix(clip, &noise(clip.len(), seed), 10.0),
                    mix(clip, &app, 12.0),
                ]
            };
            let show = |words: &str, c: usize, h: &Hearing| {
                println!(
                    "  {voice:9} {speed_name:5} {:19} {words:27} | {:.2} s, {} | {:?} | {:?} -> {}",
                    CONDITIONS[c],
                    h.sound.seconds,
                    h.sound.runs,
                    h.plain,
                    h.prompted,
                    name(&h.judged)
                );
            };
            for (words, expected, is_push) in answers {
                let clip = speak(dir.path(), voice, speed, words);
                for (c, audio) in variants(&clip, 7).iter().enumerate() {
                    let (prompt, danger) = if *is_push {
                        (PROMPT_PUSH, push.as_ref())
                    } else {
                        (PROMPT, None)
                    };
                    let h = hear(&engine, audio, prompt, danger, &mut times);
                    speech_seconds_total += audio.len() as f64 / 16_000.0;
                    right[c].add(&h, |j| j == expected);
                    if *words == "Allow." && c == 0 {
                        plain_allow_quiet.add(&h, |j| j == expected);
                    }
                    show(words, c, &h);
                }
            }
            for (group, phrases) in [
                (&mut never_approved, never),
                (&mut hesitant_approved, hesitant),
            ] {
                for words in phrases {
                    let clip = speak(dir.path(), voice, speed, words);
                    for (c, audio) in variants(&clip, 11).iter().enumerate() {
                        let h = hear(&engine, audio, PROMPT, None, &mut Vec::new());
                        group.add(&h, approves);
                        show(words, c, &h);
                    }
                }
            }
        }
    }
    // Nobody speaking: noise and silence, with the prompt.
    let mut idle = Tally::default();
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
        let h = hear(&engine, &audio, PROMPT, None, &mut Vec::new());
        idle.add(&h, approves);
        println!(
            "  {what:30} | with prompt {:?} -> {}",
            h.prompted,
            name(&h.judged)
        );
    }
    println!();
    for (c, condition) in CONDITIONS.iter().enumerate() {
        println!(
            "{}",
            right[c].line(&format!("answers heard right, {condition}"))
        );
    }
    println!(
        "{}",
        plain_allow_quiet.line("true approvals, a plain \"allow\" in quiet (goal >= 9 of 10)")
    );
    let all_never = Tally {
        clips: never_approved.clips + hesitant_approved.clips + idle.clips,
        words_only: never_approved.words_only + hesitant_approved.words_only + idle.words_only,
        without_runs: never_approved.without_runs
            + hesitant_approved.without_runs
            + idle.without_runs,
        now: never_approved.now + hesitant_approved.now + idle.now,
    };
    println!("{}", hesitant_approved.line("hesitant answers approved"));
    println!(
        "{}",
        all_never.line(
            "false approvals, every phrase that must never approve, noise and silence (goal 0)"
        )
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
