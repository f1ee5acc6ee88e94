//! Real agents: spawning Claude Code in a tmux session with ClawMux's hooks, keeping it in the loop, and
//! ending it cleanly.
//!
//! Every step that can fail is checked before anything is created (the name, tmux, the `claude` program,
//! the work folder), and what was created is removed again if the start itself fails, so a failed spawn
//! leaves nothing behind. A spawn returns as soon as tmux has started the process; the agent then shows
//! STARTING until its first `clawmux wait` connects. The process is watched by [`supervise`] from start
//! to end; after an app restart the hub finds the tmux sessions again and adopts them ([`Hub::adopt`]).

pub mod launch;
pub mod process;
pub mod pulse;
pub(crate) mod running;
mod supervise;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use clawmux_core::wire::Code;
use clawmux_core::wire::{check_agent_name, Kind, Message};
use clawmux_core::{Event, Source, State};
use clawmux_store::NewMessage;
use serde::Deserialize;
use serde_json::json;

use crate::error::HubError;
use crate::hub::{now, Hub};
use crate::live::Live;
use crate::ui_event::{EndReason, SessionInfo, UiEvent};
use launch::{Launch, Start};
use tmux::TmuxError;

/// How many terminal lines a report shows.
const REPORT_LINES: u32 = 15;
/// How long an agent has to end on SIGTERM before it is killed.
const END_GRACE: Duration = Duration::from_secs(3);
/// The sender of the hub's own notes in a conversation.
pub const HUB_SENDER: &str = "clawmux";

/// A request to start a new agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnRequest {
    /// A plain identifier.
    pub name: String,
    /// Absolute; default `<data dir>/agents/<name>`.
    pub work_dir: Option<PathBuf>,
    /// `--model` for Claude Code.
    pub model: Option<String>,
    /// Claude Code's executable (default: the hub's, `claude` on PATH).
    pub command: Option<String>,
    /// Extra flags for Claude Code.
    #[serde(default)]
    pub args: Vec<String>,
    /// Run the built-in demo agent instead of Claude Code.
    #[serde(default)]
    pub demo: bool,
}

impl From<TmuxError> for HubError {
    fn from(e: TmuxError) -> HubError {
        match e {
            TmuxError::Missing { .. } => HubError::new(Code::TmuxMissing, e.to_string()),
            TmuxError::Failed { .. } => HubError::new(Code::TmuxFailed, e.to_string()),
        }
    }
}

/// Files a start wrote that did not exist before, removed again if the start fails.
#[derive(Default)]
struct Created(Vec<PathBuf>);

