//! What a recording's audio says beside its words: how long its speech lasts, and in how many runs.
//!
//! Recognizers drop what they take for noise in speech: "um, allow" is heard "Allow.". The audio keeps
//! it: the filler and the word are two runs of speech apart by a pause, where a clear answer is one. A
//! pause is a stretch of frames well under the speech, measured against the recording's own floor, so
//! that steady noise under the voice does not fill the pauses in.

use clawmux_core::spoken::Sound;

/// One frame: 10 ms.
const FRAME_MS: u32 = 10;
/// A pause between two runs of speech: 80 ms or more (a comma's pause is 90-250 ms; within a word,
/// even "git push" said fluently, the quiet of a consonant is shorter).
const PAUSE_FRAMES: usize = 8;
/// A run shorter than this is a click, not speech.
const RUN_AT_LEAST_FRAMES: usize = 3;

/// How long the speech in `samples` (at `rate`) lasts: from the first to the last loud frame. Silence
/// is 0.
pub fn speech_seconds(samples: &[f32], rate: u32) -> f32 {
    sound(samples, rate).seconds
}

/// The speech in `samples` (at `rate`): its length, from its first to its last loud frame, and its runs.
pub fn sound(samples: &[f32], rate: u32) -> Sound {
    let frame = (rate * FRAME_MS / 1000).max(1) as usize;
    let loudness: Vec<f32> = samples
        .chunks(frame)
        .map(|f| (f.iter().map(|s| s * s).sum::<f32>() / f.len() as f32).sqrt())
        .collect();
    let loudest = loudness.iter().copied().fold(0.0, f32::max);
    if loudest <= 1e-4 {
        return Sound::default();
    }
    // Loud: within 30 dB of the loudest, and 6 dB over the floor (the quietest fifth of the frames) as
    // long as that stays 12 dB under the loudest (a clip that is all speech has no floor).
    let mut sorted = loudness.clone();
    sorted.sort_by(f32::total_cmp);
    let floor = sorted[sorted.len() / 5];
    let threshold = (loudest * 0.0316).max((floor * 2.0).min(loudest * 0.25));
    let loud: Vec<bool> = loudness.iter().map(|l| *l > threshold).collect();
    let (Some(first), Some(last)) = (loud.iter().position(|l| *l), loud.iter().rposition(|l| *l))
    else {
        return Sound::default();
    };
    let seconds = (last - first + 1) as f32 * frame as f32 / rate as f32;
    let (runs, opening) = runs(&loud[first..=last]);
    Sound {
        seconds,
        runs,
        opening: if runs > 1 {
            opening as f32 * frame as f32 / rate as f32
        } else {
            0.0
        },
    }
}

/// The runs of loud frames in `loud`, those apart by less than a pause counted as one, clicks as none;
/// and how many frames the first run spans (its short quiets within).
fn runs(loud: &[bool]) -> (usize, usize) {
    let mut runs = 0;
    let mut run = 0;
    let mut span = 0;
    let mut quiet = 0;
    let mut opening = 0;
    for &l in loud {
        if l {
            run += 1;
            span += quiet + 1;
            quiet = 0;
        } else {
            quiet += 1;
            if quiet == PAUSE_FRAMES {
                if run >= RUN_AT_LEAST_FRAMES {
                    runs += 1;
                    if runs == 1 {
                        opening = span;
                    }
                }
                run = 0;
                span = 0;
            }
        }
    }
    if run >= RUN_AT_LEAST_FRAMES {
        runs += 1;
        if runs == 1 {
            opening = span;
        }
    }
    (runs, opening)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 16_000;

    /// A tone for `ms`, then silence for `gap` ms, as many times as `parts` says.
    fn clip(parts: &[(u32, u32)]) -> Vec<f32> {
        let mut out = Vec::new();
        for (ms, gap) in parts {
            let n = (RATE * ms / 1000) as usize;
            out.extend((0..n).map(|i| (i as f32 * 0.05).sin() * 0.5));
            out.extend(std::iter::repeat_n(0.0, (RATE * gap / 1000) as usize));
        }
        out
    }

    #[test]
    fn speech_is_measured_from_its_first_to_its_last_loud_moment() {
        let mut clip = vec![0.0f32; 16_000];
        for (i, s) in clip.iter_mut().enumerate().skip(4_000).take(8_000) {
            *s = ((i as f32) * 0.3).sin() * 0.5;
        }
        let seconds = speech_seconds(&clip, 16_000);
        assert!((seconds - 0.5).abs() < 0.03, "{seconds}");
        assert_eq!(speech_seconds(&[0.0; 16_000], 16_000), 0.0);
    }

    #[test]
    fn one_word_is_one_run_and_a_word_after_a_pause_another() {
        let one = sound(&clip(&[(400, 0)]), RATE);
        assert_eq!(one.runs, 1);
        assert!((one.seconds - 0.4).abs() < 0.02, "{one:?}");
        // A consonant's short quiet inside a word does not split it.
        assert_eq!(sound(&clip(&[(200, 50), (300, 0)]), RATE).runs, 1);
        let hesitant = sound(&clip(&[(250, 150), (350, 0)]), RATE);
        assert_eq!(hesitant.runs, 2);
        assert!((hesitant.opening - 0.25).abs() < 0.02, "{hesitant:?}");
        assert_eq!(one.opening, 0.0);
        assert!((hesitant.seconds - 0.75).abs() < 0.02, "{hesitant:?}");
        assert_eq!(sound(&vec![0.0; 16_000], RATE).runs, 0);
    }

    #[test]
    fn steady_noise_under_the_voice_does_not_fill_its_pauses() {
        let mut noisy = clip(&[(300, 200), (300, 300)]);
        let mut state = 7u32;
        for s in &mut noisy {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *s += ((state >> 8) as f32 / (1u32 << 24) as f32 - 0.5) * 0.1;
        }
        assert_eq!(sound(&noisy, RATE).runs, 2);
    }
}
