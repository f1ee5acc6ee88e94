//! A transcript's bytes as the watcher reads them: in two reads cut at an arbitrary point, split into
//! lines (a half line waits for the next read), each line parsed.
#![no_main]

use clawmux_core::transcript::{parse_line, Lines};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.first().map_or(0, |b| usize::from(*b)).min(data.len());
    let (first, second) = data.split_at(cut);
    let mut lines = Lines::default();
    let mut all = lines.feed(first);
    all.extend(lines.feed(second));
    for line in all {
        assert!(line.len() <= clawmux_core::transcript::MAX_LINE);
        let _ = parse_line(&line);
        let _ = clawmux_core::search::session_line(&line);
    }
});
