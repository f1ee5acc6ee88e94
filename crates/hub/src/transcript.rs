//! Watching each agent's Claude Code transcript for what no hook reports: an Escape interrupt, a rejected
//! or answered tool call.
//!
//! Every hook names the transcript (`transcript_path`); the first time an agent names a file, one task starts
//! watching it with `notify` (its folder, so a file not yet created or replaced is seen too) and reads only
//! the bytes added since the last read, from where the file ended when the hook named it: history is not
//! replayed, and nothing written once the hook is answered is missed, however late the watch's task runs.
//! A half-written last line waits for its newline.
//!
//! The transcript is written asynchronously and lags the hooks. So the lines a read brings are held for a
//! short reorder window, applied in the order of their own timestamps, and the machine drops any line older
//! than the agent's watermark (the latest source time it applied): a late line never overwrites a newer
//! decision.
//!
//! The model's answers' usage (`message.usage`) goes to the usage feature, which counts each answer once;
//! work Claude Code runs in the background, to the agent's row (`background.rs`).
//! A transcript Claude Code rewrote in place or replaced is read again from its start (`reading.rs`), and
//! what it holds up to the latest time already read is not counted again.

use std::path::{Component, Path, PathBuf};

use clawmux_core::between::handed_ids;
use clawmux_core::transcript::{parse_line, Entry, Lines};
use clawmux_core::usage::Used;
use clawmux_core::wire::MsgId;
use clawmux_core::{Event, Millis, Source};
use notify::Watcher;
use tokio::sync::mpsc;

use crate::between::Between;
use crate::clock::now;
use crate::found::{Finds, Found};
use crate::live::Watching;
use crate::states::States;
use crate::usage::Usage;
use reading::Reading;

pub(crate) mod background;
mod reading;

/// The soonest a transcript watch that could not start is tried again.
const RETRY_WATCH: std::time::Duration = std::time::Duration::from_millis(250);
/// The longest pause between two tries of a watch whose folder is not there yet.
const RETRY_WATCH_AT_MOST: std::time::Duration = std::time::Duration::from_secs(5);

/// The most bytes read from a transcript in one go.
const READ_CHUNK: usize = 1024 * 1024;

/// Whether a hook's `transcript_path` may be read: an absolute `.jsonl` path with no `..`.
fn acceptable(path: &Path) -> bool {
    path.is_absolute()
        && path.extension().is_some_and(|e| e == "jsonl")
        && !path.components().any(|c| matches!(c, Component::ParentDir))
}

/// Following an agent's transcript, to learn what hooks do not say (a compaction's end, the agent's summary):
/// made once with the states (each agent's watch lives in its `Live`; its background work is told to the
/// window), the usage feature its answers go to, where the entries it finds go (the state machine, one
/// way), and the reorder window.
#[derive(Clone)]
pub(crate) struct Transcripts {
    states: States,
    usage: Usage,
    between: Between,
    finds: Finds,
    reorder_window: std::time::Duration,
    /// Following a transcript is the hub's task.
    tasks: crate::tasks::Tasks,
}

impl Transcripts {
    pub(crate) fn new(
        states: States,
        usage: Usage,
        between: Between,
        finds: Finds,
        reorder_window: std::time::Duration,
        tasks: crate::tasks::Tasks,
    ) -> Transcripts {
        Transcripts {
            states,
            usage,
            between,
            finds,
            reorder_window,
            tasks,
        }
    }

    /// Watches the transcript of the main agent's hook, if it names one.
    pub(crate) fn follow(&self, agent: &str, event: &Event) {
        if let Event::Hook(clawmux_core::Hook {
            transcript_path: Some(path),
            subagent: None,
            ..
        }) = event
        {
            self.watch_transcript(agent, path);
        }
    }

    /// Watches the transcript a hook named, unless it is already watched. Cheap when it is: a lock and a
    /// comparison, on the hook's path. A watch whose folder is not there yet (Claude Code creates it after
    /// its first hooks) tries again by itself; one that could not start at all is tried again at a later
    /// hook, [`RETRY_WATCH`] after the last try at the soonest: each try starts a watcher thread, and a busy
    /// agent's hooks come hundreds a second.
    fn watch_transcript(&self, agent: &str, path: &str) {
        let path = Path::new(path);
        let Ok(live) = self.states.live(agent) else {
            return;
        };
        let mut slot = live.transcript();
        if slot.as_ref().is_some_and(|w| covers(w, path)) {
            return;
        }
        if !acceptable(path) {
            tracing::warn!(agent, path = %path.display(), "not watching a transcript path that is not an absolute .jsonl");
            return;
        }
        let from = match slot.as_ref() {
            Some(earlier) if earlier.path == path => earlier.from,
            _ => std::fs::metadata(path).map_or(0, |m| m.len()),
        };
        let task = self.tasks.spawn(self.clone().follow_file(
            agent.to_owned(),
            path.to_owned(),
            from,
        ));
        *slot = Some(Watching {
            path: path.to_owned(),
            task,
            since: tokio::time::Instant::now(),
            from,
        });
    }