impl Created {
    fn undo(self) {
        for path in self.0.into_iter().rev() {
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// Creates `dir` and its missing parents, noting the first one created.
fn create_dir(dir: &Path, created: &mut Created) -> std::io::Result<()> {
    let mut missing = dir;
    let mut first = None;
    while !missing.exists() {
        first = Some(missing.to_owned());
        match missing.parent() {
            Some(p) => missing = p,
            None => break,
        }
    }
    std::fs::create_dir_all(dir)?;
    if let Some(first) = first {
        created.0.push(first);
    }
    Ok(())
}

impl Hub {
    /// Whether Claude Code and tmux can be found: the UI offers the demo agent when Claude Code cannot.
    pub async fn capabilities(&self) -> serde_json::Value {
        let claude = launch::resolve_program(&self.options().claude);
        json!({
            "claude": claude.map(|p| p.display().to_string()),
            "tmux": self.tmux().check().await.is_ok(),
            "tmux_socket": self.tmux().socket().display().to_string(),
            // Agents of an original installation in the data folder not imported yet: the app offers it.
            "to_import": self.original_not_imported(),
        })
    }

    /// Starts a new agent in its own tmux session. Returns once the process runs; everything after
    /// arrives as events. Refuses, having created nothing, a bad name, a taken name, a work folder that
    /// cannot be made, a missing Claude Code or a missing tmux.
    pub async fn spawn(&self, req: SpawnRequest) -> Result<SessionInfo, HubError> {
        let name = req.name.as_str();
        check_agent_name(name).map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        if self.live(name).is_ok() {
            return Err(HubError::new(
                Code::AgentExists,
                format!("agent `{name}` already exists"),
            ));
        }
        self.port()?;
        let program = if req.demo {
            self.options().clawmux.clone()
        } else {
            let wanted = req.command.as_deref().unwrap_or(&self.options().claude);
            launch::resolve_program(wanted).ok_or_else(|| {
                HubError::new(
                    Code::ClaudeMissing,
                    format!(
                        "Claude Code (`{wanted}`) is not installed or not executable; install it, \
                         name its path, or start the demo agent"
                    ),
                )
            })?
        };
        self.tmux().check().await?;
        let (work_dir, work_str) = self.work_dir_for(name, req.work_dir.as_deref())?;
        let launch = Launch {
            program,
            args: req.args.clone(),
            model: req.model.clone(),
            demo: req.demo,
        };
        let mut created = Created::default();
        if let Err(e) = create_dir(&work_dir, &mut created) {
            created.undo();
            return Err(HubError::new(
                Code::BadWorkDir,
                format!("cannot create the work folder {}: {e}", work_dir.display()),
            ));
        }
        let launch_json = serde_json::to_string(&launch)
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        let row = match self
            .store()
            .add_launched_agent(name, &work_str, Some(&launch_json), now())
            .await
        {
            Ok(row) => row,
            Err(e) => {
                created.undo();
                return Err(e.into());
            }
        };
        self.insert_live(name, work_dir.clone());
        if let Err(e) = self
            .start_process(name, &work_dir, &launch, None, &mut created)
            .await
        {
            self.remove_live(name);
            let _ = self.store().forget_new_agent(name).await;
            created.undo();
            return Err(e);
        }
        let info = SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, 0)
            .with_launch(Some(&launch), None);
        self.broadcast(UiEvent::SessionSpawned {
            session: info.clone(),
        });
        Ok(info)
    }

    /// Writes the agent's instructions and settings and starts its process in tmux, with `resume` the
    /// Claude conversation to continue (a new one otherwise). Starts the supervisor.
    async fn start_process(
        &self,
        name: &str,
        work_dir: &Path,
        launch: &Launch,
        resume: Option<&str>,
        created: &mut Created,
    ) -> Result<(), HubError> {
        let port = self.port()?;
        let clawmux = self.options().clawmux.clone();
        let launch_dir = launch::launch_dir(self.data_dir(), name);
        let io = |what: &str, path: &Path, e: std::io::Error| {
            HubError::new(
                Code::BadWorkDir,
                format!("cannot write {what} {}: {e}", path.display()),
            )
        };
        create_dir(&launch_dir, created).map_err(|e| io("the folder", &launch_dir, e))?;
        let settings = launch_dir.join("settings.json");
        crate::config::write_private(
            &settings,
            launch::settings(&clawmux, self.options().bash_timeout)
                .to_string()
                .as_bytes(),
        )
        .map_err(|e| io("the settings", &settings, e))?;
        let instructions = launch::instructions(name);
        let claude_md = work_dir.join("CLAUDE.md");
        let existing = std::fs::read_to_string(&claude_md).ok();
        let append_prompt = if launch::instructions_ours(existing.as_deref()) {
            if existing.is_none() {
                created.0.push(claude_md.clone());
            }
            std::fs::write(&claude_md, &instructions)
                .map_err(|e| io("the instructions", &claude_md, e))?;
            None
        } else {
            Some(instructions.as_str())
        };
        let session = resume.map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned);
        let argv = launch::argv(&Start {
            name,
            launch,
            settings: &settings,
            claude_session: &session,
            resume: resume.is_some(),
            append_prompt,
            clawmux: &clawmux,
        });
        let env = launch::env(name, port, work_dir, self.data_dir(), &clawmux);
        // A dead pane of an earlier run may still hold the name.
        self.tmux().kill(name).await?;
        let pid = self.tmux().start(name, work_dir, &env, &argv).await?;
        tracing::info!(
            agent = name,
            pid,
            resume = resume.is_some(),
            "agent started"
        );
        let live = self.live(name)?;
        *live.run.process() = Some(pid);
        live.run
            .pulse
            .send_modify(|p| *p = pulse::Pulse::new(State::Starting));
        tokio::spawn(supervise::supervise(self.clone(), name.to_owned(), pid));
        Ok(())
    }

    /// The launch spec of an agent the hub starts, or why it has none.
    async fn launch_of(&self, name: &str) -> Result<(clawmux_store::AgentRow, Launch), HubError> {
        let row = self.store().agent(name).await?;
        let launch = row
            .launch
            .as_deref()
            .map(serde_json::from_str::<Launch>)
            .transpose()
            .map_err(|e| {
                HubError::new(Code::CorruptLaunch, format!("agent `{name}`'s launch: {e}"))
            })?
            .ok_or_else(|| {
                HubError::new(
                    Code::NotManaged,
                    format!("agent `{name}` runs on its own; ClawMux did not start it and cannot"),
                )
            })?;
        Ok((row, launch))
    }

    /// An agent the hub started and whose process runs now: its live data and the pid.
    async fn running(&self, name: &str) -> Result<(Arc<Live>, u32), HubError> {
        self.launch_of(name).await?;
        let live = self.live(name)?;
        let pid = *live.run.process();
        pid.map(|pid| (live, pid)).ok_or_else(|| {
            HubError::new(Code::NotRunning, format!("agent `{name}` is not running"))
        })
    }

    /// Ends an agent's process tree; returns once it is recorded DEAD. Its history stays.
    pub async fn terminate(&self, name: &str) -> Result<SessionInfo, HubError> {
        let (live, pid) = self.running(name).await?;
        let mut pulse = live.run.pulse.subscribe();
        live.run.ending.store(true, Ordering::SeqCst);
        process::end_tree(pid, END_GRACE).await.map_err(|e| {
            HubError::new(Code::TerminateFailed, format!("cannot end `{name}`: {e}"))
        })?;
        // The supervisor saw the exit too; it records DEAD and closes the session.
        tokio::time::timeout(
            Duration::from_secs(10),
            pulse.wait_for(|p| p.state == State::Dead),
        )
        .await
        .map_err(|_| {
            HubError::new(
                Code::TerminateFailed,
                format!("`{name}` ended but was not recorded"),
            )
        })?
        .map_err(|_| HubError::new(Code::TerminateFailed, "the hub is stopping".to_owned()))?;
        self.session(name).await
    }

    /// Starts an agent again, resuming its Claude conversation; ends it first if it runs.
    pub async fn restart(&self, name: &str) -> Result<SessionInfo, HubError> {
        // The conversation id only changes at a SessionStart, which a stopped agent cannot send: the row
        // read here still holds the right one after the terminate below.
        let (row, launch) = self.launch_of(name).await?;
        let live = self.live(name)?;
        if live.run.process().is_some() {
            self.terminate(name).await?;
        }
        if !launch.demo && launch::resolve_program(&launch.program.to_string_lossy()).is_none() {
            return Err(HubError::new(
                Code::ClaudeMissing,
                format!("{} is no longer installed", launch.program.display()),
            ));
        }
        self.tmux().check().await?;
        let _lifecycle = live.run.lifecycle.lock().await;
        self.apply(name, Source::Hub, &Event::Spawned, b"").await?;
        let resume = row.claude_session_id;
        let mut created = Created::default();
        if let Err(e) = self
            .start_process(
                name,
                &live.work_dir,
                &launch,
                resume.as_deref(),
                &mut created,
            )
            .await
        {
            self.apply(name, Source::Hub, &Event::Terminated, b"")
                .await?;
            return Err(e);
        }
        self.set_problem(name, None);
        self.session(name).await
    }

    /// Presses Escape in the agent's terminal: Claude Code stops what it is doing.
    pub async fn interrupt(&self, name: &str) -> Result<(), HubError> {
        let (live, _) = self.running(name).await?;
        self.tmux().key(name, "Escape").await?;
        // Claude Code fires no hook for an interrupt: the hub records its own, which ends the running
        // tool's activity and any wait for the user, and starts the short reminder clock.
        drop(live);
        self.apply(name, Source::Ui, &Event::Interrupted, b"")
            .await?;
        Ok(())
    }

    /// After a start of the hub: takes over the agents it started earlier whose tmux sessions still run,
    /// and records DEAD for those whose process ended while the hub was away.
    pub async fn adopt(&self) -> Result<(), HubError> {
        for row in self.store().agents().await? {
            if row.launch.is_none() {
                continue;
            }
            let pane = match self.tmux().pane(&row.name).await {
                Ok(pane) => pane,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot look for the agents' tmux sessions");
                    None
                }
            };
            match pane {
                Some(p) if p.ended.is_none() => {
                    let live = self.live(&row.name)?;
                    *live.run.process() = Some(p.pid);
                    live.run
                        .pulse
                        .send_modify(|pl| *pl = pulse::Pulse::new(row.snapshot.state));
                    tracing::info!(agent = %row.name, pid = p.pid, "adopted a running agent");
                    tokio::spawn(supervise::supervise(self.clone(), row.name.clone(), p.pid));
                }
                Some(_) => self.process_ended(&row.name).await,
                None if row.snapshot.state != State::Dead => {
                    self.apply(&row.name, Source::Hub, &Event::Terminated, b"")
                        .await?;
                    self.note(
                        &row.name,
                        &format!("`{}` was not running when ClawMux started.", row.name),
                    )
                    .await;
                }
                None => {}
            }
        }
        Ok(())
    }

