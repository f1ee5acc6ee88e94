//! `clawmux wait`: block until the hub hands this agent its messages, print one line each, exit 0.
//!
//! It writes its PID to `<data dir>/launch/<agent>/waiting` and removes it on every way out, a signal
//! included, unless a newer wait has written its own PID there since. Not in the work folder (where the
//! original kept `.waiting`): there the agent's `git add -A` would commit it. If the hub restarts, it reconnects: the agent stays in
//! its wait. It ends by itself when nobody can use it any more: the process that ran it (Claude's shell) is
//! gone, or the hub's data folder is. It confirms to the hub only after the lines are printed and flushed,
//! so the hub counts them as handed over only when Claude can see them. And it remembers the ids it printed
//! (`<data dir>/launch/<agent>/printed`): a hub killed before it recorded a wait's confirmation offers the
//! same messages again to the next wait, which confirms them without printing them twice.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawmux_core::wire::{WaitClose, WaitFrame, WaitMessage};
use tungstenite::client::IntoClientRequest;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};

use crate::env::AgentEnv;

/// How often a blocked read wakes to look at the signal flag.
const TICK: Duration = Duration::from_millis(200);
/// Pause between reconnection attempts while the hub is away.
const RETRY: Duration = Duration::from_millis(300);

/// The PID file of a wait under way, removed when dropped.
struct PidFile(PathBuf);

impl PidFile {
    fn create(env: &AgentEnv) -> PidFile {
        let path = clawmux_core::layout::pid_file(&env.data_dir, &env.session);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, std::process::id().to_string()));
        if let Err(e) = written {
            eprintln!("clawmux wait: cannot write {}: {e}", path.display());
        }
        PidFile(path)
    }
}