    /// Follows one transcript from the offset `from` until the task is aborted (another path, or the hub ends).
    async fn follow_file(self, agent: String, path: PathBuf, from: u64) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let file = path.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if event.as_ref().map_or(true, |e| may_have_grown(e, &file)) {
                let _ = tx.send(());
            }
        });
        let folder = path.parent().map(Path::to_owned).unwrap_or_default();
        let mut watcher = match watcher {
            Ok(w) => w,
            Err(e) => {
                tracing::debug!(agent, error = %e, "cannot watch transcripts");
                return;
            }
        };
        // Claude Code makes the transcript's folder after its first hooks, and an agent that goes into its
        // wait then sends none for a while: the watch is tried again here until the folder is there.
        let mut pause = RETRY_WATCH;
        while let Err(e) = watcher.watch(&folder, notify::RecursiveMode::NonRecursive) {
            tracing::debug!(agent, path = %path.display(), error = %e, "cannot watch the transcript yet");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(RETRY_WATCH_AT_MOST);
        }
        tracing::debug!(agent, path = %path.display(), from, "following the transcript");
        let window = self.reorder_window;
        let mut reading = Reading::from(from);
        let mut lines = Lines::default();
        // The latest time read, and after a start over, the time up to which lines were counted already.
        let (mut latest, mut counted_until) = (None, None);
        loop {
            let read_at = tokio::time::Instant::now();
            let (bytes, started_over) = match reading.next(&path).await {
                Ok(read) => (read.bytes, read.started_over),
                Err(e) => {
                    tracing::debug!(agent, path = %path.display(), error = %e, "transcript not readable yet");
                    (Vec::new(), false)
                }
            };
            if started_over {
                // Rewritten or replaced: its lines are read again, and what was counted is not again.
                lines = Lines::default();
                counted_until = latest.max(counted_until);
            }
            let mut brought = entries_of(&agent, &mut lines, &bytes);
            latest = brought.latest().max(latest);
            if let Some(until) = counted_until {
                brought.after(until);
            }
            self.carry(&agent, brought, read_at + window).await;
            // More may have been written meanwhile: read again before sleeping on the watcher.
            if bytes.len() == READ_CHUNK {
                continue;
            }
            if rx.recv().await.is_none() {
                return;
            }
            while rx.try_recv().is_ok() {}
        }
    }

    /// Hands what a read brought to whom it is for: the answers' usage and the messages seen at once, the
    /// entries to the machine once the reorder window since the read (`apply_from`) has passed, in order.
    async fn carry(&self, agent: &str, brought: Brought, apply_from: tokio::time::Instant) {
        let Brought {
            mut entries,
            answers,
            handed,
            queued,
            background,
        } = brought;
        for (_, what) in queued {
            self.queued(agent, &what);
        }
        for (_, what) in background {
            self.background(agent, what);
        }
        for (at, used) in answers {
            self.usage.answered(agent, &used, at).await;
        }
        for (at, ids) in handed {
            self.between.seen(agent, &ids, at).await;
        }
        if !entries.is_empty() {
            tokio::time::sleep_until(apply_from).await;
            entries.sort_by_key(|(at, _)| *at);
            for (at, entry) in entries {
                self.found(agent, at, entry);
            }
        }
    }

    /// Claude Code queued something for `agent`'s model: a wait under way ends, saying what, for the model
    /// to take it (Claude Code hands it over as the wait's tool call ends) and wait again. Without a wait,
    /// the tool call under way ends by itself and nothing is to be done.
    fn queued(&self, agent: &str, what: &str) {
        let line = format!(
            "[CLAWMUX] Claude Code has something for you: {what}. It comes with this result: deal with it, then run `clawmux wait` again."
        );
        if let Ok(live) = self.states.live(agent) {
            if live.mail.notice(line, crate::mailbox::Owed::ByClaudeCode) {
                tracing::info!(agent, what, "ended the wait for what Claude Code queued");
            } else {
                tracing::debug!(agent, what, "Claude Code queued something; no wait to end");
            }
        }
    }

    /// What `agent`'s transcript said of its work in the background: the window is told how much runs.
    fn background(&self, agent: &str, what: clawmux_core::background::Background) {
        let Ok(live) = self.states.live(agent) else {
            return;
        };
        if let Some(running) = live.background.note(what) {
            self.states.broadcast(crate::ui_event::UiEvent::Background {
                session_id: agent.to_owned(),
                running,
            });
        }
    }

    /// An entry of `agent`'s transcript, for the state machine.
    fn found(&self, agent: &str, at: Millis, entry: Entry) {
        let payload = serde_json::to_vec(&entry).unwrap_or_default();
        self.finds.send(Found {
            agent: agent.to_owned(),
            source: Source::Transcript,
            event: Event::Transcript(entry),
            payload,
            at,
            tell_status: false,
        });
    }
}