    /// The agent's process has ended: records DEAD at once, closes its tmux session, ends what it left
    /// running, and, when nobody asked for the end, shows the user how it ended with the last lines of its
    /// terminal.
    pub(crate) async fn process_ended(&self, name: &str) {
        let Ok(live) = self.live(name) else { return };
        // A restart waits for this to finish, so the session closed below is never the new one.
        let _lifecycle = live.run.lifecycle.lock().await;
        let requested = live.run.ending.swap(false, Ordering::SeqCst);
        *live.run.process() = None;
        let payload = json!({ "requested": requested }).to_string();
        if let Err(e) = self
            .apply(name, Source::Hub, &Event::Terminated, payload.as_bytes())
            .await
        {
            tracing::error!(agent = name, error = %e, "cannot record the agent's end");
        }
        // After DEAD is recorded, so no wait can slip in between: a wait still open for it is closed.
        live.run.ended.notify_waiters();
        self.broadcast(UiEvent::SessionTerminated {
            session_id: name.to_owned(),
            reason: if requested {
                EndReason::Terminated
            } else {
                EndReason::Exited
            },
        });
        // What the agent left running (its tools, its `clawmux wait`) must not outlive it: an orphaned
        // wait would take the next agent's messages.
        let left = process::leftovers(name, self.data_dir());
        if !left.is_empty() {
            tracing::info!(
                agent = name,
                count = left.len(),
                "ending the agent's leftover processes"
            );
            tokio::spawn(process::end(left, END_GRACE));
        }
        let (ended, lines) = if requested {
            (None, String::new())
        } else {
            self.how_it_ended(name).await
        };
        if let Err(e) = self.tmux().kill(name).await {
            tracing::warn!(agent = name, error = %e, "cannot close the agent's tmux session");
        }
        if !requested {
            let how = format!("its process {}", ended.unwrap_or(tmux::Ended::Unknown));
            self.set_problem(name, Some(format!("Stopped: {how}")));
            self.note(
                name,
                &with_lines(&format!("`{name}` stopped: {how}."), &lines),
            )
            .await;
        }
    }

