//! What the voice tests share: the real test model.

use std::path::PathBuf;

/// The converted test model (Whisper tiny.en): made by `scripts/voice-test-model`, which `scripts/test`
/// runs first; `CLAWMUX_TEST_MODEL` names another.
pub fn model_path() -> PathBuf {
    let path = std::env::var_os("CLAWMUX_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
            cache.join("clawmux-tests/whisper/ggml-tiny.en.bin")
        });
    assert!(
        path.exists(),
        "the test model {} is missing: run scripts/voice-test-model",
        path.display()
    );
    path
}
