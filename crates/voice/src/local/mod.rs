//! Speech to text on the device: whisper.cpp (through `whisper-rs`) with a model downloaded on first use.
//!
//! The models are whisper.cpp's own files, pinned by size and SHA-256: a download is checked before it is
//! renamed into place, so a model file in the folder is always a whole, known one. Nothing is shipped with
//! the app; the user picks a model by the disk it takes and how well it hears.

mod download;
mod engine;
mod sound;

pub use clawmux_core::models::{LocalModel, ModelFile};
pub use download::{download, part_path, Cancel, Progress, Timeouts};
pub use engine::{decode_wav, to_16k, Engine, SAMPLE_RATE};
pub use sound::{sound, speech_seconds};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_read_back_by_name() {
        for m in LocalModel::ALL {
            assert_eq!(m.name().parse::<LocalModel>(), Ok(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.name());
            assert!(m.file().url.ends_with(&m.file_name()));
            assert_eq!(m.file().sha256.len(), 64);
        }
        assert!("large".parse::<LocalModel>().is_err());
    }
}
