//! Hands-free listening in the app: the source heard continuously, each utterance cut out by the
//! [`Detector`] and handed over as a WAV, with the moment speech starts told
//! at once (so that the app stops speaking: barge-in). The browser UI listens the same way in the page;
//! the desktop window's webview cannot stream a microphone, so the app listens here.
//!
//! Nothing is kept while nobody speaks: the source's samples are taken every 20 ms and only the last
//! 0.3 s stay (the utterance's first syllable). A muted listener drops what it hears at once. A source
//! that fails mid-utterance hands over what was heard before saying why.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::detector::{self, Detector, Edge};
use crate::tape::{millis, wav};
use crate::{CaptureError, Clip, Recording, Source};

/// How often the source's samples are taken: every detector frame, so that a start is told at most 20 ms
/// after the detector could see it (a wake-up costs a few microseconds here, not a page's work).
const TICK: Duration = Duration::from_millis(20);

/// What the listener heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// Someone started speaking (the app should stop its own speech now).
    Start,
    /// An utterance, from a little before its start to its end.
    Utterance(Clip),
    /// Speech too short to be words ended (a click, a cough): nothing is sent.
    Dropped,
    /// The source failed; nothing more will be heard.
    Lost(CaptureError),
}

/// What the window tells the listener while it listens.
#[derive(Debug, Default)]
pub struct Hints {
    speaking: AtomicBool,
    muted: AtomicBool,
}

impl Hints {
    /// The app is (or no longer is) speaking: its echo must not be taken for the user.
    pub fn set_speaking(&self, on: bool) {
        self.speaking.store(on, Ordering::Relaxed);
    }

    /// Muted: nothing is heard or kept until unmuted.
    pub fn set_muted(&self, on: bool) {
        self.muted.store(on, Ordering::Relaxed);
    }
}

/// Frames the samples, runs the detector and keeps the pre-roll and the utterance. Pure: tested with
/// samples, no source.
#[derive(Debug)]
pub struct Ears {
    rate: u32,
    frame: usize,
    detector: Detector,
    pending: Vec<i16>,
    pre_roll: VecDeque<i16>,
    utterance: Option<Vec<i16>>,
}

impl Ears {
    /// Ears for samples at `rate`.
    pub fn new(rate: u32) -> Ears {
        let frame = ((rate as f32 * detector::FRAME_SECONDS).round() as usize).max(1);
        Ears {
            rate,
            frame,
            detector: Detector::new(),
            pending: Vec::with_capacity(frame),
            pre_roll: VecDeque::new(),
            utterance: None,
        }
    }

    /// Takes samples; what they made happen is pushed to `out`.
    pub fn push(&mut self, samples: &[i16], hints: &Hints, out: &mut Vec<Heard>) {
        if hints.muted.load(Ordering::Relaxed) {
            // Muted at once: what was being said is dropped, and the room is learnt anew after.
            *self = Ears::new(self.rate);
            return;
        }
        let speaking = hints.speaking.load(Ordering::Relaxed);
        let keep = (self.rate as f32 * detector::PRE_ROLL_SECONDS) as usize;
        for &sample in samples {
            self.pending.push(sample);
            if self.pending.len() < self.frame {
                continue;
            }
            let frame = std::mem::take(&mut self.pending);
            let edge = self.detector.push(detector::rms(&frame), speaking);
            if edge == Some(Edge::Start) {
                out.push(Heard::Start);
                self.utterance = Some(self.pre_roll.drain(..).collect());
            }
            match &mut self.utterance {
                Some(utterance) => utterance.extend_from_slice(&frame),
                None => {
                    self.pre_roll.extend(&frame);
                    let over = self.pre_roll.len().saturating_sub(keep);
                    self.pre_roll.drain(..over);
                }
            }
            self.pending = frame;
            self.pending.clear();
            if edge == Some(Edge::End) {
                out.push(self.cut());
            }
        }
    }

    /// The utterance under way, ended now (its source is gone): handed over if it can be words.
    pub fn flush(&mut self) -> Option<Heard> {
        let heard = self.utterance.is_some().then(|| self.cut());
        self.detector = Detector::new();
        heard
    }

    fn cut(&mut self) -> Heard {
        let samples = self.utterance.take().unwrap_or_default();
        self.pre_roll.clear();
        if self.detector.voiced_seconds() < detector::MIN_SECONDS {
            return Heard::Dropped;
        }
        match wav(self.rate, &samples) {
            Ok(wav) => Heard::Utterance(Clip {
                wav,
                millis: millis(self.rate, samples.len()),
                truncated: false,
            }),
            Err(e) => Heard::Lost(e),
        }
    }
}

