//! Applying an event: the store decides and records it, then the observers, the supervisor and the UI
//! hear of the new state, in that order.

use clawmux_core::wire::Code;
use clawmux_core::{Event, Millis, Source, State};
use clawmux_store::{Applied, Incoming, Submitted};

use super::Hub;
use crate::clock::now;
use crate::error::HubError;
use crate::ui_event::{Needs, UiEvent};

impl Hub {
    /// Dismisses a "needs you" that only a notice raised; anything else is refused and changes nothing.
    pub async fn dismiss(&self, agent: &str, source: Source) -> Result<(), HubError> {
        let notice = self
            .store()
            .agent(agent)
            .await?
            .snapshot
            .attention
            .is_some_and(|a| a.notice);
        if !notice {
            return Err(HubError::new(
                Code::NotDismissable,
                format!(
                    "{agent} needs nothing that a notice alone raised: a request ends with its tool call, \
                     an answer from the window, or the end of the turn"
                ),
            ));
        }
        let applied = self.apply(agent, source, &Event::Dismissed, b"").await?;
        match applied.decision.outcome {
            clawmux_core::Outcome::Suppressed(why) => {
                Err(HubError::new(Code::NotDismissable, why.to_string()))
            }
            clawmux_core::Outcome::Moved | clawmux_core::Outcome::Stayed => Ok(()),
        }
    }

    /// Carries out what the features sent (`found.rs`), in the order they sent it, until they are all gone
    /// (the task is aborted when `serve` ends).
    pub(crate) async fn record_found(
        self,
        mut found: tokio::sync::mpsc::UnboundedReceiver<crate::found::ForHub>,
    ) {
        use crate::found::ForHub;
        while let Some(next) = found.recv().await {
            let f = match next {
                ForHub::Status(agent) => {
                    self.broadcast_status(&agent).await;
                    continue;
                }
                ForHub::Found(f) => f,
            };
            match self
                .apply_at(&f.agent, f.source, &f.event, &f.payload, f.at)
                .await
            {
                Ok(_) if f.tell_status => self.broadcast_status(&f.agent).await,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(agent = %f.agent, error = %e, source = ?f.source, "cannot record what was found")
                }
            }
        }
    }

    /// Stores an event that happened now, steps the agent's machine, tells the observers and the UI.
    pub async fn apply(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
    ) -> Result<Applied, HubError> {
        self.apply_at(agent, source, event, payload, now()).await
    }

    /// [`Hub::apply`] for an event that happened at `at` by its source's clock (a transcript line).
    ///
    /// Runs to its end even if its caller stops waiting (a request whose client went away): an event stored
    /// whose new state the observers and the UI never heard of would leave them wrong. An event the store
    /// commits at once is heard of in the same call, with no await between; one queued behind the writer
    /// is waited for, and heard of, by a task of its own.
    pub(crate) async fn apply_at(
        &self,
        agent: &str,
        source: Source,
        event: &Event,
        payload: &[u8],
        at: Millis,
    ) -> Result<Applied, HubError> {
        // Before anything is done: an event committed at once is ready without waiting, and a loop of
        // them (a transcript's lines) must still give the runtime's thread back now and then.
        tokio::task::coop::consume_budget().await;
        let live = self.live(agent)?;
        let submitted = self.inner.store.submit(Incoming {
            agent,
            source,
            event,
            payload,
            at,
            received_at: now(),
        });
        match submitted {
            Submitted::Done(applied) => Ok(self.heard(&live, agent, event, (*applied)?)),
            Submitted::Queued(later) => {
                let (hub, agent, event) = (self.clone(), agent.to_owned(), event.clone());
                tokio::spawn(async move {
                    let applied = later.wait().await?;
                    Ok(hub.heard(&live, &agent, &event, applied))
                })
                .await
                .map_err(|e| {
                    HubError::new(Code::Internal, format!("applying the event failed: {e}"))
                })?
            }
        }
    }

    /// Tells the observers, the supervisor and the UI what a stored event did.
    fn heard(
        &self,
        live: &crate::live::Live,
        agent: &str,
        event: &Event,
        applied: Applied,
    ) -> Applied {
        self.inner
            .observers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .notify(agent, &applied.before, &applied.decision, &applied.after);
        live.run.pulse.send_modify(|p| p.saw(event, &applied.after));
        if starts_a_session(event) {
            // Claude Code's sessions folder exists once a session runs: its watcher may start now.
            self.poke_claude_sessions();
        }
        if rate_limited(&applied.before) != rate_limited(&applied.after) {
            // The machine decides "rate-limited"; usage annotates it (until when, continues at).
            self.usage()
                .need_is(agent, applied.after.attention.as_ref());
        }
        if waits_for_user(&applied.before) && !waits_for_user(&applied.after) {
            // Answered in the terminal, interrupted, or over: the app's request ends unanswered.
            live.asks.close();
        }
        // Read before `last_status` is taken: no other std mutex is taken while it is held (the UI
        // channel's own lock aside, which must be: statuses go out in the order of their events).
        let request = live.asks.current();
        let mut last_status = live
            .last_status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if shown(&applied.before) != shown(&applied.after) && applied.event_id > *last_status {
            *last_status = applied.event_id;
            // The tool, when a tool call caused the change.
            let (tool_name, tool_input) = if let Event::Hook(clawmux_core::Hook {
                kind: clawmux_core::hook::HookKind::PreToolUse(call),
                ..
            }) = event
            {
                (Some(call.name.clone()), Some(call.input.clone()))
            } else {
                (None, None)
            };
            self.broadcast(UiEvent::SessionStatus {
                session_id: agent.to_owned(),
                state: applied.after.state,
                activity: clawmux_core::state::activity(&applied.after),
                tool_name,
                tool_input,
                since: applied.after.since,
                needs: Needs::of(applied.after.attention.as_ref(), request),
            });
        }
        drop(last_status);
        applied
    }

    /// Tells every client an agent's status as it is now, with its open request (one opened or closed).
    pub(crate) async fn broadcast_status(&self, agent: &str) {
        let Ok(info) = self.session(agent).await else {
            return;
        };
        self.broadcast(UiEvent::SessionStatus {
            session_id: info.session_id,
            state: info.state,
            activity: info.activity,
            tool_name: None,
            tool_input: None,
            since: info.since,
            needs: info.needs,
        });
    }
}

/// What the UI shows of a snapshot: a change to anything else (the watermark, the last tool) is not news.
fn shown(s: &clawmux_core::Snapshot) -> (State, &str, Millis, Option<&clawmux_core::Attention>) {
    (s.state, &s.activity, s.since, s.attention.as_ref())
}

/// Whether the snapshot's agent is held by the account's usage limit.
fn rate_limited(s: &clawmux_core::Snapshot) -> bool {
    s.attention
        .as_ref()
        .is_some_and(|a| a.need == clawmux_core::Need::RateLimited)
}

/// Whether the snapshot's agent waits for the user (a permission, an answer, a plan approval).
fn waits_for_user(s: &clawmux_core::Snapshot) -> bool {
    s.attention.as_ref().is_some_and(|a| a.need.is_waiting())
}

/// A process or Claude Code session began.
fn starts_a_session(event: &Event) -> bool {
    match event {
        Event::Spawned => true,
        Event::Hook(h) => h.event() == clawmux_core::HookEvent::SessionStart,
        Event::WaitConnected
        | Event::WaitDisconnected
        | Event::Terminated
        | Event::Interrupted
        | Event::Dismissed
        | Event::SecondOpinion(_)
        | Event::Transcript(_)
        | Event::Rejected { .. } => false,
    }
}
