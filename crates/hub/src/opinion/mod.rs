//! A second opinion on each agent's indicator: Claude Code's own view of its session, read as it changes.
//!
//! Claude Code 2.1 writes `<claude dir>/sessions/<pid>.json` (status `idle`, `busy` or `waiting`) while a
//! process runs and removes it when it ends. The hub watches that folder (inotify through `notify`, never a
//! poll), matches each file's `sessionId` to an agent (spawned and observed agents know theirs), and keeps
//! the latest status. It never moves our state (`clawmux_core::opinion`); when the two views disagree for
//! longer than [`Options::second_opinion_after`](crate::config::Options) the disagreement is recorded
//! once, as a decision (`claude:status`), so the explanation and a report show both views. Only the
//! `.json` files are read (the folder also holds each session's peer key, which is none of our business).
//!
//! An agent in the terminal bridge also reports its state itself ([`SecondOpinion::reported`], from
//! `POST /api/status-report`); from its first report on, the reports are Claude Code's view of it.
//!
//! [`Judge`] holds the rule over time and needs no hub: the watcher and the hub's status feed tell it what
//! each side says, and it says when a disagreement has lasted long enough to record.

pub(crate) mod judge;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use clawmux_core::opinion::ClaudeStatus;
use clawmux_core::program_status::StatusReport;
use clawmux_core::{Attention, Event, Source, State};
use clawmux_store::Store;
use notify::Watcher;
use tokio::sync::{broadcast, mpsc, Notify};
use tokio::time::Instant;

use crate::clock::now;
use crate::found::{Finds, Found};
use crate::ui_event::UiEvent;
use clawmux_core::sync::Locked;
pub(crate) use judge::{Due, Judge, Opinions, Tally};

/// One session file, as much of it as the rule needs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
struct SessionFile {
    #[serde(rename = "sessionId")]
    session_id: String,
    status: String,
    #[serde(rename = "waitingFor", default)]
    waiting_for: Option<String>,
}

/// Claude Code's folder of running sessions: `$CLAUDE_CONFIG_DIR/sessions`, else `~/.claude/sessions`.
pub fn sessions_dir() -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir).join("sessions")),
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".claude").join("sessions")),
    }
}

/// Whether an event may have changed what a folder holds. Opening, reading and closing a file are events
/// too: heard, the file read again would be heard again, a loop that kept a core busy for as long as a
/// Claude Code session file existed.
fn may_change(kind: notify::EventKind) -> bool {
    match kind {
        notify::EventKind::Access(_) => false,
        notify::EventKind::Any
        | notify::EventKind::Create(_)
        | notify::EventKind::Modify(_)
        | notify::EventKind::Remove(_)
        | notify::EventKind::Other => true,
    }
}

