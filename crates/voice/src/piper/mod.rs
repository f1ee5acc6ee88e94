//! The device's own voice: a Piper voice (VITS, exported to ONNX) run on the device by RTen, a pure-Rust
//! ONNX runtime, so speaking needs no service, no account and no binary beyond the crates the build
//! compiles. The voice's files come from Piper's publisher on first use, pinned by size and SHA-256
//! ([`LocalVoice`]), and are downloaded as the speech models are.
//!
//! Text is cut into sentences; each becomes phoneme ids ([`phonemes`]: espeak-ng, as Piper's voices were
//! trained) and is spoken on its own, with a short pause between sentences. A voice is given in
//! [`Variant`]s: each agent's is the voice a little higher or lower, at the same pace, so the user knows
//! who speaks without looking.

mod phonemes;

use std::collections::HashMap;
use std::path::Path;

use clawmux_core::wire::Code;
use rten::{Model, NodeId};
use rten_tensor::prelude::*;
use rten_tensor::NdTensor;
use serde::Deserialize;

pub use clawmux_core::models::LocalVoice;

use crate::VoiceError;

/// The pause between two sentences, in seconds.
const SENTENCE_PAUSE: f32 = 0.2;
/// How far apart a variant's pitch is from the next one's.
const PITCH_STEP: f32 = 0.06;

/// A variant of a voice: `0` is the voice as it is, each step above or below a little higher or lower
/// (at most [`Variant::MAX`] steps either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(try_from = "i8", into = "i8")]
pub struct Variant(i8);

impl TryFrom<i8> for Variant {
    type Error = String;

    fn try_from(steps: i8) -> Result<Variant, String> {
        Variant::new(steps).ok_or_else(|| {
            format!(
                "a voice's variant is -{m} to {m}, not {steps}",
                m = Variant::MAX
            )
        })
    }
}

impl From<Variant> for i8 {
    fn from(v: Variant) -> i8 {
        v.0
    }
}

impl Variant {
    /// The furthest a variant goes from the voice, in steps.
    pub const MAX: i8 = 2;

    /// The variant `steps` from the voice, if it is one.
    pub fn new(steps: i8) -> Option<Variant> {
        (-Variant::MAX..=Variant::MAX)
            .contains(&steps)
            .then_some(Variant(steps))
    }

    /// How much higher (above 1) or lower its pitch is than the voice's.
    fn pitch(self) -> f32 {
        1.0 + PITCH_STEP * f32::from(self.0)
    }
}

/// What a voice's `.onnx.json` says that speaking needs.
#[derive(Debug, Deserialize)]
struct Config {
    audio: AudioConfig,
    espeak: EspeakConfig,
    inference: Inference,
    phoneme_id_map: HashMap<String, Vec<i64>>,
    #[serde(default)]
    num_speakers: u32,
}

#[derive(Debug, Deserialize)]
struct AudioConfig {
    sample_rate: u32,
}

#[derive(Debug, Deserialize)]
struct EspeakConfig {
    voice: String,
}

#[derive(Debug, Deserialize)]
struct Inference {
    noise_scale: f32,
    length_scale: f32,
    noise_w: f32,
}

/// Speech made on the device: 16-bit mono samples and the rate to play them at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Speech {
    /// The samples.
    pub samples: Vec<i16>,
    /// Samples per second.
    pub rate: u32,
}

impl Speech {
    /// How long it lasts.
    pub fn seconds(&self) -> f64 {
        self.samples.len() as f64 / f64::from(self.rate.max(1))
    }

    /// As a WAV file (16-bit PCM, mono).
    pub fn wav(&self) -> Vec<u8> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut out = std::io::Cursor::new(Vec::with_capacity(44 + self.samples.len() * 2));
        // Writing to memory fails only on a size beyond a WAV's 4 GiB, which a bounded text never makes.
        if let Ok(mut writer) = hound::WavWriter::new(&mut out, spec) {
            for &s in &self.samples {
                let _ = writer.write_sample(s);
            }
            let _ = writer.finalize();
        }
        out.into_inner()
    }
}

/// A Piper voice, loaded: the network and what its config says.
pub struct Piper {
    model: Model,
    config: Config,
    input: NodeId,
    lengths: NodeId,
    scales: NodeId,
    output: NodeId,
}

fn unusable(what: impl std::fmt::Display) -> VoiceError {
    VoiceError::new(
        Code::ModelUnusable,
        format!("the voice cannot be used: {what}"),
    )
}

impl Piper {
    /// Loads the voice in `onnx` with its config `json`.
    pub fn load(onnx: &Path, json: &Path) -> Result<Piper, VoiceError> {
        let text = std::fs::read_to_string(json).map_err(unusable)?;
        let config: Config = serde_json::from_str(&text).map_err(unusable)?;
        if config.num_speakers > 1 {
            return Err(unusable("a voice of several speakers is not taken"));
        }
        let model = Model::load_file(onnx).map_err(unusable)?;
        let node = |name: &str| {
            model
                .find_node(name)
                .ok_or_else(|| unusable(format!("it has no `{name}`")))
        };
        let (input, lengths, scales) = (node("input")?, node("input_lengths")?, node("scales")?);
        let output = *model
            .output_ids()
            .first()
            .ok_or_else(|| unusable("it has no output"))?;
        Ok(Piper {
            model,
            config,
            input,
            lengths,
            scales,
            output,
        })
    }

