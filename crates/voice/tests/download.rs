//! The model download with its real code, against a real HTTP server on port 0 serving the real test
//! model (whisper tiny.en, converted by `scripts/voice-test-model`): a fresh download, one resumed after
//! the connection closed mid-body, a server that ignores `Range`, a wrong hash, a cancel and a stall.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawmux_core::wire::Code;
use clawmux_voice::local::{download, ModelFile, Progress, Timeouts};
use sha2::{Digest, Sha256};

fn model() -> Vec<u8> {
    std::fs::read(common::model_path()).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// How the server misbehaves.
#[derive(Clone, Copy)]
enum Mode {
    /// Answers ranges with 206.
    Honest,
    /// Closes the first connection after this many bytes of the body.
    CloseFirstAfter(usize),
    /// Always sends the whole file with 200.
    IgnoresRange,
    /// Sends this many bytes, then nothing (the connection stays open).
    StallAfter(usize),
    /// Sends slowly: 64 KiB every 20 ms.
    Slow,
}

/// A server on port 0; returns its URL and the `Range` headers it was asked for.
fn serve(body: Arc<Vec<u8>>, mode: Mode) -> (String, Arc<Mutex<Vec<Option<String>>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/ggml-tiny.en.bin", listener.local_addr().unwrap());
    let ranges = Arc::new(Mutex::new(Vec::new()));
    let seen = ranges.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(stream) = stream else { continue };
            let (body, seen) = (body.clone(), seen.clone());
            std::thread::spawn(move || answer(stream, &body, mode, n, &seen));
        }
    });
    (url, ranges)
}

fn answer(
    mut stream: TcpStream,
    body: &[u8],
    mode: Mode,
    n: usize,
    seen: &Mutex<Vec<Option<String>>>,
) {
    let mut range = None;
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
            range = v.trim().trim_end_matches('-').parse::<usize>().ok();
        }
    }
    seen.lock()
        .unwrap()
        .push(range.map(|r| format!("bytes={r}-")));
    let from = match mode {
        Mode::IgnoresRange => 0,
        Mode::Honest | Mode::CloseFirstAfter(_) | Mode::StallAfter(_) | Mode::Slow => {
            range.unwrap_or(0)
        }
    };
    let part = &body[from..];
    let head = if from > 0 {
        format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{}\r\nConnection: close\r\n\r\n",
            part.len(),
            body.len() - 1,
            body.len()
        )
    } else {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            part.len()
        )
    };
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let _ = match mode {
        Mode::CloseFirstAfter(cut) if n == 0 => stream.write_all(&part[..cut]),
        Mode::StallAfter(cut) => {
            let _ = stream.write_all(&part[..cut.min(part.len())]);
            std::thread::sleep(Duration::from_secs(30));
            Ok(())
        }
        Mode::Slow => {
            for chunk in part.chunks(64 * 1024) {
                if stream.write_all(chunk).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(())
        }
        Mode::Honest | Mode::CloseFirstAfter(_) | Mode::IgnoresRange => stream.write_all(part),
    };
}

fn pinned(url: String, body: &[u8]) -> ModelFile {
    ModelFile {
        url,
        size: body.len() as u64,
        sha256: sha256(body),
    }
}

fn part(dest: &Path) -> PathBuf {
    PathBuf::from(format!("{}.part", dest.display()))
}

fn run(
    file: &ModelFile,
    dest: &Path,
    cancel: &AtomicBool,
) -> (Result<(), clawmux_voice::VoiceError>, Vec<Progress>) {
    let mut seen = Vec::new();
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        stall: Duration::from_millis(500),
    };
    let result = download(file, dest, timeouts, cancel, &mut |p| seen.push(p));
    (result, seen)
}

#[test]
fn a_fresh_download_is_checked_and_put_in_place() {
    let body = Arc::new(model());
    let (url, ranges) = serve(body.clone(), Mode::Honest);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("models/ggml-tiny.en.bin");
    let (result, progress) = run(&pinned(url, &body), &dest, &AtomicBool::new(false));
    result.unwrap();
    assert_eq!(std::fs::read(&dest).unwrap().len(), body.len());
    assert!(!part(&dest).exists(), "no partial file left");
    assert_eq!(*ranges.lock().unwrap(), vec![None]);
    assert_eq!(progress.last().unwrap().done, body.len() as u64);
    assert!(progress.windows(2).all(|w| w[0].done <= w[1].done));
}

