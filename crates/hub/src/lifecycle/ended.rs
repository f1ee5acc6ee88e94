//! When an agent's process ends, starts slowly or leaves its loop: what the hub records, tells the user
//! and, for a reminder, types into the agent's terminal.

use std::sync::atomic::Ordering;
use std::time::Duration;

use clawmux_core::{Event, Source};
use serde_json::json;

use super::{process, tmux, END_GRACE};
use crate::error::HubError;
use crate::lifecycle::Lifecycle;
use crate::ui_event::{EndReason, UiEvent};

/// How many terminal lines a report shows.
const REPORT_LINES: u32 = 15;

/// The pause between a typed prompt and its Enter, so that the terminal does not take them for one paste.
const PASTE_GAP: Duration = Duration::from_millis(300);
/// How long Claude Code takes, after Escape ends a tool call, to show its prompt again.
pub(crate) const PROMPT_READY: Duration = Duration::from_millis(500);
/// How often Enter is pressed for one prompt.
const SUBMIT_TRIES: u32 = 3;

impl Lifecycle {
    /// The agent's process has ended: records DEAD at once, closes its tmux session, ends what it left
    /// running, and, when nobody asked for the end, shows the user how it ended with the last lines of its
    /// terminal.
    /// Long: what an ended process leaves is undone in the order the user must see it.
    pub(crate) async fn process_ended(&self, name: &str) {
        let Ok(live) = self.states.live(name) else {
            return;
        };
        // A restart waits for this to finish, so the session closed below is never the new one.
        let _lifecycle = live.run.lifecycle.lock().await;
        let requested = live.run.ending.swap(false, Ordering::SeqCst);
        *live.run.process() = None;
        let payload = json!({ "requested": requested }).to_string();
        if let Err(e) = self
            .states
            .apply(name, Source::Hub, &Event::Terminated, payload.as_bytes())
            .await
        {
            tracing::error!(agent = name, error = %e, "cannot record the agent's end");
        }
        // After DEAD is recorded, so no wait can slip in between: a wait still open for it is closed.
        live.run.ended.notify_waiters();
        // Its tasks in the background ended with it.
        if live.background.clear() {
            self.states.broadcast(UiEvent::Background {
                session_id: name.to_owned(),
                running: 0,
            });
        }
        self.states.broadcast(UiEvent::SessionTerminated {
            session_id: name.to_owned(),
            reason: if requested {
                EndReason::Terminated
            } else {
                EndReason::Exited
            },
        });
        self.end_leftovers(name).await;
        let (ended, lines) = if requested {
            (None, String::new())
        } else {
            self.how_it_ended(name).await
        };
        // What the terminal viewers keep once the session is gone (the last lines above are plain text).
        *live.run.last_screen() = self.tmux.screen(name).await.ok();
        if let Err(e) = self.tmux.kill(name).await {
            tracing::warn!(agent = name, error = %e, "cannot close the agent's tmux session");
        }
        if !requested {
            let how = format!("its process {}", ended.unwrap_or(tmux::Ended::Unknown));
            self.states
                .set_problem(name, Some(format!("Stopped: {how}")));
            self.note(
                name,
                &with_lines(&format!("`{name}` stopped: {how}."), &lines),
            )
            .await;
        }
    }

    /// Ends what the agent left running (its tools, its `clawmux wait`): it must not outlive it, since an
    /// orphaned wait would take the next agent's messages. Reading every process's environment takes
    /// milliseconds: off the async threads.
    async fn end_leftovers(&self, name: &str) {
        let (agent, data_dir) = (name.to_owned(), self.data_dir.to_path_buf());
        let left = tokio::task::spawn_blocking(move || process::leftovers(&agent, &data_dir))
            .await
            .unwrap_or_default();
        if !left.is_empty() {
            tracing::info!(
                agent = name,
                count = left.len(),
                "ending the agent's leftover processes"
            );
            tokio::spawn(process::end(left, END_GRACE));
        }
    }

    /// How the agent's process ended and the last lines of its terminal, from its (remaining) pane.
    async fn how_it_ended(&self, name: &str) -> (Option<tmux::Ended>, String) {
        // The pidfd can report the exit before tmux has reaped the process and noted how it ended (its
        // pane reads dead before the status is known); give tmux a moment, bounded, so the user learns it.
        let mut pane = self.tmux.pane(name).await.ok().flatten();
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
            pane = self.tmux.pane(name).await.ok().flatten();
        }
        let Some(pane) = pane else {
            return (None, String::new());
        };
        let lines = self
            .tmux
            .last_lines(name, REPORT_LINES)
            .await
            .unwrap_or_default();
        (pane.ended, lines)
    }

    /// The agent has not reached its first `clawmux wait` in time: show why, from its terminal.
    pub(crate) async fn report_slow_start(&self, name: &str) {
        let secs = self.options.start_timeout.as_secs_f64();
        let lines = self
            .tmux
            .last_lines(name, REPORT_LINES)
            .await
            .unwrap_or_default();
        self.states
            .set_problem(name, Some(format!("Not started after {secs:.0} s")));
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
        let max = self.options.nudge_max;
        let text = "ClawMux: you stopped outside `clawmux wait`, so the user cannot reach you. \
                    Run `clawmux wait` now.";
        if let Err(e) = self.type_prompt(name, text).await {
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

    /// Types a prompt into the agent's terminal and makes sure it was submitted: the Enter goes apart from
    /// the text (together they are taken for a paste), and again if no event of the agent follows it.
    pub(crate) async fn type_prompt(&self, name: &str, text: &str) -> Result<(), HubError> {
        let live = self.states.live(name)?;
        let mut pulse = live.run.pulse.subscribe();
        pulse.borrow_and_update();
        self.tmux.type_text(name, text).await?;
        tokio::time::sleep(PASTE_GAP).await;
        for _ in 0..SUBMIT_TRIES {
            self.tmux.key(name, "Enter").await?;
            // A submitted prompt fires UserPromptSubmit: any event of the agent says it was taken.
            if tokio::time::timeout(self.options.submit_wait, pulse.changed())
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        tracing::warn!(agent = name, "a typed prompt was not submitted");
        Ok(())
    }

    /// Reminders did not bring the agent back: the user must look.
    pub(crate) async fn report_out_of_loop(&self, name: &str) {
        let max = self.options.nudge_max;
        self.states
            .set_problem(name, Some("Out of the loop".to_owned()));
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
        if let Err(e) = self.states.note(agent, text).await {
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
