//! The `clawmux-statusline` program as Claude Code runs it: the payload on stdin, its stdout the line.
//! (Its work with a real hub is tested end to end in the `clawmux` package, beside the hub's tests.)

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

const PROGRAM: &str = env!("CARGO_BIN_EXE_clawmux-statusline");

fn run(args: &[&str], payload: &str, home: &std::path::Path) -> Output {
    let mut child = Command::new(PROGRAM)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A program that refuses its arguments exits without reading: the payload then finds no reader.
    match child.stdin.take().unwrap().write_all(payload.as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("the payload was not written: {e}"),
    }
    child.wait_with_output().unwrap()
}

#[test]
fn with_no_hub_it_prints_its_own_line() {
    let home = tempfile::tempdir().unwrap();
    let payload =
        r#"{"session_id":"s1","model":{"display_name":"Opus 5.5"},"cost":{"total_cost_usd":0.5}}"#;
    for args in [&[][..], &["--observe"][..]] {
        let out = run(args, payload, home.path());
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Opus 5.5 · $0.50\n");
    }
    // Nothing was written in the home it was given (no hub: nowhere to keep anything).
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
}

#[test]
fn a_wrong_argument_is_said_and_nothing_runs() {
    let home = tempfile::tempdir().unwrap();
    let out = run(&["--then"], "{}", home.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "clawmux-statusline: --then needs a value\n"
    );
    assert!(out.stdout.is_empty());
    let out = run(&["statusline"], "{}", home.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument `statusline`"));
}

/// What keeps it fast to start: no C++ runtime (whisper.cpp's, which `clawmux` carries).
#[test]
fn it_needs_no_cpp_runtime() {
    // `ldd` is Debian's libc-bin, on every machine.
    let ldd = Command::new("ldd").arg(PROGRAM).output().unwrap();
    assert!(ldd.status.success());
    let needed = String::from_utf8_lossy(&ldd.stdout);
    assert!(!needed.contains("libstdc++"), "{needed}");
}