impl Drop for PidFile {
    /// Removes the PID file if it still names this process: a newer wait's file is not ours to remove.
    fn drop(&mut self) {
        let ours = std::fs::read_to_string(&self.0)
            .is_ok_and(|pid| pid.trim() == std::process::id().to_string());
        if ours {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// The messages this agent's waits printed last, kept beside the PID file, each as `seq:id`: its place in
/// the store and its random id together, so a new message never passes for one printed before.
struct Printed(PathBuf);

/// How a printed message is remembered.
fn printed_key(m: &WaitMessage) -> String {
    format!("{}:{}", m.message.seq, m.message.id)
}

/// How many ids it keeps: far more than one offer can repeat.
const PRINTED_KEPT: usize = 1024;

impl Printed {
    fn of(env: &AgentEnv) -> Printed {
        Printed(
            clawmux_core::layout::pid_file(&env.data_dir, &env.session).with_file_name("printed"),
        )
    }

    fn ids(&self) -> Vec<String> {
        std::fs::read_to_string(&self.0)
            .map(|s| s.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// Adds `ids` (the oldest go past [`PRINTED_KEPT`]), written whole or not at all.
    fn add(&self, ids: impl Iterator<Item = String>) {
        let mut all = self.ids();
        all.extend(ids);
        let keep = &all[all.len().saturating_sub(PRINTED_KEPT)..];
        let next = self.0.with_extension("next");
        let written = std::fs::write(&next, keep.join("\n") + "\n")
            .and_then(|()| std::fs::rename(&next, &self.0));
        if let Err(e) = written {
            eprintln!("clawmux wait: cannot write {}: {e}", self.0.display());
        }
    }
}

/// Whether this wait still has someone to wait for: the process that started it runs (an orphan is
/// adopted by another), and the hub's data folder is still there (a hub removed for good never comes
/// back).
struct Owner {
    parent: u32,
    data_dir: PathBuf,
}

impl Owner {
    fn now(data_dir: PathBuf) -> Owner {
        Owner {
            parent: std::os::unix::process::parent_id(),
            data_dir,
        }
    }

    /// Why the wait should end, if it should.
    fn gone(&self) -> Option<String> {
        if std::os::unix::process::parent_id() != self.parent {
            return Some("the process that started it has ended".into());
        }
        (!self.data_dir.is_dir())
            .then(|| format!("the hub's data folder {} is gone", self.data_dir.display()))
    }
}

enum Outcome {
    Delivered,
    /// Every message offered was printed by an earlier wait (whose confirmation the hub lost): confirmed
    /// again, nothing printed, and the wait goes on.
    Repeated,
    /// Claude Code holds something for the model (the hub's words, printed): the wait ends so that the
    /// tool call does, and Claude Code hands it over.
    Notice(String),
    Refused(String),
    Lost(String),
}

pub fn run() -> Result<(), String> {
    let env = AgentEnv::require()?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        register(signal, &stop);
    }
    if !env.data_dir.is_dir() {
        return Err(format!(
            "no hub has a data folder at {} (set CLAWMUX_HOME to the hub's)",
            env.data_dir.display()
        ));
    }
    let _pid = PidFile::create(&env);
    let owner = Owner::now(env.data_dir.clone());
    let mut told = false;
    while !stop.load(Ordering::Relaxed) {
        if let Some(why) = owner.gone() {
            return Err(format!("nothing left to wait for: {why}"));
        }
        match once(&env, &stop, &owner) {
            Outcome::Delivered => return Ok(()),
            Outcome::Notice(line) => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{}", clawmux_core::printable::one_line(&line, 400));
                let _ = out.flush();
                return Ok(());
            }
            Outcome::Repeated => {}
            Outcome::Refused(why) => return Err(why),
            Outcome::Lost(why) => {
                if !told {
                    eprintln!("clawmux wait: {why}; reconnecting until the hub is back");
                    told = true;
                }
                std::thread::sleep(RETRY);
            }
        }
    }
    Err("interrupted".into())
}

fn once(env: &AgentEnv, stop: &AtomicBool, owner: &Owner) -> Outcome {
    match connect(env) {
        Ok(ws) => listen(ws, stop, owner, &Printed::of(env)),
        Err(outcome) => outcome,
    }
}

/// Opens the wait's socket, or says why not.
fn connect(env: &AgentEnv) -> Result<WebSocket<UnixStream>, Outcome> {
    // The hub's private socket, never its TCP port: see `client`.
    let stream = UnixStream::connect(&env.hub.socket).map_err(|e| {
        Outcome::Lost(format!(
            "cannot connect to the hub at {}: {e}",
            env.hub.socket.display()
        ))
    })?;
    let url = format!("ws://localhost/ws/wait/{}", env.session);
    let mut request = url
        .into_client_request()
        .map_err(|e| Outcome::Refused(format!("bad agent name: {e}")))?;
    if let Some(token) = &env.hub.token {
        let value = format!("Bearer {token}")
            .parse()
            .map_err(|_| Outcome::Refused("the token is not valid header text".into()))?;
        request.headers_mut().insert("Authorization", value);
    }
    let ws = match tungstenite::client(request, stream) {
        Ok((ws, _)) => ws,
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
            let body = resp
                .body()
                .as_deref()
                .map(String::from_utf8_lossy)
                .unwrap_or_default();
            return Err(Outcome::Refused(format!(
                "the hub refused the wait ({}): {body}",
                resp.status()
            )));
        }
        Err(e) => return Err(Outcome::Lost(format!("handshake failed: {e}"))),
    };
    let _ = ws.get_ref().set_read_timeout(Some(TICK));
    Ok(ws)
}

/// Waits on an open socket for the messages, a refusal or the end of the connection.
fn listen(
    mut ws: WebSocket<UnixStream>,
    stop: &AtomicBool,
    owner: &Owner,
    printed: &Printed,
) -> Outcome {
    loop {
        if stop.load(Ordering::Relaxed) {
            let _ = ws.close(None);
            return Outcome::Lost("interrupted".into());
        }
        if let Some(why) = owner.gone() {
            let _ = ws.close(None);
            return Outcome::Refused(format!("nothing left to wait for: {why}"));
        }
        match ws.read() {
            Ok(Message::Text(text)) => match serde_json::from_str(&text) {
                Ok(WaitFrame::Messages { messages }) => {
                    return deliver(&mut ws, &messages, printed)
                }
                Ok(WaitFrame::Notice { line }) => {
                    let _ = ws.close(None);
                    let _ = ws.flush();
                    return Outcome::Notice(line);
                }
                Ok(WaitFrame::Ack) | Err(_) => continue,
            },
            Ok(Message::Close(Some(frame))) => {
                return match WaitClose::from_code(frame.code.into()) {
                    Some(_) => Outcome::Refused(frame.reason.to_string()),
                    None if frame.code == CloseCode::Away => {
                        Outcome::Lost("the hub is shutting down".into())
                    }
                    None => {
                        Outcome::Lost(format!("the hub closed the connection: {}", frame.reason))
                    }
                };
            }
            Ok(Message::Close(None)) => {
                return Outcome::Lost("the hub closed the connection".into())
            }
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Binary(_) | Message::Frame(_)) => {}
            // A tick without data, or a signal (a socket read with a timeout is not restarted after
            // one): read again; the loop's first line looks at the stop flag.
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Outcome::Lost(format!("connection lost: {e}")),
        }
    }
}

/// Prints the messages offered that no wait printed before, then confirms them all: a repeated offer (the
/// hub lost the last confirmation) is confirmed without printing anything twice.
fn deliver(ws: &mut WebSocket<UnixStream>, messages: &[WaitMessage], printed: &Printed) -> Outcome {
    let before = printed.ids();
    let fresh: Vec<&WaitMessage> = messages
        .iter()
        .filter(|m| !before.contains(&printed_key(m)))
        .collect();
    print_messages(&fresh);
    printed.add(fresh.iter().map(|m| printed_key(m)));
    // Printed and flushed: now the hub may count them as handed over.
    if let Ok(ack) = serde_json::to_string(&WaitFrame::Ack) {
        let _ = ws.send(Message::Text(ack.into()));
    }
    let _ = ws.close(None);
    let _ = ws.flush();
    if fresh.is_empty() {
        Outcome::Repeated
    } else {
        Outcome::Delivered
    }
}

fn print_messages(messages: &[&WaitMessage]) {
    let mut out = std::io::stdout().lock();
    for m in messages {
        let _ = writeln!(out, "{}", m.line);
    }
    let _ = out.flush();
}

/// Sets `flag` when `signal` arrives; the wait loop notices within one tick and cleans up.
fn register(signal: libc::c_int, flag: &Arc<AtomicBool>) {
    if let Err(e) = signal_hook::flag::register(signal, flag.clone()) {
        eprintln!("clawmux wait: cannot watch signal {signal}: {e}");
    }
}
