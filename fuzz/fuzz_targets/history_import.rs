//! A `history.json` of the original hub, checked as the importer checks it before writing anything.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = clawmux_store::check_history(data);
});
