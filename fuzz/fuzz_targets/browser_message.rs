//! One WebSocket text frame from a browser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = clawmux_core::wire::parse_client_message(text);
    }
});
