//! The user's words as a search query: refused or turned into FTS5 made only of quoted strings (each
//! optionally a prefix), so no word can be read as FTS5's own syntax.
#![no_main]

use clawmux_core::search::fts_query;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(words) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(q) = fts_query(words) else {
        return;
    };
    // Quoted strings separated by single spaces; inside, a quote only doubled.
    let mut chars = q.chars().peekable();
    loop {
        assert_eq!(chars.next(), Some('"'), "{q}");
        loop {
            match chars.next() {
                Some('"') if chars.peek() == Some(&'"') => {
                    chars.next();
                }
                Some('"') => break,
                Some(_) => {}
                None => panic!("unterminated: {q}"),
            }
        }
        if chars.peek() == Some(&'*') {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some(' ') => {}
            Some(c) => panic!("{c:?} between terms: {q}"),
        }
    }
});
