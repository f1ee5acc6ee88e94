//! The tape every source records onto: 16-bit mono samples at the source's rate, up to the size the hub
//! takes, turned into a WAV file at the end.

use std::io::Cursor;
use std::sync::{Arc, Mutex, PoisonError};

use cpal::{FromSample, Sample};

use crate::{CaptureError, Clip};

/// The largest WAV kept (the hub's and OpenAI's transcription limit, 25 MiB): about 4.5 minutes at 48 kHz.
pub const MAX_WAV_BYTES: usize = 25 * 1024 * 1024;
const WAV_HEADER: usize = 44;
const MAX_SAMPLES: usize = (MAX_WAV_BYTES - WAV_HEADER) / 2;

/// Shared between the source's thread (which writes) and the recording (which reads at the end).
#[derive(Debug, Clone)]
pub struct Tape(Arc<Mutex<Inner>>);

#[derive(Debug)]
struct Inner {
    rate: u32,
    samples: Vec<i16>,
    truncated: bool,
    failure: Option<String>,
}

impl Tape {
    /// An empty tape for a source of `rate` samples per second.
    pub fn new(rate: u32) -> Tape {
        Tape(Arc::new(Mutex::new(Inner {
            rate,
            samples: Vec::with_capacity(rate as usize * 10),
            truncated: false,
            failure: None,
        })))
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends interleaved frames of `channels` samples, each frame mixed down to one sample.
    pub fn record<T>(&self, data: &[T], channels: usize)
    where
        T: Sample,
        i16: FromSample<T>,
    {
        let channels = channels.max(1);
        let mut inner = self.inner();
        for frame in data.chunks_exact(channels) {
            if inner.samples.len() >= MAX_SAMPLES {
                inner.truncated = true;
                return;
            }
            let sum: i32 = frame.iter().map(|&s| i32::from(i16::from_sample(s))).sum();
            // The mean of i16 values is an i16.
            let mean = i16::try_from(sum / channels as i32).unwrap_or(0);
            inner.samples.push(mean);
        }
    }

    /// Notes that the source failed; what was recorded before is kept.
    pub fn fail(&self, why: String) {
        self.inner().failure.get_or_insert(why);
    }

    /// Takes what was recorded since the last drain (hands-free listening keeps no tape), and whether
    /// the source failed since (then nothing more will come).
    pub fn drain(&self) -> (Vec<i16>, Option<String>) {
        let mut inner = self.inner();
        let samples = std::mem::take(&mut inner.samples);
        (samples, inner.failure.clone())
    }

    /// The source's rate, samples per second.
    pub fn rate(&self) -> u32 {
        self.inner().rate
    }

    /// The recording as a WAV file.
    pub fn to_clip(&self) -> Result<Clip, CaptureError> {
        let inner = self.inner();
        if inner.samples.is_empty() {
            return Err(match &inner.failure {
                Some(why) => CaptureError::Device(why.clone()),
                None => CaptureError::Empty,
            });
        }
        if let Some(why) = &inner.failure {
            tracing::warn!(%why, "the microphone failed during the recording; keeping what it heard");
        }
        Ok(Clip {
            wav: wav(inner.rate, &inner.samples)?,
            millis: millis(inner.rate, inner.samples.len()),
            truncated: inner.truncated,
        })
    }
}

/// `samples` at `rate` as a WAV file: 16-bit PCM, mono.
pub fn wav(rate: u32, samples: &[i16]) -> Result<Vec<u8>, CaptureError> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut wav = Vec::with_capacity(WAV_HEADER + samples.len() * 2);
    let written = (|| {
        let mut writer = hound::WavWriter::new(Cursor::new(&mut wav), spec)?;
        let mut out = writer.get_i16_writer(samples.len() as u32);
        for &s in samples {
            out.write_sample(s);
        }
        out.flush()?;
        writer.finalize()
    })();
    written.map_err(|e| CaptureError::Device(format!("cannot write the WAV: {e}")))?;
    Ok(wav)
}

/// How long `count` samples at `rate` last, in milliseconds.
pub fn millis(rate: u32, count: usize) -> u64 {
    count as u64 * 1000 / u64::from(rate.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_mixed_down_and_written_as_16_bit_mono() {
        let tape = Tape::new(16_000);
        tape.record(&[1000i16, 3000, -2000, -4000], 2);
        tape.record(&[0.5f32, 0.5], 2);
        let clip = tape.to_clip().unwrap();
        let mut reader = hound::WavReader::new(&clip.wav[..]).unwrap();
        let spec = reader.spec();
        assert_eq!(
            (spec.channels, spec.sample_rate, spec.bits_per_sample),
            (1, 16_000, 16)
        );
        let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
        assert_eq!(samples, [2000, -3000, 16384]);
        assert_eq!(clip.wav.len(), 44 + 6);
        assert!(!clip.truncated);
    }

    #[test]
    fn nothing_recorded_says_why() {
        assert_eq!(Tape::new(8000).to_clip(), Err(CaptureError::Empty));
        let tape = Tape::new(8000);
        tape.fail("unplugged".into());
        assert_eq!(
            tape.to_clip(),
            Err(CaptureError::Device("unplugged".into()))
        );
        tape.record(&[1i16], 1);
        assert!(
            tape.to_clip().is_ok(),
            "what was heard before a failure is kept"
        );
    }

    #[test]
    fn the_tape_stops_at_the_size_the_hub_takes() {
        let tape = Tape::new(48_000);
        let second = vec![7i16; 48_000];
        for _ in 0..300 {
            tape.record(&second, 1);
        }
        let clip = tape.to_clip().unwrap();
        assert!(clip.truncated);
        assert!(clip.wav.len() <= MAX_WAV_BYTES && clip.wav.len() > MAX_WAV_BYTES - 4);
    }
}