    /// How the agent's process ended and the last lines of its terminal, from its (remaining) pane.
    async fn how_it_ended(&self, name: &str) -> (Option<tmux::Ended>, String) {
        // The pidfd can report the exit before tmux has reaped the process and noted how it ended (its
        // pane reads dead before the status is known); give tmux a moment, bounded, so the user learns it.
        let mut pane = self.tmux().pane(name).await.ok().flatten();
        for _ in 0..25 {
            let known = pane.is_none_or(|p| {
                matches!(
                    p.ended,
                    Some(tmux::Ended::Exited(_) | tmux::Ended::Killed(_))
                )
            });
            if known {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            pane = self.tmux().pane(name).await.ok().flatten();
        }
        let Some(pane) = pane else {
            return (None, String::new());
        };
        let lines = self
            .tmux()
            .last_lines(name, REPORT_LINES)
            .await
            .unwrap_or_default();
        (pane.ended, lines)
    }

    /// The agent has not reached its first `clawmux wait` in time: show why, from its terminal.
    pub(crate) async fn report_slow_start(&self, name: &str) {
        let secs = self.options().start_timeout.as_secs_f64();
        let lines = self
            .tmux()
            .last_lines(name, REPORT_LINES)
            .await
            .unwrap_or_default();
        self.set_problem(name, Some(format!("Not started after {secs:.0} s")));
        self.note(
            name,
            &with_lines(
                &format!(
                    "`{name}` has not started after {secs:.0} s (no `clawmux wait` yet). \
                     Open its terminal with `clawmux attach {name}`."
                ),
                &lines,
            ),
        )
        .await;
    }

    /// Reminds an agent out of the loop to run `clawmux wait`, by typing into its terminal.
    pub(crate) async fn nudge(&self, name: &str, n: u32) {
        let max = self.options().nudge_max;
        let text = "ClawMux: you stopped outside `clawmux wait`, so the user cannot reach you. \
                    Run `clawmux wait` now.";
        if let Err(e) = self.tmux().type_line(name, text).await {
            tracing::warn!(agent = name, error = %e, "cannot remind the agent");
            return;
        }
        tracing::info!(agent = name, n, "reminded the agent to run clawmux wait");
        self.note(
            name,
            &format!("`{name}` stopped outside `clawmux wait`; reminded it ({n} of {max})."),
        )
        .await;
    }

    /// Reminders did not bring the agent back: the user must look.
    pub(crate) async fn report_out_of_loop(&self, name: &str) {
        let max = self.options().nudge_max;
        self.set_problem(name, Some("Out of the loop".to_owned()));
        self.note(
            name,
            &format!(
                "`{name}` is still outside `clawmux wait` after {max} reminders. Open its terminal \
                 with `clawmux attach {name}`, or restart it."
            ),
        )
        .await;
    }

    /// A note of the hub's in the agent's conversation, for the user (never handed to the agent).
    pub(crate) async fn note(&self, agent: &str, text: &str) {
        let note = NewMessage {
            agent,
            kind: Kind::System,
            sender: HUB_SENDER,
            recipient: Some("user"),
            text,
            parent: None,
            voice: false,
            idem_key: None,
            at: now(),
        };
        let stored: Result<Message, HubError> = self.append(&note).await;
        if let Err(e) = stored {
            tracing::warn!(agent, error = %e, "cannot store the hub's note");
        }
    }
}

fn with_lines(text: &str, lines: &str) -> String {
    if lines.trim().is_empty() {
        text.to_owned()
    } else {
        format!("{text}\n\nThe last lines of its terminal:\n\n```\n{lines}\n```")
    }
}
