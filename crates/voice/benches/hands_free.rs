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
//! smallest model (tiny.en) is measured here: no registry ships the default, base.en.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use clawmux_core::spoken::{
    approval::Why, confirmed, danger, dropped_name, judge, understand, understand_both, Danger,
    Judged, Sound, Understood,
};
use clawmux_voice::local::{decode_wav, sound, to_16k, Engine};
use serde_json::json;

/// What the recognizer is told to expect while a permission is open (as the hub builds it).
const PROMPT: &str = "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But.";
const PROMPT_PUSH: &str =
    "sky, rain. Allow. Always allow. Deny. Skip. No. Wait. Don't. Not. But. Allow git push.";
/// The app's own question, heard back.
const APP: &str = "sky asks to run npm test. Allow, or deny?";
/// The voices and the speeds (words a minute: espeak-ng's 175 is 1x).
const VOICES: [&str; 3] = ["en", "en-us", "en-us+m3"];
const SPEEDS: [(u32, &str); 4] = [(140, "0.8x"), (175, "1x"), (200, "1.15x"), (228, "1.3x")];
const CONDITIONS: [&str; 3] = ["clean", "noise -10 dB", "app's speech -12 dB"];

fn model() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("clawmux-tests/whisper/ggml-tiny.en.bin")
}

/// `words` spoken by espeak-ng in `voice` at `speed` words a minute, at 16 kHz.
fn speak(dir: &Path, voice: &str, speed: u32, words: &str) -> Vec<f32> {
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
    // `cargo bench ... -- addressing`: the addressing corpus alone.
    if std::env::args().any(|a| a == "addressing") {
        let (addressed, misaddressed) = addressing(&engine, dir.path());
        print_addressing(&addressed, &misaddressed);
        return;
    }
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
    let (addressed, misaddressed) = addressing(&engine, dir.path());
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
    print_addressing(&addressed, &misaddressed);
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

fn print_addressing(addressed: &[(usize, usize); 2], misaddressed: &[usize; 2]) {
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
