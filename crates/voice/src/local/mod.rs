//! Speech to text on the device: whisper.cpp (through `whisper-rs`) with a model downloaded on first use.
//!
//! The models are whisper.cpp's own files, pinned by size and SHA-256: a download is checked before it is
//! renamed into place, so a model file in the folder is always a whole, known one. Nothing is shipped with
//! the app; the user picks a model by the disk it takes and how well it hears.

mod download;
mod engine;
mod sound;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use download::{download, part_path, Cancel, Progress, Timeouts};
pub use engine::{decode_wav, to_16k, Engine, SAMPLE_RATE};
pub use sound::{sound, speech_seconds};

/// Where whisper.cpp's models are published.
const MODEL_BASE: &str = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

/// A whisper.cpp model the app can download (English-only: the app's users dictate to their agents in
/// English; the English models are smaller and better at it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalModel {
    /// 75 MiB: the fastest, the least accurate.
    #[serde(rename = "tiny.en")]
    TinyEn,
    /// 141 MiB: the default, fast and good on two cores.
    #[serde(rename = "base.en")]
    BaseEn,
    /// 465 MiB: the most accurate here, about three times slower than base.
    #[serde(rename = "small.en")]
    SmallEn,
}

/// What a model file must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFile {
    /// Where it is published.
    pub url: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

impl LocalModel {
    /// Every model offered.
    pub const ALL: [LocalModel; 3] = [LocalModel::TinyEn, LocalModel::BaseEn, LocalModel::SmallEn];

    /// Its name (`base.en`).
    pub fn name(self) -> &'static str {
        match self {
            LocalModel::TinyEn => "tiny.en",
            LocalModel::BaseEn => "base.en",
            LocalModel::SmallEn => "small.en",
        }
    }

    /// The file's name in the models folder.
    pub fn file_name(self) -> String {
        format!("ggml-{}.bin", self.name())
    }

    /// The published file, pinned.
    pub fn file(self) -> ModelFile {
        let (size, sha256) = match self {
            LocalModel::TinyEn => (
                77_704_715,
                "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f",
            ),
            LocalModel::BaseEn => (
                147_964_211,
                "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002",
            ),
            LocalModel::SmallEn => (
                487_614_201,
                "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d",
            ),
        };
        ModelFile {
            url: format!("{MODEL_BASE}/{}", self.file_name()),
            size,
            sha256: sha256.to_owned(),
        }
    }

    /// Where it is kept in `models_dir`.
    pub fn path(self, models_dir: &Path) -> PathBuf {
        models_dir.join(self.file_name())
    }
}

impl std::fmt::Display for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for LocalModel {
    type Err = String;

    fn from_str(s: &str) -> Result<LocalModel, String> {
        LocalModel::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("no model `{s}` (tiny.en, base.en, small.en)"))
    }
}

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
