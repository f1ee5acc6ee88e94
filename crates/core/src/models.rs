//! The speech models and voices the device can download, by name and pinned (each file by size and
//! SHA-256): what the settings, the commands and the download progress name, and what the voice crate
//! fetches and checks. Names and data only; the downloads are the voice crate's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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

/// Where Piper's voices are published.
const VOICE_BASE: &str = "https://huggingface.co/rhasspy/piper-voices/resolve/main";

/// A voice the device can speak with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalVoice {
    /// "joe", US English, medium quality (60 MiB): a warm male voice, CC0.
    #[serde(rename = "en_US-joe-medium")]
    JoeMedium,
}

impl LocalVoice {
    /// Every voice offered.
    pub const ALL: [LocalVoice; 1] = [LocalVoice::JoeMedium];

    /// Its name, Piper's (`en_US-joe-medium`).
    pub fn name(self) -> &'static str {
        match self {
            LocalVoice::JoeMedium => "en_US-joe-medium",
        }
    }

    /// Its folder in the publisher's repository.
    fn folder(self) -> &'static str {
        match self {
            LocalVoice::JoeMedium => "en/en_US/joe/medium",
        }
    }

    /// The network (`.onnx`) and its config (`.onnx.json`), pinned.
    pub fn files(self) -> [ModelFile; 2] {
        let ((size, sha256), (config_size, config_sha256)) = match self {
            LocalVoice::JoeMedium => (
                (
                    63_201_294,
                    "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
                ),
                (
                    4_794,
                    "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
                ),
            ),
        };
        let [network, config] = self.file_names();
        let url = |file: &str| format!("{VOICE_BASE}/{}/{file}", self.folder());
        [
            ModelFile {
                url: url(&network),
                size,
                sha256: sha256.to_owned(),
            },
            ModelFile {
                url: url(&config),
                size: config_size,
                sha256: config_sha256.to_owned(),
            },
        ]
    }

    /// The files' names: `<name>.onnx`, `<name>.onnx.json`.
    pub fn file_names(self) -> [String; 2] {
        [
            format!("{}.onnx", self.name()),
            format!("{}.onnx.json", self.name()),
        ]
    }

    /// Where its files are kept in `models_dir`.
    pub fn paths(self, models_dir: &Path) -> [PathBuf; 2] {
        self.file_names().map(|f| models_dir.join(f))
    }

    /// Its size in bytes, all files.
    pub fn size(self) -> u64 {
        self.files().iter().map(|f| f.size).sum()
    }
}

impl std::fmt::Display for LocalVoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voices_are_pinned_and_named_alike_everywhere() {
        for v in LocalVoice::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
            let files = v.files();
            for (file, name) in files.iter().zip(v.file_names()) {
                assert!(file.url.ends_with(&format!("/{name}")), "{}", file.url);
                assert!(file.url.starts_with("https://"));
                assert_eq!(file.sha256.len(), 64);
            }
            assert!(v.size() > 60 << 20);
        }
    }
}