/// Reads one session file; `None` for anything that is not one (a key file, half written, too large).
fn read_session(path: &Path) -> Option<SessionFile> {
    if path.extension().is_none_or(|e| e != "json") {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// What the watcher loop hears.
enum Heard {
    File(PathBuf),
    Due(Due),
}

/// Claude Code's own view of each session, read beside ours: the watcher of its sessions folder and the
/// disagreements worth recording. Made once with the store (which agent a session is), the window's feed
/// (our side of each agent), the judge it shares with the explanation, and where a disagreement goes to be
/// recorded (the state machine, one way).
#[derive(Clone)]
pub(crate) struct SecondOpinion {
    store: Store,
    ui: broadcast::Sender<UiEvent>,
    opinions: Opinions,
    finds: Finds,
    /// Wakes the watcher to look for the sessions folder again (an agent started).
    poke: Arc<Notify>,
}

impl SecondOpinion {
    pub(crate) fn new(
        store: Store,
        ui: broadcast::Sender<UiEvent>,
        opinions: Opinions,
        finds: Finds,
    ) -> SecondOpinion {
        SecondOpinion {
            store,
            ui,
            opinions,
            finds,
            poke: Arc::default(),
        }
    }

    /// An agent started or a session appeared: Claude Code's sessions folder may exist now.
    pub(crate) fn poke(&self) {
        self.poke.notify_one();
    }

    /// Watches Claude Code's session files until `tasks` stop. Until their folder exists, the nearest
    /// folder above it that does is watched for it to appear (and an agent's start pokes it).
    pub(crate) fn start(&self, tasks: &crate::tasks::Tasks) {
        let watcher = self.clone();
        tasks.spawn(async move { watcher.watch_claude_sessions().await });
    }

    /// Watches Claude Code's session files (see [`SecondOpinion::start`]).
    async fn watch_claude_sessions(&self) {
        let Some(dir) = sessions_dir() else { return };
        let mut ours = self.ui.subscribe();
        let (tx, mut rx) = mpsc::unbounded_channel::<Heard>();
        // What is watched: the sessions folder itself (true), or a folder above it (false).
        let mut watching: Option<(notify::RecommendedWatcher, PathBuf)> = None;
        // Which file said which session, so a removed file (the process ended) is known.
        let mut files: HashMap<PathBuf, String> = HashMap::new();
        let mut look = true;
        loop {
            if look {
                look = false;
                let target = std::iter::successors(Some(dir.as_path()), |d| d.parent())
                    .take(3)
                    .find(|d| d.is_dir())
                    .filter(|t| watching.as_ref().is_none_or(|(_, w)| w != t));
                if let Some(target) = target {
                    if let Some(w) = watch_folder(target, &dir, &tx) {
                        watching = Some((w, target.to_owned()));
                    }
                }
            }
            tokio::select! {
                heard = rx.recv() => match heard {
                    Some(Heard::File(path)) if path.parent() == Some(dir.as_path()) => {
                        self.session_file_changed(&path, &mut files, &tx).await;
                    }
                    Some(Heard::File(_)) => look = true,
                    Some(Heard::Due(due)) => self.record_if_due(&due),
                    None => return,
                },
                event = ours.recv() => match event {
                    Ok(UiEvent::SessionStatus { session_id, state, needs, .. }) => {
                        let attention = needs.map(|n| n.attention);
                        self.our_status_changed(&session_id, state, attention, &tx);
                    }
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                () = self.poke.notified() => look = true,
            }
        }
    }

    async fn session_file_changed(
        &self,
        path: &Path,
        files: &mut HashMap<PathBuf, String>,
        tx: &mpsc::UnboundedSender<Heard>,
    ) {
        let read = {
            let path = path.to_owned();
            tokio::task::spawn_blocking(move || read_session(&path))
                .await
                .ok()
                .flatten()
        };
        let (session, status, waiting_for) = match read {
            Some(f) => {
                files.insert(path.to_owned(), f.session_id.clone());
                (f.session_id, ClaudeStatus::parse(&f.status), f.waiting_for)
            }
            None if !path.exists() => match files.remove(path) {
                Some(session) => (session, ClaudeStatus::Gone, None),
                None => return,
            },
            None => return,
        };
        let Ok(Some(row)) = self.store.agent_by_claude_session(&session).await else {
            return;
        };
        if !self.judge().knows_ours(&row.name) {
            let _ = self
                .judge()
                .our_view(&row.name, row.snapshot.clone(), Instant::now());
        }
        let due = self
            .judge()
            .their_view(&row.name, status, waiting_for, Instant::now());
        schedule(due, tx);
    }

    /// A status report of `agent`'s (the bridge posts each as it comes). A child record's (a subagent's,
    /// a task's) says nothing of the session's state and is only counted.
    pub(crate) async fn reported(&self, agent: &str, report: &StatusReport) {
        let Some((status, waiting_for)) = ClaudeStatus::reported(report) else {
            return;
        };
        if !self.judge().knows_ours(agent) {
            let Ok(row) = self.store.agent(agent).await else {
                return;
            };
            let _ = self.judge().our_view(agent, row.snapshot, Instant::now());
        }
        tracing::debug!(agent, state = report.state.as_str(), "status report");
        let due = self
            .judge()
            .reported(agent, status, waiting_for, Instant::now());
        if let Some(due) = due {
            let later = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep_until(due.at).await;
                later.record_if_due(&due);
            });
        }
    }

    /// How long the status reports and the indicator have agreed and disagreed, for `/metrics`.
    pub(crate) fn tally(&self) -> judge::Tally {
        self.judge().tally(Instant::now())
    }

    fn our_status_changed(
        &self,
        agent: &str,
        state: State,
        attention: Option<Attention>,
        tx: &mpsc::UnboundedSender<Heard>,
    ) {
        tracing::debug!(agent, ?state, needs = attention.is_some(), "our status");
        let due = self
            .judge()
            .our_status(agent, state, attention, Instant::now());
        schedule(due, tx);
    }

    fn record_if_due(&self, due: &Due) {
        let opinion = self.judge().take_due(due, Instant::now());
        let Some(opinion) = opinion else { return };
        let payload = serde_json::to_vec(&opinion).unwrap_or_default();
        tracing::info!(agent = %due.agent, why = %opinion.why, "Claude Code's own view disagrees");
        // The indicator does not move, but an open explanation has something new to show.
        self.finds.send(Found {
            agent: due.agent.clone(),
            source: Source::Hub,
            event: Event::SecondOpinion(opinion),
            payload,
            at: now(),
            tell_status: true,
        });
    }

    fn judge(&self) -> std::sync::MutexGuard<'_, Judge> {
        self.opinions.locked()
    }
}

