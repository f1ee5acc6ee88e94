//! `clawmux pty -- PROGRAM ARGS...`: the agent's terminal bridge, the command of its tmux pane.
//!
//! Claude Code reports its state to its terminal (OSC 7501, `clawmux_core::program_status`) only if the
//! terminal answers its probe before the DA1 query that ends its start-up questions. tmux answers the DA1
//! and drops the probe, so an agent run straight in the pane never reports. The bridge sits between: it
//! runs the program in a pseudo-terminal of its own, passes every byte both ways unchanged, and, reading
//! the program's output before tmux does, writes the probe's answer into the program's input ahead of
//! tmux's DA1 answer; each report it then reads is posted to the hub (`POST /api/status-report`), where it
//! is a second opinion beside the hooks and the session file.
//!
//! It must never be in the way: the reports go to the hub from a thread of their own (a hub that is down
//! loses a report, never a keystroke or a byte of the screen), nothing is printed (the pane is the
//! agent's screen), the window's size follows the pane's, a signal to end is passed on to the program, and
//! the bridge ends as its program ends, with its exit status or by its signal, so tmux and the hub see the
//! program's own end.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawmux_core::program_status::{Heard, Scanner, StatusReport, PROBE_REPLY};
use clawmux_core::sync::Locked;
use portable_pty::{CommandBuilder, MasterPty, PtySize};
use rustix::process::{Pid, Signal, WaitOptions};
use rustix::termios::{OptionalActions, Termios};

use crate::client::Client;
use crate::env::AgentEnv;

/// How long the screen's last bytes may take to drain once the program has ended.
const DRAIN: Duration = Duration::from_millis(500);
/// How long one report may take to reach the hub.
const POST_TIMEOUT: Duration = Duration::from_secs(2);
/// Reports waiting for the hub; more are dropped (the hub is away), never waited for.
const QUEUED_REPORTS: usize = 256;

/// Runs `argv` behind the bridge and ends as it ends.
pub fn run(argv: Vec<OsString>) -> ExitCode {
    match bridge(argv) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("clawmux pty: {e}");
            ExitCode::from(127)
        }
    }
}

/// The outer terminal in raw mode for as long as this lives: every key goes to the program as typed.
struct Raw(Option<Termios>);

impl Raw {
    fn enter() -> Raw {
        let stdin = std::io::stdin();
        let Ok(before) = rustix::termios::tcgetattr(&stdin) else {
            return Raw(None);
        };
        let mut raw = before.clone();
        raw.make_raw();
        match rustix::termios::tcsetattr(&stdin, OptionalActions::Now, &raw) {
            Ok(()) => Raw(Some(before)),
            Err(_) => Raw(None),
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        if let Some(before) = &self.0 {
            let _ = rustix::termios::tcsetattr(std::io::stdin(), OptionalActions::Now, before);
        }
    }
}

/// The outer terminal's size (the pane's), or tmux's default for a new session.
fn outer_size() -> PtySize {
    match rustix::termios::tcgetwinsize(std::io::stdout()) {
        Ok(w) if w.ws_col > 0 && w.ws_row > 0 => PtySize {
            rows: w.ws_row,
            cols: w.ws_col,
            pixel_width: w.ws_xpixel,
            pixel_height: w.ws_ypixel,
        },
        Ok(_) | Err(_) => PtySize {
            rows: 50,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        },
    }
}

type Shared<T> = Arc<Mutex<T>>;

/// The program started in a terminal of its own: its pid, and the terminal's ends.
struct Started {
    pid: Pid,
    reader: Box<dyn Read + Send>,
    writer: Shared<Box<dyn Write + Send>>,
    master: Shared<Box<dyn MasterPty + Send>>,
}

fn start(argv: &[OsString]) -> Result<Started, String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("no program to run".to_owned());
    };
    let pair = portable_pty::native_pty_system()
        .openpty(outer_size())
        .map_err(|e| format!("cannot open a terminal: {e}"))?;
    let mut command = CommandBuilder::new(program);
    command.args(args);
    if let Ok(cwd) = std::env::current_dir() {
        command.cwd(cwd);
    }
    let child = pair
        .slave
        .spawn_command(command)
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    drop(pair.slave);
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .and_then(Pid::from_raw)
        .ok_or("the program has no process id")?;
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| format!("cannot read the terminal: {e}"))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(|e| format!("cannot write the terminal: {e}"))?;
    Ok(Started {
        pid,
        reader,
        writer: Arc::new(Mutex::new(writer)),
        master: Arc::new(Mutex::new(pair.master)),
    })
}

