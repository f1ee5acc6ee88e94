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

/// The device voice's files (Piper's en_US-joe-medium, the network and its config), fetched by
/// `scripts/voice-test-model`; `CLAWMUX_TEST_VOICES` names the folder they are in.
#[allow(dead_code)]
pub fn voice_paths() -> (PathBuf, PathBuf) {
    let dir = std::env::var_os("CLAWMUX_TEST_VOICES")
        .map(PathBuf::from)
        .unwrap_or_else(|| model_path().parent().unwrap().with_file_name("piper"));
    let onnx = dir.join("en_US-joe-medium.onnx");
    assert!(
        onnx.exists(),
        "the test voice {} is missing: run scripts/voice-test-model",
        onnx.display()
    );
    (onnx, dir.join("en_US-joe-medium.onnx.json"))
}
