//! `clawmux statusline`: the status-line command of a spawned agent. Claude Code hands it a JSON payload at
//! each refresh of its status line and shows what it prints. It hands the payload to the hub (what the
//! agent costs, how full its context is, the account's limits) and prints a line: the user's own
//! status-line command's, run with the same payload (`--then`), else ClawMux's.
//!
//! The payload is read whole, however late it comes (a loaded machine starts the writer late): a refresh
//! is never dropped, and the user's command always gets what Claude Code sent. From then on it answers
//! within 50 ms whatever happens: a hub that is down or slow, a chained command that fails, hangs or
//! prints nothing (its last good line is shown again), so the user's line never blanks or lags. A
//! chained command with no good line yet (its first run) is given a second, so that a slow start is not
//! cut and replaced by ClawMux's own line.
//!
//! `clawmux usage [--json] [--days N]`: every agent's figures, the account's limits and what was used per
//! day.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clawmux_core::usage::{short, Sample};
use clawmux_core::Millis;
use clawmux_hub::commands::Command as HubCommand;
use clawmux_hub::usage::UsageReply;

use crate::client::Client;
use crate::env::{AgentEnv, HubAddr, HubArgs};

/// A writer that never closes its end: past this, no payload (Claude Code writes it at once and closes).
const STDIN_WAIT: Duration = Duration::from_secs(10);
/// The hub's share: loopback answers in well under a millisecond.
const HUB_WAIT: Duration = Duration::from_millis(25);
/// The chained command's share, from the payload's arrival: a slower one is cut and its last line shown.
/// With the process's start and exit, the bridge is done within 50 ms.
const CHAIN_WAIT: Duration = Duration::from_millis(35);
/// The chained command's share when it has no good line yet to show instead.
const FIRST_CHAIN_WAIT: Duration = Duration::from_secs(1);
/// The most of a payload read (Claude Code's are a few kilobytes).
const MAX_PAYLOAD: u64 = 256 * 1024;
/// The most of a chained command's output shown.
const MAX_LINE: usize = 4096;

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

/// Where the chained command's last good line is kept: the agent's launch folder (0700, the hub's).
fn last_line_file(env: &AgentEnv) -> PathBuf {
    clawmux_hub::lifecycle::launch::launch_dir(&env.data_dir, &env.session).join("statusline.last")
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

/// Runs the user's command with the payload on its stdin, in a process group of its own; its output if it
/// ended well, with something to show, before `deadline`. Else the whole group is killed.
fn chained(command: &str, payload: &[u8], deadline: Instant) -> Option<Vec<u8>> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let pid = child.id();
    let (mut stdin, mut stdout) = (child.stdin.take()?, child.stdout.take()?);
    let payload = payload.to_vec();
    // Written and read on threads: a command that reads nothing, or never ends, blocks only them.
    std::thread::spawn(move || {
        let _ = stdin.write_all(&payload);
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_LINE as u64).read_to_end(&mut out);
        let status = child.wait();
        let _ = tx.send((out, status.is_ok_and(|s| s.success())));
    });
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok((out, true)) if out.iter().any(|b| !b.is_ascii_whitespace()) => Some(out),
        Ok(_) => None,
        Err(_) => {
            // The whole group: a pipeline's commands with the shell that leads them (a signal, not a
            // `kill` process, which a loaded machine is slow to start).
            if let Some(group) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            None
        }
    }
}

/// Where an observed session is reported, and its last good line kept: the hub of the data folder, by the
/// payload's Claude Code session id (letters, digits, - and _), under `<data dir>/observed/` (in the 0700 data folder).
fn observed(data_dir: Option<&Path>, payload: &[u8]) -> Option<(HubAddr, PathBuf)> {
    let data_dir = data_dir.map_or_else(clawmux_hub::config::default_data_dir, Path::to_owned);
    let hub = crate::hook::observed_hub(&data_dir)?;
    let value: serde_json::Value = serde_json::from_slice(payload).ok()?;
    let session = value.get("session_id")?.as_str()?;
    clawmux_hub::observe::session_id_ok(session).then(|| {
        (
            hub,
            data_dir
                .join("observed")
                .join(format!("{session}.statusline")),
        )
    })
}