/// Listening under way. Dropping it stops the source and keeps nothing.
#[derive(Debug)]
pub struct Listening {
    /// What the window tells it.
    pub hints: Arc<Hints>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Opens `source` and listens until the [`Listening`] is dropped; `on` gets what is heard, on the
/// listener's thread. Returns once the source runs, or says why it cannot.
pub fn listen(
    source: &Source,
    mut on: impl FnMut(Heard) + Send + 'static,
) -> Result<Listening, CaptureError> {
    let recording = crate::start(source)?;
    let hints = Arc::new(Hints::default());
    let (stop, stopped) = mpsc::channel::<()>();
    let heard_hints = hints.clone();
    let thread = std::thread::Builder::new()
        .name("clawmux-listen".into())
        .spawn(move || run(&recording, &heard_hints, &stopped, &mut on))
        .map_err(|e| CaptureError::Device(format!("cannot start a thread: {e}")))?;
    Ok(Listening {
        hints,
        stop: Some(stop),
        thread: Some(thread),
    })
}

fn run(
    recording: &Recording,
    hints: &Hints,
    stopped: &mpsc::Receiver<()>,
    on: &mut impl FnMut(Heard),
) {
    let mut ears = Ears::new(recording.tape.rate());
    let mut out = Vec::new();
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
        let (samples, failure) = recording.tape.drain();
        ears.push(&samples, hints, &mut out);
        if let Some(why) = failure {
            out.extend(ears.flush());
            out.push(Heard::Lost(CaptureError::Device(why)));
        }
        let lost = out.iter().any(|h| matches!(h, Heard::Lost(_)));
        out.drain(..).for_each(&mut *on);
        if lost {
            return;
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 16_000;

    fn tone(seconds: f32, amplitude: f32) -> Vec<i16> {
        (0..(RATE as f32 * seconds) as usize)
            .map(|i| (amplitude * 32767.0 * (i as f32 * 0.2).sin()) as i16)
            .collect()
    }

    fn hear(ears: &mut Ears, samples: &[i16], hints: &Hints) -> Vec<Heard> {
        let mut out = Vec::new();
        // In blocks of odd sizes, as a device gives them.
        for block in samples.chunks(701) {
            ears.push(block, hints, &mut out);
        }
        out
    }

    #[test]
    fn an_utterance_is_cut_with_its_pre_roll_and_handed_over_as_a_wav() {
        let hints = Hints::default();
        let mut ears = Ears::new(RATE);
        let mut sound = tone(2.0, 0.001);
        sound.extend(tone(1.0, 0.3));
        sound.extend(tone(1.0, 0.001));
        let heard = hear(&mut ears, &sound, &hints);
        assert_eq!(heard.len(), 2, "{heard:?}");
        assert_eq!(heard[0], Heard::Start);
        let Heard::Utterance(clip) = &heard[1] else {
            panic!("{heard:?}")
        };
        // 0.3 s before the start (taken 60 ms into the speech), the speech, and 0.7 s of quiet.
        assert!((1940..=2060).contains(&clip.millis), "{} ms", clip.millis);
        let reader = hound::WavReader::new(&clip.wav[..]).unwrap();
        assert_eq!(
            (reader.spec().sample_rate, reader.spec().channels),
            (RATE, 1)
        );
        assert!(ears.pre_roll.len() <= (RATE as f32 * 0.3) as usize);
    }

    #[test]
    fn a_click_is_dropped_and_muting_forgets_what_was_being_said() {
        let hints = Hints::default();
        let mut ears = Ears::new(RATE);
        let mut sound = tone(1.0, 0.001);
        sound.extend(tone(0.1, 0.3));
        sound.extend(tone(1.0, 0.001));
        assert_eq!(
            hear(&mut ears, &sound, &hints),
            [Heard::Start, Heard::Dropped]
        );

        let mut ears = Ears::new(RATE);
        let mut speech = tone(1.0, 0.001);
        speech.extend(tone(0.5, 0.3));
        assert_eq!(hear(&mut ears, &speech, &hints), [Heard::Start]);
        hints.set_muted(true);
        assert!(hear(&mut ears, &tone(2.0, 0.3), &hints).is_empty(), "muted");
        hints.set_muted(false);
        assert_eq!(ears.flush(), None, "nothing was kept");
    }

    #[test]
    fn a_source_lost_mid_utterance_hands_over_what_was_heard() {
        let hints = Hints::default();
        let mut ears = Ears::new(RATE);
        let mut sound = tone(1.0, 0.001);
        sound.extend(tone(0.8, 0.3));
        assert_eq!(hear(&mut ears, &sound, &hints), [Heard::Start]);
        assert!(matches!(ears.flush(), Some(Heard::Utterance(c)) if c.millis >= 1000));
        assert_eq!(ears.flush(), None);
    }

    #[test]
    fn the_apps_echo_is_not_the_user() {
        let hints = Hints::default();
        hints.set_speaking(true);
        let mut ears = Ears::new(RATE);
        let mut sound = tone(1.0, 0.005);
        sound.extend(tone(2.0, 0.03));
        assert!(hear(&mut ears, &sound, &hints).is_empty());
        assert_eq!(hear(&mut ears, &tone(0.2, 0.3), &hints), [Heard::Start]);
    }
}
