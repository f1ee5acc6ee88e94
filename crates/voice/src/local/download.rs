//! Downloading a model: resumable, checked, cancellable, and never half in place.
//!
//! The bytes go to `<file>.part`; a partial file left by an earlier try is resumed with a `Range` request
//! (a server that answers the whole file instead is read from the start); a connection that closes early
//! is resumed the same way, a few times, as long as each try makes progress. Once the size is reached the
//! file's SHA-256 is checked, and only then is it renamed into place: a model file in the folder is always
//! whole and the pinned one. A cancel or a stall (no byte for [`Timeouts::stall`]) stops at once and keeps
//! the partial file for the next try; a wrong hash deletes it (its bytes are not the model's).
//!
//! The network is read on a thread of its own that hands chunks over a small channel: this side alone
//! writes the file, so it can give up on a stalled read at once without another writer left behind.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use clawmux_core::wire::Code;
use sha2::{Digest, Sha256};

use super::ModelFile;
use crate::VoiceError;

/// The partial file's suffix.
const PART_SUFFIX: &str = ".part";
/// Tries in one download, each of which must have made progress.
const TRIES: u32 = 5;
/// How often a waiting download looks at its cancel flag.
const TICK: Duration = Duration::from_millis(100);
const CHUNK: usize = 256 * 1024;

/// Set to stop a download (it keeps what it has).
pub type Cancel = AtomicBool;

/// How long a download waits.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// For the server to answer.
    pub connect: Duration,
    /// For the next byte of the body.
    pub stall: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(30),
            stall: Duration::from_secs(30),
        }
    }
}

/// How far a download is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes in the partial file.
    pub done: u64,
    /// Bytes in all.
    pub total: u64,
}

fn failed(message: impl Into<String>) -> VoiceError {
    VoiceError::new(Code::DownloadFailed, message)
}

/// Where the bytes of a download to `dest` go until they are checked.
pub fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(PART_SUFFIX);
    PathBuf::from(name)
}

/// Downloads `file` to `dest` (see the module's notes), telling `progress` as bytes arrive.
pub fn download(
    file: &ModelFile,
    dest: &Path,
    timeouts: Timeouts,
    cancel: &Cancel,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), VoiceError> {
    let part = part_path(dest);
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| failed(format!("cannot make {}: {e}", dir.display())))?;
    }
    let mut tries = 0;
    loop {
        let have = std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
        if have >= file.size {
            break;
        }
        tries += 1;
        match fetch(file, &part, have, timeouts, cancel, progress) {
            Ok(()) => {}
            Err(e) if e.code == Code::DownloadCancelled => return Err(e),
            Err(e) => {
                let now = std::fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
                // Another try only when this one got somewhere (a connection closed mid-body).
                if now <= have || tries >= TRIES {
                    return Err(e);
                }
            }
        }
    }
    progress(Progress {
        done: file.size,
        total: file.size,
    });
    check(file, &part)?;
    std::fs::rename(&part, dest)
        .map_err(|e| failed(format!("cannot move the model into place: {e}")))?;
    Ok(())
}

/// The whole file must be the pinned one; a file that is not goes.
fn check(file: &ModelFile, part: &Path) -> Result<(), VoiceError> {
    let size = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let digest = hash(part).map_err(|e| failed(format!("cannot read the download: {e}")))?;
    if size != file.size || digest != file.sha256 {
        let _ = std::fs::remove_file(part);
        return Err(failed(format!(
            "the downloaded file is not the model ({size} bytes, SHA-256 {digest}; expected {} bytes, {}): it was deleted",
            file.size, file.sha256
        )));
    }
    Ok(())
}

fn hash(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(clawmux_core::hex::hex(&h.finalize()))
}

/// What the network thread hands over.
enum Msg {
    /// The answer: whether it starts at the offset asked for (206) or at 0 (200).
    Start {
        from_zero: bool,
    },
    Chunk(Vec<u8>),
    Done,
    Fail(VoiceError),
}