    /// `text` spoken in `variant` of the voice, sentence by sentence.
    pub fn speak(&self, text: &str, variant: Variant) -> Result<Speech, VoiceError> {
        let sentences = phonemes::sentences(text);
        let clauses: Vec<&phonemes::Clause> = sentences.iter().flatten().collect();
        if clauses.is_empty() {
            return Err(VoiceError::new(
                Code::BadText,
                "there are no words to speak",
            ));
        }
        let mut sounds = phonemes::phonemize(&self.config.espeak.voice, &clauses)?.into_iter();
        let whole = sounds.len() == clauses.len();
        let pitch = variant.pitch();
        let pause = vec![0i16; (SENTENCE_PAUSE * self.config.audio.sample_rate as f32) as usize];
        let mut samples = Vec::new();
        let sentence_clauses: Vec<Vec<(String, char)>> = if whole {
            sentences
                .iter()
                .map(|s| {
                    s.iter()
                        .map(|c| (sounds.next().unwrap_or_default(), c.ends))
                        .collect()
                })
                .collect()
        } else {
            vec![vec![(sounds.next().unwrap_or_default(), '.')]]
        };
        for (i, sentence) in sentence_clauses.iter().enumerate() {
            if i > 0 {
                samples.extend_from_slice(&pause);
            }
            let ids = phonemes::ids(&self.config.phoneme_id_map, sentence)?;
            samples.extend(self.run(&ids, pitch)?);
        }
        // Played faster by the pitch (the rate the file says), made slower by it: the same pace, higher.
        let rate = (self.config.audio.sample_rate as f32 * pitch).round() as u32;
        Ok(Speech { samples, rate })
    }

    /// One sentence's ids through the network, as samples at the voice's rate (its loudest at full
    /// scale, as Piper does), `stretch` times longer than the voice would say them.
    fn run(&self, ids: &[i64], stretch: f32) -> Result<Vec<i16>, VoiceError> {
        let ids: Vec<i32> = ids.iter().map(|&i| i32::try_from(i).unwrap_or(0)).collect();
        let n = ids.len();
        let input = NdTensor::from_data([1, n], ids);
        let lengths = NdTensor::from_data([1], vec![i32::try_from(n).unwrap_or(i32::MAX)]);
        let inference = &self.config.inference;
        let scales = NdTensor::from_data(
            [3],
            vec![
                inference.noise_scale,
                inference.length_scale * stretch,
                inference.noise_w,
            ],
        );
        let out = self
            .model
            .run(
                vec![
                    (self.input, input.view().into()),
                    (self.lengths, lengths.view().into()),
                    (self.scales, scales.view().into()),
                ],
                &[self.output],
                None,
            )
            .map_err(|e| VoiceError::new(Code::SpeechFailed, format!("the voice failed: {e}")))?;
        let audio: rten_tensor::Tensor<f32> = out
            .into_iter()
            .next()
            .ok_or_else(|| unusable("it gave no audio"))?
            .try_into()
            .map_err(|_| unusable("its audio is not samples"))?;
        let samples = audio.to_vec();
        let peak = samples.iter().fold(0.01f32, |m, s| m.max(s.abs()));
        let scale = 32_767.0 / peak;
        Ok(samples.iter().map(|s| (s * scale) as i16).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_bounded_and_the_wav_says_its_rate() {
        assert_eq!(Variant::new(3), None);
        assert_eq!(Variant::new(-3), None);
        assert!(serde_json::from_str::<Variant>("3").is_err());
        assert_eq!(
            serde_json::from_str::<Variant>("-2").unwrap(),
            Variant::new(-2).unwrap()
        );
        assert!(Variant::new(2).unwrap().pitch() > Variant::default().pitch());
        let speech = Speech {
            samples: vec![1, -2, 3],
            rate: 23_373,
        };
        let wav = speech.wav();
        assert_eq!(wav.len(), 44 + 6);
        let (samples, rate) = crate::local::decode_wav(&wav).unwrap();
        assert_eq!(rate, 23_373);
        assert_eq!(samples.len(), 3);
    }

    #[test]
    fn a_voice_that_is_not_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (onnx, json) = (dir.path().join("v.onnx"), dir.path().join("v.onnx.json"));
        std::fs::write(&onnx, b"not a network").unwrap();
        std::fs::write(&json, b"{}").unwrap();
        assert_eq!(
            Piper::load(&onnx, &json).err().unwrap().code,
            Code::ModelUnusable
        );
    }
}
