//! The status-line command of a Claude Code session ClawMux runs or observes. Claude Code hands it a JSON
//! payload at each refresh of its status line and shows what it prints. It hands the payload to the hub
//! (what the agent costs, how full its context is, the account's limits) and prints a line: the user's own
//! status-line command's, run with the same payload (`--then`), else ClawMux's.
//!
//! A program of its own, `clawmux-statusline`, beside `clawmux`: Claude Code starts it about once per
//! model answer, so what it costs is paid at every tool call. It links no hub, no async runtime, no
//! argument parser and no C++ (the `clawmux` command carries whisper.cpp), and starts about as fast as
//! any process can. `clawmux statusline` runs the same code, for settings written before it existed.
//!
//! The payload is read whole, however late it comes (a loaded machine starts the writer late): a refresh
//! is never dropped, and the user's command always gets what Claude Code sent. From then on it answers
//! within 50 ms whatever happens: a hub that is down or slow, a chained command that fails, hangs or
//! prints nothing (its last good line is shown again), so the user's line never blanks or lags. A
//! chained command with no good line yet (its first run) is given a second, so that a slow start is not
//! cut and replaced by ClawMux's own line.

mod chain;
mod hub;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clawmux_core::usage::Sample;
use clawmux_core::Millis;

/// A writer that never closes its end: past this, no payload (Claude Code writes it at once and closes).
const STDIN_WAIT: Duration = Duration::from_secs(10);
/// The chained command's share, from the payload's arrival: a slower one is cut and its last line shown.
/// With the process's start and exit, the line is out within 50 ms.
const CHAIN_WAIT: Duration = Duration::from_millis(35);
/// The chained command's share when it has no good line yet to show instead.
const FIRST_CHAIN_WAIT: Duration = Duration::from_secs(1);
/// The most of a payload read (Claude Code's are a few kilobytes).
const MAX_PAYLOAD: u64 = 256 * 1024;

/// What the command line asks.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// The user's own status-line command, run with the same payload; its line is shown.
    pub then: Option<String>,
    /// A session ClawMux did not start (the bridge `clawmux hooks install` sets): reported to the hub of
    /// the data folder named, else the default one, by the payload's session id.
    pub observe: bool,
    /// The data folder of `--observe`.
    pub data_dir: Option<PathBuf>,
}

impl Args {
    /// Reads `[--then COMMAND] [--observe] [--data-dir DIR]`, in any order.
    pub fn parse(mut args: impl Iterator<Item = OsString>) -> Result<Args, String> {
        let mut parsed = Args::default();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.to_str() {
                Some("--then") => {
                    let command = value("--then")?;
                    let command = command
                        .into_string()
                        .map_err(|_| "--then is not UTF-8".to_owned())?;
                    parsed.then = Some(command);
                }
                Some("--observe") => parsed.observe = true,
                Some("--data-dir") => parsed.data_dir = Some(PathBuf::from(value("--data-dir")?)),
                Some(other) => return Err(format!("unknown argument `{other}`")),
                None => return Err(format!("unknown argument {arg:?}")),
            }
        }
        Ok(parsed)
    }
}

/// Reads the payload whole, on a thread of its own: a writer that never closes its end costs a bounded
/// wait, not a hang.
fn payload() -> Vec<u8> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::stdin().take(MAX_PAYLOAD).read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx.recv_timeout(STDIN_WAIT).unwrap_or_default()
}

/// ClawMux's own line: `Opus 5.5 · 48% · 96k/200k · $1.20`.
fn own_line(payload: &[u8]) -> String {
    match Sample::parse(payload, Millis(0)) {
        Ok(s) => {
            let figures = s.line();
            match (s.model, figures.is_empty()) {
                (Some(m), false) => format!("{m} · {figures}"),
                (Some(m), true) => m,
                (None, false) => figures,
                (None, true) => "ClawMux".to_owned(),
            }
        }
        Err(_) => "ClawMux".to_owned(),
    }
}

/// Keeps `line` as the chained command's last good one, whole or not at all: a line read meanwhile is the
/// one before. In the hub's data folder, which only the user can enter; the file is the user's alone.
fn keep(last: &Path, line: &[u8]) {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = last.with_extension(format!("{}.tmp", std::process::id()));
    let _ = last.parent().map(std::fs::create_dir_all);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(line));
    if written.is_ok() {
        let _ = std::fs::rename(&tmp, last);
    }
}

/// Prints the line for the payload on stdin, having handed the payload to the hub.
pub fn run(args: &Args) -> ExitCode {
    let payload = payload();
    let arrived = Instant::now();
    let to = hub::Report::find(args.observe.then_some(args.data_dir.as_deref()), &payload);
    let last = to.as_ref().map(|to| to.last_line.clone());
    let report = to.filter(|_| !payload.is_empty()).map(|to| {
        let payload = payload.clone();
        // Whatever the hub says, the line is printed: its errors are its own log's business.
        std::thread::spawn(move || to.send(&payload))
    });
    let line = match &args.then {
        Some(command) => {
            let known = last.as_ref().is_some_and(|l| l.exists());
            let wait = if known { CHAIN_WAIT } else { FIRST_CHAIN_WAIT };
            match chain::run(command, &payload, arrived + wait) {
                Some(out) => {
                    if let Some(last) = &last {
                        keep(last, &out);
                    }
                    out
                }
                None => last
                    .and_then(|l| std::fs::read(l).ok())
                    .unwrap_or_else(|| own_line(&payload).into_bytes()),
            }
        }
        None => own_line(&payload).into_bytes(),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&line);
    if !line.ends_with(b"\n") {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
    if let Some(report) = report {
        let _ = report.join();
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        Args::parse(args.iter().map(OsString::from))
    }

    #[test]
    fn the_arguments_read_in_any_order_and_nothing_else_is_taken() {
        assert_eq!(parse(&[]).unwrap(), Args::default());
        assert_eq!(
            parse(&["--observe", "--then", "echo hi", "--data-dir", "/d"]).unwrap(),
            Args {
                then: Some("echo hi".into()),
                observe: true,
                data_dir: Some("/d".into())
            }
        );
        assert_eq!(parse(&["--then"]).unwrap_err(), "--then needs a value");
        assert_eq!(
            parse(&["statusline"]).unwrap_err(),
            "unknown argument `statusline`"
        );
    }

    #[test]
    fn the_own_line_never_blanks() {
        let full = br#"{"model": {"display_name": "Opus 5.5"}, "cost": {"total_cost_usd": 0.5}}"#;
        assert_eq!(own_line(full), "Opus 5.5 \u{b7} $0.50");
        assert_eq!(own_line(b"not json"), "ClawMux");
        assert_eq!(own_line(b""), "ClawMux");
        assert_eq!(own_line(b"{}"), "ClawMux");
    }

    #[test]
    fn a_kept_line_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let last = dir.path().join("launch").join("a").join("statusline.last");
        keep(&last, b"mine\n");
        assert_eq!(std::fs::read(&last).unwrap(), b"mine\n");
        let mode = std::fs::metadata(&last).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
