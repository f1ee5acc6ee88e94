//! The voices the device can download, pinned: Piper's own files from its publisher's repository, each by
//! size and SHA-256, as the speech models are.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::local::ModelFile;

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