/// Watches `target`, the sessions folder `dir` or a folder above it until `dir` is there: what changes in it
/// is heard on `tx` (and, for `dir` itself, each file in it at once). `None` when it cannot be watched yet.
fn watch_folder(
    target: &Path,
    dir: &Path,
    tx: &mpsc::UnboundedSender<Heard>,
) -> Option<notify::RecommendedWatcher> {
    let send = tx.clone();
    let made = notify::recommended_watcher(move |e: notify::Result<notify::Event>| {
        if let Ok(e) = e {
            if may_change(e.kind) {
                for p in e.paths {
                    let _ = send.send(Heard::File(p));
                }
            }
        }
    })
    .and_then(|mut w| {
        w.watch(target, notify::RecursiveMode::NonRecursive)
            .map(|()| w)
    });
    match made {
        Ok(w) => {
            if target == dir {
                for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                    let _ = tx.send(Heard::File(entry.path()));
                }
            }
            Some(w)
        }
        Err(e) => {
            tracing::debug!(error = %e, "cannot watch Claude Code's sessions yet");
            None
        }
    }
}

/// Looks at a disagreement again when it may have lasted long enough.
fn schedule(due: Option<Due>, tx: &mpsc::UnboundedSender<Heard>) {
    let Some(due) = due else { return };
    let tx = tx.clone();
    tokio::spawn(async move {
        tokio::time::sleep_until(due.at).await;
        let _ = tx.send(Heard::Due(due));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_a_session_file_is_no_change_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("12.json");
        std::fs::write(&file, r#"{"pid":12,"sessionId":"abc","status":"busy"}"#).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .unwrap();
        watcher
            .watch(dir.path(), notify::RecursiveMode::NonRecursive)
            .unwrap();
        let next = || {
            rx.recv_timeout(std::time::Duration::from_secs(10))
                .unwrap()
                .unwrap()
        };
        // The hub's own read is heard (as an open, an access, a close), and none of it is a change.
        assert!(read_session(&file).is_some());
        let heard = next();
        assert!(!may_change(heard.kind), "{heard:?}");
        std::fs::write(&file, r#"{"pid":12,"sessionId":"abc","status":"idle"}"#).unwrap();
        while !may_change(next().kind) {}
    }

    #[test]
    fn only_session_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("12.json");
        std::fs::write(
            &json,
            r#"{"pid":12,"sessionId":"abc","status":"waiting","waitingFor":"permission prompt"}"#,
        )
        .unwrap();
        let key = dir.path().join("12.f00.key");
        std::fs::write(&key, r#"{"sessionId":"abc","status":"idle"}"#).unwrap();
        let half = dir.path().join("13.json");
        std::fs::write(&half, r#"{"pid":13,"sessionId":"#).unwrap();
        let f = read_session(&json).unwrap();
        assert_eq!(
            (f.session_id.as_str(), f.status.as_str()),
            ("abc", "waiting")
        );
        assert_eq!(f.waiting_for.as_deref(), Some("permission prompt"));
        assert_eq!(read_session(&key), None);
        assert_eq!(read_session(&half), None);
    }
}