fn bridge(argv: Vec<OsString>) -> Result<ExitCode, String> {
    let Started {
        pid,
        reader,
        writer,
        master,
    } = start(&argv)?;
    let raw = Raw::enter();

    pass_signals(pid);
    let keys = Arc::clone(&writer);
    std::thread::spawn(move || pass_keys(&keys));
    follow_size(Arc::clone(&master));
    let reports = post_reports();
    let (drained_tx, drained) = mpsc::channel::<()>();
    let answers = Arc::clone(&writer);
    std::thread::spawn(move || {
        pass_screen(reader, &answers, &reports);
        let _ = drained_tx.send(());
    });

    let status = loop {
        match rustix::process::waitpid(Some(pid), WaitOptions::empty()) {
            Ok(Some((_, status))) if status.exited() || status.signaled() => break status,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(format!("cannot wait for the program: {e}")),
        }
    };
    let _ = drained.recv_timeout(DRAIN);
    let _ = std::io::stdout().flush();
    drop(raw);
    if let Some(signal) = status.terminating_signal().and_then(Signal::from_named_raw) {
        // Ended by a signal: the bridge ends by the same one, so the pane says how the program ended.
        let _ = rustix::process::kill_process(rustix::process::getpid(), signal);
    }
    let code = status
        .exit_status()
        .or_else(|| status.terminating_signal().map(|s| 128 + s))
        .unwrap_or(1);
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// The pane's keys to the program, as typed.
fn pass_keys(writer: &Shared<Box<dyn Write + Send>>) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = [0u8; 8192];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                let mut w = writer.locked();
                if w.write_all(&buf[..n]).and_then(|()| w.flush()).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// The program's output to the pane, unchanged; the probe answered before the bytes after it are passed
/// on (so before tmux answers the DA1 that follows it), each report handed to the poster.
fn pass_screen(
    mut reader: Box<dyn Read + Send>,
    writer: &Shared<Box<dyn Write + Send>>,
    reports: &mpsc::SyncSender<StatusReport>,
) {
    let mut scanner = Scanner::new();
    let mut stdout = std::io::stdout().lock();
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        for heard in scanner.feed(&buf[..n]) {
            match heard {
                Heard::Probe => {
                    let mut w = writer.locked();
                    let _ = w.write_all(PROBE_REPLY).and_then(|()| w.flush());
                }
                Heard::Report(report) => {
                    let _ = reports.try_send(report);
                }
            }
        }
        if stdout
            .write_all(&buf[..n])
            .and_then(|()| stdout.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The pane's size, followed: each SIGWINCH resizes the program's terminal to the pane's.
fn follow_size(master: Shared<Box<dyn MasterPty + Send>>) {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH])
    else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            let _ = master.locked().resize(outer_size());
        }
    });
}

/// Signals that end a program, passed on to it: the bridge ends when its program does, with the program's
/// terminal intact while it shuts down (the hub's end of an agent signals both; tmux's hangup only the
/// bridge).
fn pass_signals(child: Pid) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGHUP, SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        for raw in signals.forever() {
            if let Some(signal) = Signal::from_named_raw(raw) {
                let _ = rustix::process::kill_process(child, signal);
            }
        }
    });
}

/// The poster of reports to the hub, on a thread of its own; without an agent's environment (the bridge
/// run by hand) the reports are read and dropped.
fn post_reports() -> mpsc::SyncSender<StatusReport> {
    let (tx, rx) = mpsc::sync_channel::<StatusReport>(QUEUED_REPORTS);
    let Ok(Some(env)) = AgentEnv::load() else {
        return tx;
    };
    std::thread::spawn(move || {
        let client = Client::new(&env.hub, POST_TIMEOUT);
        for report in rx {
            let Ok(body) = serde_json::to_vec(&report) else {
                continue;
            };
            let _ = client.post("/api/status-report", Some(&env.session), &body);
        }
    });
    tx
}