/// One request: from byte `have` of the partial file to the end, or to where it stops.
fn fetch(
    file: &ModelFile,
    part: &Path,
    have: u64,
    timeouts: Timeouts,
    cancel: &Cancel,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), VoiceError> {
    let rx = request(file.url.clone(), have, timeouts);
    let mut out: Option<std::fs::File> = None;
    let mut done = have;
    let mut heard = Instant::now();
    let mut waited_for = timeouts.connect;
    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err(cancelled(done, file.size));
        }
        match rx.recv_timeout(TICK) {
            Ok(Msg::Start { from_zero }) => {
                let f = open_part(part, from_zero)?;
                if from_zero {
                    done = 0;
                }
                out = Some(f);
                heard = Instant::now();
                waited_for = timeouts.stall;
            }
            Ok(Msg::Chunk(bytes)) => {
                let Some(f) = out.as_mut() else {
                    return Err(failed("the server sent a body before its answer"));
                };
                f.write_all(&bytes)
                    .map_err(|e| failed(format!("cannot write {}: {e}", part.display())))?;
                done += bytes.len() as u64;
                heard = Instant::now();
                progress(Progress {
                    done,
                    total: file.size,
                });
            }
            Ok(Msg::Done) => return ended(out.as_mut(), part, done, file.size),
            Ok(Msg::Fail(e)) => return Err(e),
            Err(RecvTimeoutError::Timeout) if heard.elapsed() > waited_for => {
                return Err(failed(format!(
                    "the download stalled: nothing for {} s (at {done} of {} bytes); it resumes from there",
                    waited_for.as_secs(),
                    file.size
                )));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(failed("the download stopped"));
            }
        }
    }
}

/// Why a download stopped that the user cancelled.
fn cancelled(done: u64, size: u64) -> VoiceError {
    VoiceError::new(
        Code::DownloadCancelled,
        format!("the download was cancelled at {done} of {size} bytes; it resumes from there"),
    )
}

/// The partial file, opened to be written from its start or after what it holds.
fn open_part(part: &Path, from_zero: bool) -> Result<std::fs::File, VoiceError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(!from_zero)
        .write(true)
        .truncate(from_zero)
        .open(part)
        .map_err(|e| failed(format!("cannot write {}: {e}", part.display())))
}

/// The end of an answer's body: the partial file on disk, and whether it is whole.
fn ended(
    out: Option<&mut std::fs::File>,
    part: &Path,
    done: u64,
    size: u64,
) -> Result<(), VoiceError> {
    if let Some(f) = out {
        f.sync_all()
            .map_err(|e| failed(format!("cannot write {}: {e}", part.display())))?;
    }
    if done >= size {
        Ok(())
    } else {
        Err(failed(format!(
            "the connection closed at {done} of {size} bytes"
        )))
    }
}

/// Whether the answer starts the file from zero (a whole file) or from `have` (the range asked for); an
/// answer that is neither is told on `tx`, and `None`.
fn start_of(
    url: &str,
    resp: &ureq::http::Response<ureq::Body>,
    have: u64,
    tx: &SyncSender<Msg>,
) -> Option<bool> {
    let status = resp.status().as_u16();
    let range_start = resp
        .headers()
        .get("content-range")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes "))
        .and_then(|v| v.split('-').next())
        .and_then(|v| v.parse::<u64>().ok());
    match status {
        200 => Some(true),
        206 if range_start == Some(have) => Some(false),
        _ => {
            let _ = tx.send(Msg::Fail(failed(format!(
                "{url} answered HTTP {status}{}",
                if status == 206 {
                    " with another range"
                } else {
                    ""
                }
            ))));
            None
        }
    }
}

/// Sends the answer's body on `tx`, chunk by chunk, then its end (a connection closed mid-body ends it
/// too: what arrived is kept, and the caller resumes).
fn stream(resp: &mut ureq::http::Response<ureq::Body>, tx: &SyncSender<Msg>) {
    let mut body = resp.body_mut().with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; CHUNK];
    loop {
        match body.read(&mut buf) {
            Ok(0) => {
                let _ = tx.send(Msg::Done);
                return;
            }
            Ok(n) => {
                if tx.send(Msg::Chunk(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                let _ = tx.send(Msg::Done);
                return;
            }
        }
    }
}

/// Starts the request on a thread of its own; its answer and body arrive on the channel.
fn request(url: String, have: u64, timeouts: Timeouts) -> Receiver<Msg> {
    let (tx, rx) = sync_channel(4);
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_connect(Some(timeouts.connect))
            .timeout_recv_response(Some(timeouts.connect))
            .http_status_as_error(false)
            .build()
            .into();
        let mut req = agent.get(&url);
        if have > 0 {
            req = req.header("Range", format!("bytes={have}-"));
        }
        let mut resp = match req.call() {
            Ok(resp) => resp,
            Err(e) => {
                let _ = tx.send(Msg::Fail(failed(format!("cannot reach {url}: {e}"))));
                return;
            }
        };
        let Some(from_zero) = start_of(&url, &resp, have, &tx) else {
            return;
        };
        if tx.send(Msg::Start { from_zero }).is_err() {
            return;
        }
        stream(&mut resp, &tx);
    });
    rx
}
