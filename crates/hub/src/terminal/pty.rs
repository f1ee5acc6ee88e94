//! One viewer of an agent's terminal: a tmux client in a pseudo-terminal of the hub's own.
//!
//! tmux already knows how to show one pane to several terminals of different sizes, redraw a newcomer's
//! screen and let a client go without touching the session; so each viewer is simply one more tmux client
//! (`attach-session`), in a pty from `portable-pty`. Ending a viewer kills that client, which detaches it:
//! the agent never notices. The pty's blocking reads and writes run on two threads of the viewer's own,
//! so a slow viewer holds up nobody else; its output reaches the async side through a bounded channel,
//! whose back-pressure stops the reader, then tmux, which drops what that client cannot keep up with.
//!
//! `portable-pty`'s writer, when dropped, types a newline and an end-of-file into the terminal (for a
//! shell it started, that is a goodbye); here the terminal's program is a tmux client that would pass
//! them on to the agent, which a shell takes for `exit`. So the writer is dropped only once the client
//! has exited, by the thread that waited for it.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{mpsc as std_mpsc, Arc, Mutex, PoisonError};

use clawmux_core::sync::Locked;
use clawmux_core::wire::TermSize;
use portable_pty::{ChildKiller, CommandBuilder, MasterPty, PtySize};
use tokio::sync::mpsc;

/// How many chunks of output may wait for a slow viewer before the reader stops reading.
const QUEUED_CHUNKS: usize = 64;
/// The most read at once from the pty.
const CHUNK: usize = 32 * 1024;

/// The pty's writer, shared by the thread that writes keys and the one that drops it once the client
/// has exited.
type Writer = Arc<Mutex<Option<Box<dyn Write + Send>>>>;

/// One attached viewer: its output, and the handle that types into it, resizes it and ends it.
pub struct Viewer {
    /// What the viewer is shown before the tmux client's own output (the pane's history).
    prelude: Option<Vec<u8>>,
    output: mpsc::Receiver<Vec<u8>>,
    control: ViewerControl,
}

/// Types into a viewer's terminal and resizes it; the viewer ends when the last copy is dropped.
#[derive(Clone)]
pub struct ViewerControl {
    inner: Arc<Control>,
}

struct Control {
    input: std_mpsc::Sender<Vec<u8>>,
    master: Mutex<Box<dyn MasterPty + Send>>,
    killer: Mutex<Box<dyn ChildKiller + Send + Sync>>,
}

impl Drop for Control {
    fn drop(&mut self) {
        // Only the tmux client ends (a detach); the agent's session stays.
        let killer = self
            .killer
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let _ = killer.kill();
    }
}

fn pty_size(size: TermSize) -> PtySize {
    PtySize {
        rows: size.rows,
        cols: size.cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

impl Viewer {
    /// Starts `program args` (a tmux client) in a new pty of `size`, in `home`, with a clean environment:
    /// nothing of the hub's (its token's folder, the variables of whoever started it) reaches the client,
    /// which tmux would copy into the agent's session (`update-environment`).
    pub fn spawn(
        program: &Path,
        args: &[std::ffi::OsString],
        size: TermSize,
        home: &Path,
    ) -> std::io::Result<Viewer> {
        let pair = portable_pty::native_pty_system()
            .openpty(pty_size(size))
            .map_err(std::io::Error::other)?;
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.env_clear();
        command.env("TERM", "xterm-256color");
        command.env("COLORTERM", "truecolor");
        command.env("LANG", "C.UTF-8");
        command.env("HOME", home);
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        command.cwd(home);
        let mut child = pair
            .slave
            .spawn_command(command)
            .map_err(std::io::Error::other)?;
        drop(pair.slave);
        let killer = child.clone_killer();
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(std::io::Error::other)?;
        let writer: Writer = Arc::new(Mutex::new(Some(
            pair.master.take_writer().map_err(std::io::Error::other)?,
        )));

        let (out_tx, output) = mpsc::channel(QUEUED_CHUNKS);
        let kept = writer.clone();
        std::thread::Builder::new()
            .name("terminal-read".into())
            .spawn(move || {
                read_all(reader, &out_tx);
                // Reaps the client, whichever way it ended; only then may the writer go (see above).
                let _ = child.wait();
                drop(kept.locked().take());
            })?;
        let (input, in_rx) = std_mpsc::channel::<Vec<u8>>();
        std::thread::Builder::new()
            .name("terminal-write".into())
            .spawn(move || write_all(&writer, &in_rx))?;
        Ok(Viewer {
            prelude: None,
            output,
            control: ViewerControl {
                inner: Arc::new(Control {
                    input,
                    master: Mutex::new(pair.master),
                    killer: Mutex::new(killer),
                }),
            },
        })
    }

    /// Shows `bytes` first, before anything the tmux client draws.
    pub fn with_prelude(mut self, bytes: Vec<u8>) -> Viewer {
        self.prelude = Some(bytes).filter(|b| !b.is_empty());
        self
    }

    /// The next output, several chunks that were waiting joined into one; `None` once the terminal has
    /// closed (the session ended, or tmux did).
    pub async fn next(&mut self) -> Option<Vec<u8>> {
        if let Some(prelude) = self.prelude.take() {
            return Some(prelude);
        }
        let mut chunk = self.output.recv().await?;
        while chunk.len() < CHUNK {
            match self.output.try_recv() {
                Ok(more) => chunk.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        Some(chunk)
    }

    /// The handle that types into this viewer, resizes it and (dropped with the viewer) ends it.
    pub fn control(&self) -> ViewerControl {
        self.control.clone()
    }
}

impl ViewerControl {
    /// Sends `bytes` to the pane, as if typed.
    pub fn input(&self, bytes: Vec<u8>) {
        // A send fails only once the writer has stopped, when the terminal has closed: nothing to type into.
        let _ = self.inner.input.send(bytes);
    }

    /// Gives the viewer's terminal a new size; tmux follows it (the pane takes the size of the viewer
    /// used last).
    pub fn resize(&self, size: TermSize) -> std::io::Result<()> {
        self.inner
            .master
            .locked()
            .resize(pty_size(size))
            .map_err(std::io::Error::other)
    }
}

fn read_all(mut reader: Box<dyn Read + Send>, out: &mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match reader.read(&mut buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // EOF, or EIO once the client has gone: the terminal is closed.
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if out.blocking_send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        }
    }
}

fn write_all(writer: &Writer, input: &std_mpsc::Receiver<Vec<u8>>) {
    while let Ok(bytes) = input.recv() {
        let mut slot = writer.locked();
        let Some(w) = slot.as_mut() else { return };
        if w.write_all(&bytes).and_then(|()| w.flush()).is_err() {
            return;
        }
    }
}
