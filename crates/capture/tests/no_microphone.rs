//! A machine without a microphone: ALSA is given a configuration with no devices at all (so the answer
//! does not depend on the machine's sound cards); the recording does not start and says why.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use clawmux_capture::{start, CaptureError, Source};

#[test]
fn without_any_input_device_the_recording_says_so_and_does_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("asound.conf");
    std::fs::write(&config, "# no devices\n").unwrap();
    // One test in its own binary: this process's ALSA reads only the empty configuration.
    std::env::set_var("ALSA_CONFIG_PATH", &config);
    match start(&Source::Microphone) {
        Err(e) => {
            assert_eq!(e, CaptureError::NoMicrophone);
            println!("without a microphone: {e}");
        }
        Ok(_) => panic!("a recording started without any device"),
    }
}
