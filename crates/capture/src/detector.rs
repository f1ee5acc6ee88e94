//! The voice-activity detector of hands-free listening: loudness against the room's noise floor, over 20 ms
//! frames, as a pure state machine so that it is tested without a microphone. The browser UI runs the same
//! rules in `ui/js/hands-free.js` (a test checks that their figures agree): the window and the browser
//! hear an utterance start and end alike.
//!
//! Why loudness and not a neural detector: it costs nothing while nobody speaks (one sum per frame), it
//! needs no model, and the words are judged later by the recognizer and the approval rules, which drop
//! noise heard as speech; a missed quiet syllable costs a "say it again", never an action.

/// A frame: 20 ms.
pub const FRAME_SECONDS: f32 = 0.02;
/// Speech starts after this many loud frames in a row (60 ms) ...
pub const START_FRAMES: u32 = 3;
/// ... and ends after this many quiet ones (0.7 s).
pub const END_FRAMES: u32 = 35;
/// Audio kept from before the speech started, so that its first syllable is not cut.
pub const PRE_ROLL_SECONDS: f32 = 0.3;
/// The shortest utterance sent, voiced (a click or a knock is shorter) ...
pub const MIN_SECONDS: f32 = 0.25;
/// ... and the longest: then it is sent as it is and a new one starts.
pub const MAX_SECONDS: f32 = 30.0;
const MAX_FRAMES: u32 = (MAX_SECONDS / FRAME_SECONDS + 0.5) as u32;
/// Loud means this many times the noise floor ...
pub const OVER_FLOOR: f32 = 3.0;
/// ... and at least this loud (RMS of samples in [-1, 1]).
pub const AT_LEAST: f32 = 0.01;
/// While the app speaks, the user must be this much louder still to be heard over its echo.
pub const OVER_OWN_SPEECH: f32 = 2.5;

/// What a frame changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Speech started (its first loud frames are the last [`START_FRAMES`] pushed).
    Start,
    /// Speech ended: quiet long enough, or [`MAX_SECONDS`] reached.
    End,
}

/// The detector's state between frames.
#[derive(Debug, Default)]
pub struct Detector {
    floor: Option<f32>,
    loud: u32,
    quiet: u32,
    in_speech: bool,
    frames: u32,
    voiced: u32,
}

impl Detector {
    /// A detector that has heard nothing yet: its first frame is the room's floor.
    pub fn new() -> Detector {
        Detector::default()
    }

    /// How long the speech under way (or the last) was voiced: from its start to its last loud frame,
    /// the quiet that ended it not counted.
    pub fn voiced_seconds(&self) -> f32 {
        self.voiced as f32 * FRAME_SECONDS
    }

    /// Takes one frame's loudness (RMS in [-1, 1]); `app_speaking` raises the bar over the app's echo.
    pub fn push(&mut self, level: f32, app_speaking: bool) -> Option<Edge> {
        let over = if app_speaking { OVER_OWN_SPEECH } else { 1.0 };
        let threshold = AT_LEAST.max(self.floor.unwrap_or(level) * OVER_FLOOR) * over;
        // The floor follows the room slowly up and quickly down, from quiet frames outside speech only: a
        // voice (or the app's echo) does not raise it.
        if !self.in_speech {
            match self.floor {
                None => self.floor = Some(level),
                Some(floor) if level <= threshold => {
                    self.floor = Some(level.min(floor * 0.98 + level * 0.02));
                }
                Some(_) => {}
            }
            self.loud = if level > threshold { self.loud + 1 } else { 0 };
            if self.loud >= START_FRAMES {
                self.in_speech = true;
                self.quiet = 0;
                self.frames = self.loud;
                self.voiced = self.loud;
                return Some(Edge::Start);
            }
            return None;
        }
        self.frames += 1;
        if level > threshold {
            self.quiet = 0;
            self.voiced = self.frames;
        } else {
            self.quiet += 1;
        }
        if self.quiet >= END_FRAMES || self.frames >= MAX_FRAMES {
            self.in_speech = false;
            self.loud = 0;
            return Some(Edge::End);
        }
        None
    }
}

/// The loudness of a frame of 16-bit samples, as RMS in [-1, 1].
pub fn rms(samples: &[i16]) -> f32 {
    let sum: f64 = samples
        .iter()
        .map(|&s| {
            let x = f64::from(s) / 32768.0;
            x * x
        })
        .sum();
    (sum / samples.len().max(1) as f64).sqrt() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(detector: &mut Detector, level: f32, frames: u32, app: bool) -> Vec<(u32, Edge)> {
        (0..frames)
            .filter_map(|i| detector.push(level, app).map(|e| (i, e)))
            .collect()
    }

    #[test]
    fn speech_over_the_room_starts_after_three_frames_and_ends_after_the_quiet() {
        let mut d = Detector::new();
        assert!(run(&mut d, 0.002, 100, false).is_empty(), "the room alone");
        assert_eq!(run(&mut d, 0.1, 50, false), [(2, Edge::Start)]);
        assert_eq!(run(&mut d, 0.002, 50, false), [(END_FRAMES - 1, Edge::End)]);
        assert!(
            (d.voiced_seconds() - 1.0).abs() < 1e-3,
            "the quiet not counted"
        );
    }

    #[test]
    fn a_pause_shorter_than_the_end_keeps_one_utterance() {
        let mut d = Detector::new();
        run(&mut d, 0.002, 50, false);
        assert_eq!(run(&mut d, 0.1, 20, false), [(2, Edge::Start)]);
        assert!(run(&mut d, 0.002, END_FRAMES - 1, false).is_empty());
        assert!(run(&mut d, 0.1, 20, false).is_empty(), "the same utterance");
    }

    #[test]
    fn a_click_is_not_speech_and_a_steady_noise_becomes_the_floor() {
        let mut d = Detector::new();
        run(&mut d, 0.002, 50, false);
        assert!(run(&mut d, 0.2, 2, false).is_empty(), "two loud frames");
        assert!(run(&mut d, 0.002, 5, false).is_empty());
        // A fan switched on: loud for a moment, then the floor climbs to it only from quiet frames, so
        // a level well over the floor counts as speech, and ends.
        let mut d = Detector::new();
        run(&mut d, 0.02, 100, false);
        assert!(
            run(&mut d, 0.05, 100, false).is_empty(),
            "under three times the floor"
        );
    }

    #[test]
    fn the_apps_own_speech_needs_the_user_louder_still() {
        let mut d = Detector::new();
        run(&mut d, 0.005, 50, false);
        assert!(
            run(&mut d, 0.03, 20, true).is_empty(),
            "the echo of the app"
        );
        assert_eq!(
            run(&mut d, 0.1, 5, true),
            [(2, Edge::Start)],
            "the user over it"
        );
    }

    #[test]
    fn a_long_utterance_is_cut_at_the_longest() {
        let mut d = Detector::new();
        run(&mut d, 0.002, 10, false);
        let edges = run(&mut d, 0.2, 2000, false);
        assert_eq!(edges[0], (2, Edge::Start));
        assert_eq!(edges[1], (1499, Edge::End), "30 s of frames");
    }

    #[test]
    fn loudness_is_the_rms_of_the_samples() {
        assert_eq!(rms(&[]), 0.0);
        assert!((rms(&[16384, -16384]) - 0.5).abs() < 1e-6);
    }
}