/// `clawmux statusline [--then COMMAND] [--observe [--data-dir DIR]]`: `observe` is `Some` for a session
/// ClawMux did not start, with the data folder named, if one was.
pub fn statusline(then: Option<&str>, observe: Option<Option<&Path>>) -> ExitCode {
    let payload = payload();
    let arrived = Instant::now();
    // An agent ClawMux started is itself, whatever its settings say; else an observed session, if set so.
    let (hub, session, last) = match AgentEnv::load().ok().flatten() {
        Some(env) => {
            let last = last_line_file(&env);
            (Some(env.hub), Some(env.session), Some(last))
        }
        None => match observe.and_then(|dir| observed(dir, &payload)) {
            Some((hub, last)) => (Some(hub), None, Some(last)),
            None => (None, None, None),
        },
    };
    let report = hub.filter(|_| !payload.is_empty()).map(|hub| {
        let payload = payload.clone();
        std::thread::spawn(move || {
            // Whatever the hub says, the line is printed: its errors are its own log's business.
            let _ = Client::new(&hub, HUB_WAIT).post("/api/usage", session.as_deref(), &payload);
        })
    });
    let line = match then {
        Some(command) => {
            let known = last.as_ref().is_some_and(|l| l.exists());
            let wait = if known { CHAIN_WAIT } else { FIRST_CHAIN_WAIT };
            match chained(command, &payload, arrived + wait) {
                Some(out) => {
                    if let Some(last) = &last {
                        // Whole or not at all: a bridge reading it meanwhile sees the line before.
                        let tmp = last.with_extension(format!("{}.tmp", std::process::id()));
                        // Inside the hub's data folder, which only the user can enter.
                        let _ = last.parent().map(std::fs::create_dir_all);
                        if clawmux_hub::config::write_private(&tmp, &out).is_ok() {
                            let _ = std::fs::rename(&tmp, last);
                        }
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

/// This machine's time zone now, in minutes east of UTC (`date +%z`, as `TZ` and the system say; UTC
/// when it cannot tell).
fn local_offset_minutes() -> i32 {
    let out = Command::new("date").arg("+%z").output().ok();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    text.as_deref().and_then(offset_minutes).unwrap_or(0)
}

/// `+0130` -> 90, `-0500` -> -300.
fn offset_minutes(z: &str) -> Option<i32> {
    let (sign, digits) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some(sign * (hours * 60 + minutes))
}

fn when(at: Millis) -> String {
    let t = std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(at.0).unwrap_or(0));
    humantime::format_rfc3339_seconds(t).to_string()
}

/// `clawmux usage`.
pub fn usage(args: &HubArgs, as_json: bool, days: u32) -> Result<(), String> {
    let command = HubCommand::Usage {
        days: Some(days),
        offset_minutes: Some(local_offset_minutes()),
    };
    let reply: UsageReply = Client::of(args, Duration::from_secs(10))?.command(&command)?;
    if as_json {
        let json = serde_json::to_string_pretty(&reply).map_err(|e| e.to_string())?;
        println!("{json}");
        return Ok(());
    }
    print!("{}", words(&reply));
    Ok(())
}

fn words(reply: &UsageReply) -> String {
    let mut out = String::new();
    for l in &reply.account.limits {
        out += &format!(
            "{} limit: {:.0}% used, resets {}",
            l.limit.window.name(),
            l.limit.percent,
            when(l.limit.resets_at)
        );
        if let Some(at) = l.reached_at {
            out += &format!(", reached at {} at this pace", when(at));
        }
        out.push('\n');
    }
    if reply.agents.is_empty() {
        out += "No agent has reported its usage yet.\n";
    }
    for a in &reply.agents {
        let s = &a.sample;
        out += &format!("{}: {}", a.session_id, s.model.as_deref().unwrap_or("?"));
        if let Some(c) = s.context {
            out += &format!(
                ", context {}% ({}/{})",
                c.percent,
                short(c.used),
                short(c.size)
            );
        }
        out += &format!(
            ", in {} out {} cached {}",
            short(s.tokens.input),
            short(s.tokens.output),
            short(s.tokens.cache_read)
        );
        if let Some(cost) = s.cost_usd {
            out += &format!(", ${cost:.2}");
        }
        if let Some(l) = a.limited {
            out += &match l.until {
                Some(until) => format!(", rate-limited until {}", when(until)),
                None => ", rate-limited".to_owned(),
            };
        }
        out.push('\n');
    }
    if !reply.days.is_empty() {
        out += "\nday         agent          cost      in      out\n";
        for d in &reply.days {
            out += &format!(
                "{:<11} {:<12} {:>7.2} {:>7} {:>8}\n",
                d.day,
                d.agent,
                d.cost,
                short(d.input),
                short(d.output)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_zone_reads_as_minutes_east_of_utc() {
        assert_eq!(offset_minutes("+0130"), Some(90));
        assert_eq!(offset_minutes("-0500"), Some(-300));
        assert_eq!(offset_minutes("+0000"), Some(0));
        for bad in ["", "0100", "+1", "+01:00", "+ab00"] {
            assert_eq!(offset_minutes(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_own_line_never_blanks() {
        let full = br#"{"model": {"display_name": "Opus 5.5"}, "cost": {"total_cost_usd": 0.5}}"#;
        assert_eq!(own_line(full), "Opus 5.5 \u{b7} $0.50");
        assert_eq!(own_line(b"not json"), "ClawMux");
        assert_eq!(own_line(b""), "ClawMux");
        assert_eq!(own_line(b"{}"), "ClawMux");
    }
}
