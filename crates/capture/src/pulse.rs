//! The sound server's default source, read with libpulse's simple API: PulseAudio, or PipeWire's pulse
//! server on today's desktops. The thread blocks in the server's read for a 20 ms fragment at a time, so a
//! listener left on for hours is woken 50 times a second and costs next to nothing; through ALSA's
//! PulseAudio plugin (cpal's way in) the same listening cost a few to tens of percent of a core, its
//! thread polling far more often (the README's listening figure).
//!
//! No server answering is not an error here: the microphone falls back to ALSA's default device.

use std::sync::mpsc::{Receiver, Sender, TryRecvError};

use libpulse_binding::def::BufferAttr;
use libpulse_binding::sample::{Format, Spec};
use libpulse_binding::stream::Direction;
use libpulse_simple_binding::Simple;

use crate::tape::Tape;
use crate::CaptureError;

/// The rate asked for: what microphones and sound servers run at (the server converts any other).
const RATE: u32 = 48_000;
/// The fragment the server hands over, in samples (20 ms).
const FRAGMENT: usize = RATE as usize / 50;

/// The server's default source, opened; `None` when no server answers.
fn open() -> Option<Simple> {
    let spec = Spec {
        format: Format::S16NE,
        channels: 1,
        rate: RATE,
    };
    let fragment = u32::try_from(FRAGMENT * 2).unwrap_or(u32::MAX);
    let attr = BufferAttr {
        maxlength: u32::MAX,
        tlength: u32::MAX,
        prebuf: u32::MAX,
        minreq: u32::MAX,
        fragsize: fragment,
    };
    Simple::new(
        None,
        "ClawMux",
        Direction::Record,
        None,
        "listening",
        &spec,
        None,
        Some(&attr),
    )
    .ok()
}

/// Records the server's default source onto a tape until `stopped` says so (or its sender goes), if a
/// server answers; returns whether one did (if not, nothing was sent on `ready`).
pub fn run(ready: &Sender<Result<Tape, CaptureError>>, stopped: &Receiver<()>) -> bool {
    let Some(source) = open() else {
        return false;
    };
    let tape = Tape::new(RATE);
    if ready.send(Ok(tape.clone())).is_err() {
        return true;
    }
    let mut bytes = vec![0u8; FRAGMENT * 2];
    let mut samples = vec![0i16; FRAGMENT];
    while matches!(stopped.try_recv(), Err(TryRecvError::Empty)) {
        if let Err(e) = source.read(&mut bytes) {
            tape.fail(format!("the sound server stopped: {e}"));
            return true;
        }
        for (sample, pair) in samples.iter_mut().zip(bytes.chunks_exact(2)) {
            *sample = i16::from_ne_bytes([pair[0], pair[1]]);
        }
        tape.record(&samples, 1);
    }
    true
}