/// Whether `watching` stands for a watch of `path`: it runs, or it could not start a moment ago.
fn covers(watching: &Watching, path: &Path) -> bool {
    watching.path == path
        && (!watching.task.is_finished() || watching.since.elapsed() < RETRY_WATCH)
}

/// What a read of the transcript brings, each timed.
#[derive(Default)]
struct Brought {
    /// The entries for the machine.
    entries: Vec<(Millis, Entry)>,
    /// The model's answers' usage.
    answers: Vec<(Millis, Used)>,
    /// The messages the model received (their ids, as the hub's lines start them).
    handed: Vec<(Millis, Vec<MsgId>)>,
    /// What Claude Code queued for the model's next turn.
    queued: Vec<(Millis, String)>,
    /// What it said of work in the background.
    background: Vec<(Millis, clawmux_core::background::Background)>,
}

impl Brought {
    /// The latest time of what was brought.
    fn latest(&self) -> Option<Millis> {
        let entries = self.entries.iter().map(|(at, _)| *at);
        let answers = self.answers.iter().map(|(at, _)| *at);
        let handed = self.handed.iter().map(|(at, _)| *at);
        let queued = self.queued.iter().map(|(at, _)| *at);
        let background = self.background.iter().map(|(at, _)| *at);
        entries
            .chain(answers)
            .chain(handed)
            .chain(queued)
            .chain(background)
            .max()
    }

    /// Keeps only what is later than `until`: what a file read again holds of what was counted is not
    /// counted again.
    fn after(&mut self, until: Millis) {
        self.entries.retain(|(at, _)| *at > until);
        self.answers.retain(|(at, _)| *at > until);
        self.handed.retain(|(at, _)| *at > until);
        self.queued.retain(|(at, _)| *at > until);
        self.background.retain(|(at, _)| *at > until);
    }
}

/// What the whole lines in `bytes` say (a half-written last line waits in `lines`): the entries for the
/// machine, the model's answers' usage and the messages it received, each with its time; a subagent's
/// lines (sidechain) are not the agent's.
fn entries_of(agent: &str, lines: &mut Lines, bytes: &[u8]) -> Brought {
    let mut brought = Brought::default();
    for line in lines.feed(bytes) {
        match parse_line(&line) {
            Ok(l) if !l.sidechain => {
                let at = l.at.unwrap_or_else(now);
                brought
                    .entries
                    .extend(l.entries.into_iter().map(|e| (at, e)));
                brought.answers.extend(l.usage.map(|u| (at, u)));
                brought.queued.extend(l.queued.map(|q| (at, q)));
                brought.background.extend(l.background.map(|b| (at, b)));
                let ids = std::str::from_utf8(&line).map_or_else(|_| Vec::new(), handed_ids);
                if !ids.is_empty() {
                    brought.handed.push((at, ids));
                }
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(agent, error = %e, "skipped a transcript line"),
        }
    }
    brought
}

/// Whether a watcher event may mean the transcript has new bytes: a change of its content, or its creation,
/// removal or renaming (or an event that names no path, such as the watcher's own rescan). Opening, reading
/// and closing it do not: the watch includes them, and our own read of the file would wake us again, for
/// ever. Nor do changes of its metadata or of the other files in its folder (other sessions' transcripts).
fn may_have_grown(event: &notify::Event, transcript: &Path) -> bool {
    use notify::event::{EventKind, ModifyKind};
    let relevant_kind = match event.kind {
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Any
        | EventKind::Create(_)
        | EventKind::Modify(_)
        | EventKind::Remove(_)
        | EventKind::Other => true,
    };
    relevant_kind && (event.paths.is_empty() || event.paths.iter().any(|p| p == transcript))
}

#[cfg(test)]
mod tests;
