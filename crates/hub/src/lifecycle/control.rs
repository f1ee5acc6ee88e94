//! Controlling an agent ClawMux runs: ending it, starting it again, interrupting it, and taking over the
//! agents' tmux sessions a previous hub left running.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use clawmux_core::wire::Code;
use clawmux_core::{Event, Source, State};

use super::flags::{check_model, Effort};
use super::launch::{self, Launch};
use super::Created;
use super::{process, pulse, resume, supervise, END_GRACE};
use crate::error::HubError;
use crate::lifecycle::Lifecycle;
use crate::live::Live;

impl Lifecycle {
    /// The launch spec of an agent the hub starts, or why it has none.
    pub(super) async fn launch_of(
        &self,
        name: &str,
    ) -> Result<(clawmux_store::AgentRow, Launch), HubError> {
        let row = self.states.store().agent(name).await?;
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
    pub(super) async fn running(&self, name: &str) -> Result<(Arc<Live>, u32), HubError> {
        self.launch_of(name).await?;
        let live = self.states.live(name)?;
        let pid = *live.run.process();
        pid.map(|pid| (live, pid)).ok_or_else(|| {
            HubError::new(Code::NotRunning, format!("agent `{name}` is not running"))
        })
    }

    /// Ends an agent's process tree; returns once it is recorded DEAD. Its history stays.
    pub async fn terminate(&self, name: &str) -> Result<(), HubError> {
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
        Ok(())
    }

    /// Starts an agent again, resuming its Claude conversation; ends it first if it runs.
    pub async fn restart(&self, name: &str) -> Result<(), HubError> {
        self.start_again(name, None).await.map(drop)
    }

    /// Starts an agent again: restarted by the user (`interrupted` none), or after the machine or the hub
    /// stopped while it ran (if it was working, it is told that was cut off). Its conversation continues
    /// where Claude Code still has it; answers whether it did.
    pub(super) async fn start_again(
        &self,
        name: &str,
        interrupted: Option<resume::Interrupted<'_>>,
    ) -> Result<bool, HubError> {
        // The conversation id only changes at a SessionStart, which a stopped agent cannot send: the row
        // read here still holds the right one after the terminate below.
        let (row, launch) = self.launch_of(name).await?;
        let live = self.states.live(name)?;
        if live.run.process().is_some() {
            self.terminate(name).await?;
        }
        if !launch.demo && launch::resolve_program(&launch.program.to_string_lossy()).is_none() {
            return Err(HubError::new(
                Code::ClaudeMissing,
                format!("{} is no longer installed", launch.program.display()),
            ));
        }
        self.tmux.check().await?;
        let _lifecycle = live.run.lifecycle.lock().await;
        self.states
            .apply(name, Source::Hub, &Event::Spawned, b"")
            .await?;
        let fresh = uuid::Uuid::new_v4().to_string();
        // Whether Claude Code still has the conversation: a look through its folders, off the runtime.
        let kept = match (&row.claude_session_id, &interrupted) {
            (Some(session), Some(_)) => {
                let (dir, session) = (crate::usage::bridge::claude_dir(), session.clone());
                tokio::task::spawn_blocking(move || resume::conversation_exists(&dir, &session))
                    .await
                    .unwrap_or(false)
            }
            (Some(_) | None, _) => false,
        };
        let begin = resume::begin(row.claude_session_id.as_deref(), interrupted, kept, &fresh);
        let mut created = Created::default();
        if let Err(e) = self
            .start_process(name, &live.work_dir, &launch, begin, &mut created)
            .await
        {
            self.states
                .apply(name, Source::Hub, &Event::Terminated, b"")
                .await?;
            return Err(e);
        }
        self.states.set_problem(name, None);
        Ok(begin.resumes())
    }

    /// Sets the model the agent runs (none: Claude Code's default) and, if it runs, starts it again with
    /// it, its conversation resumed: Claude Code takes `--model` at its start.
    pub async fn set_model(&self, name: &str, model: Option<&str>) -> Result<(), HubError> {
        if let Some(model) = model {
            check_model(model)?;
        }
        self.relaunch(name, "model", |launch| {
            launch.model = model.map(str::to_owned);
        })
        .await
    }

    /// Sets how hard the agent's model thinks (none: Claude Code's default) and, if it runs, starts it
    /// again with it, its conversation resumed: Claude Code takes `--effort` at its start.
    pub async fn set_effort(&self, name: &str, effort: Option<Effort>) -> Result<(), HubError> {
        self.relaunch(name, "effort", |launch| launch.effort = effort)
            .await
    }

    /// Changes how the agent is started (`what`: its model, its effort) and, if it runs, starts it again
    /// so, its conversation resumed. Refused for the demo agent, and while the agent works or starts (a
    /// restart would cut that off): the user switches between turns.
    async fn relaunch(
        &self,
        name: &str,
        what: &str,
        change: impl FnOnce(&mut Launch),
    ) -> Result<(), HubError> {
        let (row, mut launch) = self.launch_of(name).await?;
        if launch.demo {
            return Err(HubError::new(
                Code::BadModel,
                format!("`{name}` is the demo agent: it has no {what}"),
            ));
        }
        if busy(
            &row.snapshot,
            self.options.start_timeout,
            crate::clock::now(),
        ) {
            return Err(HubError::new(
                Code::AgentBusy,
                format!(
                    "`{name}` is {}: switch its {what} once it waits for you",
                    row.snapshot.state
                ),
            ));
        }
        change(&mut launch);
        self.save_launch(name, &launch).await?;
        if row.snapshot.state != State::Dead {
            self.start_again(name, None).await?;
        }
        Ok(())
    }

    /// Records that agent `name`'s live session now runs on `model` (none: Claude Code's default), as
    /// `/model` typed at its prompt switched it: it starts on that model from then on too.
    pub(super) async fn keep_model(&self, name: &str, model: Option<&str>) -> Result<(), HubError> {
        if let Some(model) = model {
            check_model(model)?;
        }
        let (_, mut launch) = self.launch_of(name).await?;
        launch.model = model.map(str::to_owned);
        self.save_launch(name, &launch).await
    }

    /// Keeps how agent `name` is started from now on.
    async fn save_launch(&self, name: &str, launch: &Launch) -> Result<(), HubError> {
        let json = serde_json::to_string(launch)
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        self.states.store().set_launch(name, &json).await?;
        Ok(())
    }

    /// Presses Escape in the agent's terminal: Claude Code stops what it is doing.
    pub async fn interrupt(&self, name: &str) -> Result<(), HubError> {
        let (live, _) = self.running(name).await?;
        self.tmux.key(name, "Escape").await?;
        // Claude Code fires no hook for an interrupt: the hub records its own, which ends the running
        // tool's activity and any wait for the user, and starts the short reminder clock.
        drop(live);
        self.states
            .apply(name, Source::Ui, &Event::Interrupted, b"")
            .await?;
        Ok(())
    }

    /// After a start of the hub: takes over the agents it started earlier whose tmux sessions still run,
    /// records DEAD for those whose process ended while the hub was away, and resumes (or keeps for
    /// `clawmux resume --all`) those whose tmux session is gone while they ran: the machine or the hub
    /// stopped under them.
    pub async fn adopt(&self) -> Result<(), HubError> {
        let mut interrupted = Vec::new();
        for row in self.states.store().agents().await? {
            if row.launch.is_none() {
                continue;
            }
            let pane = match self.tmux.pane(&row.name).await {
                Ok(pane) => pane,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot look for the agents' tmux sessions");
                    None
                }
            };
            match pane {
                Some(p) if p.ended.is_none() => {
                    let live = self.states.live(&row.name)?;
                    *live.run.process() = Some(p.pid);
                    *live.run.last_screen() = None;
                    live.run
                        .pulse
                        .send_modify(|pl| *pl = pulse::Pulse::of(&row.snapshot));
                    tracing::info!(agent = %row.name, pid = p.pid, "adopted a running agent");
                    // Held by the usage limit when the hub stopped: held again, and continued after
                    // the reset if the user asked (at once if it passed meanwhile).
                    self.states
                        .held_at_start(&row.name, row.snapshot.attention.as_ref());
                    self.tasks
                        .spawn(supervise::supervise(self.clone(), row.name.clone(), p.pid));
                }
                Some(_) => self.process_ended(&row.name).await,
                None if row.snapshot.state != State::Dead => {
                    self.states
                        .apply(&row.name, Source::Hub, &Event::Terminated, b"")
                        .await?;
                    self.note(
                        &row.name,
                        &format!("`{}` was not running when ClawMux started.", row.name),
                    )
                    .await;
                    let working =
                        matches!(row.snapshot.state, State::Processing | State::Compacting);
                    interrupted.push((row.name.clone(), working));
                }
                None => {}
            }
        }
        self.interrupted_at_start(interrupted);
        Ok(())
    }
}

