//! The embedded engine: whisper.cpp, with the recording made 16 kHz mono first.
//!
//! A loaded model is kept (loading base.en takes a moment, so the hub loads it while the user is still
//! talking); a transcription runs on the caller's thread (the hub's blocking pool) with a bounded number
//! of threads of whisper.cpp's own. A short clip is not padded to Whisper's 30 s window: the encoder is
//! given the clip's length (`audio_ctx`), which is what makes a 3 s clip fast.
//!
//! whisper.cpp's threads wait for each other by spinning: on a machine whose cores are busy (agents
//! building, tests running) two of them take 5-6 s for a sentence that one thread hears in under a second
//! there, so each transcription takes as many threads as the machine has cores to spare at that moment
//! ([`spare_threads`]).

use std::path::Path;

use clawmux_core::wire::Code;
use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

use crate::VoiceError;

/// The rate Whisper hears at.
pub const SAMPLE_RATE: u32 = 16_000;
/// Whisper's window: 30 s, 1,500 encoder positions (50 a second).
const POSITIONS_PER_SECOND: f32 = 50.0;
const MAX_POSITIONS: i32 = 1500;

/// A loaded model.
pub struct Engine {
    context: WhisperContext,
    threads: i32,
}

fn unusable(message: impl Into<String>) -> VoiceError {
    VoiceError::new(Code::ModelUnusable, message)
}

impl Engine {
    /// Loads the model at `path`, to run on at most `threads` threads.
    pub fn load(path: &Path, threads: usize) -> Result<Engine, VoiceError> {
        let name = path
            .to_str()
            .ok_or_else(|| unusable("the model's path is not UTF-8"))?;
        let context = WhisperContext::new_with_params(name, WhisperContextParameters::default())
            .map_err(|e| unusable(format!("cannot load {}: {e}", path.display())))?;
        Ok(Engine {
            context,
            threads: i32::try_from(threads.clamp(1, 8)).unwrap_or(1),
        })
    }

    /// The words in `samples` (16 kHz mono); an empty result is `nothing_heard`. A `prompt` (the words
    /// expected: the agents' names, the answers to an open request) biases the recognizer towards them,
    /// which short answers need ("allow" is otherwise heard as "below").
    pub fn transcribe(&self, samples: &[f32], prompt: Option<&str>) -> Result<String, VoiceError> {
        let mut state = self
            .context
            .create_state()
            .map_err(|e| unusable(format!("cannot start the engine: {e}")))?;
        let mut params = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
        params.set_n_threads(spare_threads(self.threads));
        params.set_language(Some("en"));
        params.set_translate(false);
        params.set_no_context(true);
        params.set_single_segment(true);
        params.set_print_progress(false);
        params.set_print_realtime(false);
        params.set_print_special(false);
        params.set_print_timestamps(false);
        params.set_suppress_blank(true);
        if let Some(prompt) = prompt.filter(|p| !p.is_empty()) {
            params.set_initial_prompt(prompt);
            // A prompt invites the small models to say the answer over and over, and each repeat costs a
            // decoding step: an utterance's words are bounded by its length.
            let seconds = samples.len() as f32 / SAMPLE_RATE as f32;
            params.set_max_tokens((16.0 + seconds * 8.0) as i32);
        }
        // The clip's length and a second more, not the whole 30 s window.
        let seconds = samples.len() as f32 / SAMPLE_RATE as f32;
        let positions = ((seconds + 1.0) * POSITIONS_PER_SECOND).ceil() as i32;
        params.set_audio_ctx(positions.min(MAX_POSITIONS));
        // Whisper wants at least a second; a shorter clip is padded with silence.
        let mut padded;
        let audio = if samples.len() < SAMPLE_RATE as usize {
            padded = samples.to_vec();
            padded.resize(SAMPLE_RATE as usize + 1, 0.0);
            &padded[..]
        } else {
            samples
        };
        state
            .full(params, audio)
            .map_err(|e| unusable(format!("the engine failed: {e}")))?;
        let mut text = String::new();
        for segment in state.as_iter() {
            text.push_str(&segment.to_string());
        }
        let words = text.trim().to_owned();
        if words.is_empty() || is_only_a_tag(&words) {
            return Err(VoiceError::new(
                Code::NothingHeard,
                "no words were heard in the recording",
            ));
        }
        Ok(words)
    }
}

/// How many of `most` threads a transcription takes now: all while the cores are free, else one. The
/// kernel says how many tasks are runnable this moment and on average over the last minute
/// (`/proc/loadavg`); a machine where it cannot be read is taken as free.
fn spare_threads(most: i32) -> i32 {
    if most <= 1 {
        return most;
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) as f32;
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(load) if busy(&load, cores, most as f32) => 1,
        Ok(_) | Err(_) => most,
    }
}

/// Whether `loadavg` (`/proc/loadavg`'s line) says fewer than `threads` of `cores` are free now (its
/// runnable tasks, this one among them), or that every core was busy over the last minute (the hub's own
/// transcriptions alone never make it so).
fn busy(loadavg: &str, cores: f32, threads: f32) -> bool {
    let mut fields = loadavg.split_whitespace();
    let minute: f32 = fields.next().and_then(|f| f.parse().ok()).unwrap_or(0.0);
    let runnable: f32 = fields
        .nth(2)
        .and_then(|f| f.split('/').next())
        .and_then(|f| f.parse().ok())
        .unwrap_or(1.0);
    let others_now = (runnable - 1.0).max(0.0);
    minute >= cores || others_now + threads > cores
}

/// Whisper's way of saying it heard no speech: `[BLANK_AUDIO]`, `(silence)` and the like.
fn is_only_a_tag(text: &str) -> bool {
    let t = text.trim();
    (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('(') && t.ends_with(')'))
}