#[test]
fn a_connection_closed_mid_body_is_resumed_with_a_range() {
    let body = Arc::new(model());
    let cut = body.len() / 3;
    let (url, ranges) = serve(body.clone(), Mode::CloseFirstAfter(cut));
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("ggml-tiny.en.bin");
    run(&pinned(url, &body), &dest, &AtomicBool::new(false))
        .0
        .unwrap();
    assert_eq!(sha256(&std::fs::read(&dest).unwrap()), sha256(&body));
    assert_eq!(
        *ranges.lock().unwrap(),
        vec![None, Some(format!("bytes={cut}-"))]
    );
}

#[test]
fn a_server_that_ignores_range_is_read_from_the_start() {
    let body = Arc::new(model());
    let (url, ranges) = serve(body.clone(), Mode::IgnoresRange);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("ggml-tiny.en.bin");
    // A partial file from an earlier try.
    std::fs::write(part(&dest), &body[..1000]).unwrap();
    run(&pinned(url, &body), &dest, &AtomicBool::new(false))
        .0
        .unwrap();
    assert_eq!(sha256(&std::fs::read(&dest).unwrap()), sha256(&body));
    assert_eq!(
        *ranges.lock().unwrap(),
        vec![Some("bytes=1000-".to_owned())]
    );
}

#[test]
fn a_wrong_file_is_refused_and_deleted() {
    let body = Arc::new(model());
    let (url, _) = serve(body.clone(), Mode::Honest);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("ggml-tiny.en.bin");
    let mut file = pinned(url, &body);
    file.sha256 = "0".repeat(64);
    let err = run(&file, &dest, &AtomicBool::new(false)).0.unwrap_err();
    assert_eq!(err.code, Code::DownloadFailed);
    assert!(err.message.contains("not the model"), "{}", err.message);
    assert!(!dest.exists() && !part(&dest).exists());
}

#[test]
fn a_cancel_keeps_the_partial_file_and_the_next_try_resumes_it() {
    let body = Arc::new(model());
    let (url, ranges) = serve(body.clone(), Mode::Slow);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("ggml-tiny.en.bin");
    let file = pinned(url, &body);
    let cancel = Arc::new(AtomicBool::new(false));
    let stop = cancel.clone();
    let mut seen = 0;
    let err = download(
        &file,
        &dest,
        Timeouts::default(),
        &cancel,
        &mut |p: Progress| {
            seen += 1;
            if p.done > 1_000_000 {
                stop.store(true, Ordering::SeqCst);
            }
        },
    )
    .unwrap_err();
    assert_eq!(err.code, Code::DownloadCancelled);
    assert!(!dest.exists());
    let kept = std::fs::metadata(part(&dest)).unwrap().len();
    assert!(kept > 1_000_000 && kept < body.len() as u64, "{kept}");
    assert!(seen > 1);
    // The next try asks for the rest only.
    let (url, again) = serve(body.clone(), Mode::Honest);
    let file = ModelFile { url, ..file };
    run(&file, &dest, &AtomicBool::new(false)).0.unwrap();
    assert_eq!(sha256(&std::fs::read(&dest).unwrap()), sha256(&body));
    assert_eq!(*again.lock().unwrap(), vec![Some(format!("bytes={kept}-"))]);
    drop(ranges);
}

#[test]
fn a_stalled_transfer_is_tried_again_then_given_up_keeping_what_came() {
    let body = Arc::new(model());
    let (url, _) = serve(body.clone(), Mode::StallAfter(500_000));
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("ggml-tiny.en.bin");
    let started = std::time::Instant::now();
    let err = run(&pinned(url, &body), &dest, &AtomicBool::new(false))
        .0
        .unwrap_err();
    assert_eq!(err.code, Code::DownloadFailed);
    assert!(err.message.contains("stalled"), "{}", err.message);
    assert!(started.elapsed() < Duration::from_secs(10));
    // Each try got 500,000 bytes before the server went quiet: a few tries, then the download gives up,
    // keeping everything that came.
    let kept = std::fs::metadata(part(&dest)).unwrap().len();
    assert!(kept >= 1_000_000 && kept.is_multiple_of(500_000), "{kept}");
    assert!(!dest.exists());
}

#[test]
fn an_unreachable_server_says_so() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/m.bin", listener.local_addr().unwrap());
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("m.bin");
    let file = ModelFile {
        url,
        size: 10,
        sha256: "0".repeat(64),
    };
    let err = run(&file, &dest, &AtomicBool::new(false)).0.unwrap_err();
    assert_eq!(err.code, Code::DownloadFailed);
    assert!(!dest.exists());
}
