//! Voice capture for the desktop app: push-to-talk, and hands-free listening ([`listen`], [`detector`]).
//! The Linux webview records nothing (WebKitGTK's MediaRecorder gives empty recordings, measured here)
//! and cannot stream a microphone, so the app records in Rust: [`start`] opens a [`Source`] and
//! [`Recording::finish`] hands back the audio as a WAV file, ready for the hub's transcription.
//!
//! Every source is reduced to the same tape: 16-bit mono at the source's own rate (the transcription
//! services resample what they get; resampling here could only lose). A source is either the default
//! microphone (the sound server's default source through libpulse, PulseAudio or PipeWire's pulse server;
//! else ALSA's default device through cpal) or a WAV file played in real time as if
//! a microphone heard it, then silence: the way tests feed real speech through the same path, and what
//! `--microphone-file` gives people without a microphone.
//!
//! The source runs on a thread of its own (cpal streams are not `Send` everywhere; libpulse's simple reads
//! block), which also keeps the async runtime free. This crate knows nothing of Tauri or the hub.

pub mod detector;
mod file;
pub mod listen;
mod microphone;
mod pulse;
mod tape;

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::JoinHandle;

use tape::Tape;
pub use tape::MAX_WAV_BYTES;

/// Where a recording comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The system's default input device.
    Microphone,
    /// A WAV file played in real time, then silence.
    File(PathBuf),
}

/// Why a recording could not start or be kept. The messages are for the user.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CaptureError {
    /// The system has no input device.
    #[error("No microphone was found: plug one in or check the sound settings.")]
    NoMicrophone,
    /// The input device exists but could not be opened or failed.
    #[error("The microphone could not be used: {0}")]
    Device(String),
    /// The file given as the microphone cannot be played.
    #[error("The recording file {path} cannot be played: {why}")]
    File {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// The source stopped before anything was heard.
    #[error("Nothing was recorded: is the microphone on?")]
    Empty,
}

/// A finished recording.
#[derive(Clone, PartialEq, Eq)]
pub struct Clip {
    /// A WAV file: 16-bit PCM, mono, at the source's rate.
    pub wav: Vec<u8>,
    /// Its length in milliseconds.
    pub millis: u64,
    /// Whether it reached [`MAX_WAV_BYTES`] and the rest was not kept.
    pub truncated: bool,
}

impl std::fmt::Debug for Clip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clip")
            .field("wav_bytes", &self.wav.len())
            .field("millis", &self.millis)
            .field("truncated", &self.truncated)
            .finish()
    }
}

/// A recording under way. Dropping it stops the source and keeps nothing.
#[derive(Debug)]
pub struct Recording {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    /// Closed when the source's thread ends.
    ended: mpsc::Receiver<()>,
    tape: Tape,
}

/// How long a stopped source may take to end before it is left to end by itself: a sound server whose
/// source delivers nothing more holds its reader until the next fragment, or until it goes.
const STOP_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Opens `source` and starts recording; returns once audio flows, or says why it cannot.
pub fn start(source: &Source) -> Result<Recording, CaptureError> {
    let (stop, stopped) = mpsc::channel();
    let (ready, started) = mpsc::channel();
    let (ending, ended) = mpsc::channel::<()>();
    let source = source.clone();
    let thread = std::thread::Builder::new()
        .name("clawmux-capture".into())
        .spawn(move || {
            let _ending = ending;
            match source {
                Source::Microphone => microphone::run(&ready, &stopped),
                Source::File(path) => file::run(&path, &ready, &stopped),
            }
        })
        .map_err(|e| CaptureError::Device(format!("cannot start a thread: {e}")))?;
    match started.recv() {
        Ok(Ok(tape)) => Ok(Recording {
            stop: Some(stop),
            thread: Some(thread),
            ended,
            tape,
        }),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(e)
        }
        Err(_) => {
            let _ = thread.join();
            Err(CaptureError::Device("the recording thread ended".into()))
        }
    }
}

impl Recording {
    /// Stops the source and returns what it recorded.
    pub fn finish(mut self) -> Result<Clip, CaptureError> {
        self.halt();
        self.tape.to_clip()
    }

    /// Stops the source: its thread is joined once it ends, or left to end by itself after [`STOP_WAIT`].
    fn halt(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            if matches!(
                self.ended.recv_timeout(STOP_WAIT),
                Err(mpsc::RecvTimeoutError::Disconnected)
            ) {
                let _ = thread.join();
            }
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.halt();
    }
}
