//! Tests of `demo.rs`.

use super::parse_line;

#[test]
fn reads_wait_lines() {
    assert_eq!(
        parse_line("[MSG id:msg-0000000a from:user] hello there"),
        Some(("msg-0000000a".into(), "hello there".into()))
    );
    assert_eq!(
        parse_line("[VOICE id:msg-0000000b from:user] hi"),
        Some(("msg-0000000b".into(), "hi".into()))
    );
    assert_eq!(parse_line("[SYSTEM] x"), None);
}
