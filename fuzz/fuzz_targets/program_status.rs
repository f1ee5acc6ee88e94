//! A terminal's output as the agent's bridge scans it for status reports: whatever the bytes and however
//! they are cut into chunks, no panic, the same findings as the stream read whole, and every text found
//! printable and bounded.
#![no_main]

use clawmux_core::program_status::{Heard, Scanner};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    let whole = Scanner::new().feed(stream);
    let at = usize::from(cut).min(stream.len());
    let mut chunked = Scanner::new();
    let mut heard = chunked.feed(&stream[..at]);
    heard.extend(chunked.feed(&stream[at..]));
    assert_eq!(heard, whole);
    for h in &whole {
        if let Heard::Report(r) = h {
            for text in [&r.msg, &r.title, &r.id, &r.kind].into_iter().flatten() {
                assert!(!text.chars().any(char::is_control), "{text:?}");
                assert!(text.chars().count() <= 201);
            }
            assert!(r.progress.is_none_or(|p| p <= 100));
        }
    }
});