/// Whether an agent in `snapshot` is in the middle of something a restart would cut off: working, or
/// starting. A start that failed (its first turn ended on an error: a model the account cannot use, the
/// usage limit) or that is overdue (past `start_timeout`, already reported) is an end the user acts on at
/// once, by switching the model or starting it again, not something to wait for.
fn busy(
    snapshot: &clawmux_core::Snapshot,
    start_timeout: Duration,
    now: clawmux_core::Millis,
) -> bool {
    match snapshot.state {
        State::Processing | State::Compacting => true,
        State::Starting => {
            let failed = snapshot.attention.as_ref().is_some_and(|a| {
                matches!(
                    a.need,
                    clawmux_core::Need::Error | clawmux_core::Need::RateLimited
                )
            });
            let overdue = u128::from(now.since(snapshot.since)) > start_timeout.as_millis();
            !failed && !overdue
        }
        State::Idle | State::Dead => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawmux_core::{Attention, Millis, Need, Snapshot};

    #[test]
    fn a_start_that_failed_or_is_overdue_is_no_start_to_wait_for() {
        let limit = Duration::from_secs(90);
        let mut starting = Snapshot::new(Millis(1_000));
        assert!(busy(&starting, limit, Millis(2_000)), "just started");
        assert!(
            !busy(&starting, limit, Millis(92_000)),
            "past the start limit"
        );
        starting.attention = Some(Attention {
            need: Need::Error,
            reason: "invalid_request: model not found".into(),
            tool_use_id: None,
            tool_name: None,
            since: Millis(1_500),
            notice: false,
        });
        assert!(
            !busy(&starting, limit, Millis(2_000)),
            "its first turn failed"
        );
        let mut working = Snapshot::new(Millis(1_000));
        working.state = State::Processing;
        assert!(busy(&working, limit, Millis(500_000)));
        working.state = State::Idle;
        assert!(!busy(&working, limit, Millis(2_000)));
    }
}