/// A WAV recording's samples as mono f32, and its rate.
pub fn decode_wav(bytes: &[u8]) -> Result<(Vec<f32>, u32), VoiceError> {
    let bad =
        |e: hound::Error| VoiceError::new(Code::NotAudio, format!("not a WAV recording: {e}"));
    let mut reader = hound::WavReader::new(std::io::Cursor::new(bytes)).map_err(bad)?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels.max(1));
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader
            .samples::<f32>()
            .collect::<Result<_, _>>()
            .map_err(bad)?,
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|s| s as f32 * scale))
                .collect::<Result<_, _>>()
                .map_err(bad)?
        }
    };
    let mono = interleaved
        .chunks(channels)
        .map(|frame| frame.iter().sum::<f32>() / channels as f32)
        .collect();
    Ok((mono, spec.sample_rate))
}

/// `samples` at `rate` resampled to 16 kHz (rubato's FFT resampler; a copy when already 16 kHz).
pub fn to_16k(samples: &[f32], rate: u32) -> Result<Vec<f32>, VoiceError> {
    use rubato::Resampler;
    if rate == SAMPLE_RATE || samples.is_empty() {
        return Ok(samples.to_vec());
    }
    let fail = |e: &dyn std::fmt::Display| {
        VoiceError::new(
            Code::NotAudio,
            format!("cannot resample the recording from {rate} Hz: {e}"),
        )
    };
    let chunk = 1024;
    let mut resampler =
        rubato::FftFixedIn::<f32>::new(rate as usize, SAMPLE_RATE as usize, chunk, 2, 1)
            .map_err(|e| fail(&e))?;
    let mut out = Vec::with_capacity(samples.len() * SAMPLE_RATE as usize / rate as usize + chunk);
    let mut rest = samples;
    while rest.len() >= chunk {
        let (now, later) = rest.split_at(chunk);
        let frames = resampler.process(&[now], None).map_err(|e| fail(&e))?;
        out.extend_from_slice(&frames[0]);
        rest = later;
    }
    // A recording of a whole number of chunks leaves nothing here (an empty input is an error to rubato;
    // browsers record in blocks of 128 frames, so one recording in eight is such a one).
    if !rest.is_empty() {
        let frames = resampler
            .process_partial(Some(&[rest]), None)
            .map_err(|e| fail(&e))?;
        out.extend_from_slice(&frames[0]);
    }
    // What the resampler still holds (its delay) comes out with an empty last call.
    let frames = resampler
        .process_partial::<&[f32]>(None, None)
        .map_err(|e| fail(&e))?;
    out.extend_from_slice(&frames[0]);
    let delay = resampler.output_delay();
    let wanted = samples.len() * SAMPLE_RATE as usize / rate as usize;
    Ok(out.into_iter().skip(delay).take(wanted).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_machine_gets_one_thread_a_free_one_all() {
        // Two cores, two threads wanted.
        assert!(!busy("0.10 0.20 0.30 1/300 4242", 2.0, 2.0), "idle");
        assert!(
            busy("2.10 1.20 0.30 1/300 4242", 2.0, 2.0),
            "busy this last minute"
        );
        assert!(
            busy("0.10 0.20 0.30 3/300 4242", 2.0, 2.0),
            "two others runnable now"
        );
        assert!(
            !busy("0.90 0.20 0.30 1/300 4242", 2.0, 2.0),
            "its own hearing of late"
        );
        assert!(!busy("garbage", 2.0, 2.0));
        assert_eq!(spare_threads(1), 1);
    }

    #[test]
    fn a_recording_of_whole_chunks_is_resampled_too() {
        // 112 chunks of 1,024 frames at 44.1 kHz: 2.6 s, as a browser's 128-frame blocks can add up to.
        let samples = vec![0.25f32; 1024 * 112];
        let out = to_16k(&samples, 44_100).unwrap();
        assert_eq!(out.len(), 1024 * 112 * 16_000 / 44_100);
        let one_more = vec![0.25f32; 1024 * 112 + 1];
        assert!(to_16k(&one_more, 44_100).is_ok());
    }

    #[test]
    fn resampling_keeps_the_length_and_the_tone() {
        // One second of 440 Hz at 48 kHz: one second at 16 kHz, still 440 Hz (zero crossings).
        let tone: Vec<f32> = (0..48_000)
            .map(|i| (i as f32 * 440.0 * std::f32::consts::TAU / 48_000.0).sin())
            .collect();
        let out = to_16k(&tone, 48_000).unwrap();
        assert_eq!(out.len(), 16_000);
        let crossings = out.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
        assert!((438..=442).contains(&crossings), "{crossings}");
    }

    #[test]
    fn a_wav_is_read_as_mono() {
        let mut bytes = std::io::Cursor::new(Vec::new());
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: 22_050,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::new(&mut bytes, spec).unwrap();
        for _ in 0..100 {
            w.write_sample(16384i16).unwrap();
            w.write_sample(0i16).unwrap();
        }
        w.finalize().unwrap();
        let (mono, rate) = decode_wav(bytes.get_ref()).unwrap();
        assert_eq!((mono.len(), rate), (100, 22_050));
        assert!((mono[0] - 0.25).abs() < 1e-4);
        assert_eq!(decode_wav(b"RIFFnope").unwrap_err().code, Code::NotAudio);
    }

    #[test]
    fn whispers_silence_tags_are_nothing_heard() {
        assert!(is_only_a_tag("[BLANK_AUDIO]"));
        assert!(is_only_a_tag(" (silence) "));
        assert!(!is_only_a_tag("run the tests"));
    }
}
