//! The agents' states: the one place an event is stored and heard of, and a message appended in seq
//! order. The store decides and records each event; then the observers, the supervisor's pulse, usage's
//! note of a usage limit and the UI hear of the new state, in that order.
//!
//! Made once when the hub opens, with the store, the agents' registry, the UI sender and the two features
//! its news goes to (usage, Claude Code's own view of the sessions); the inbox, the hooks and the
//! lifecycle hold a clone, so none of them needs the hub to change an agent's state.

use std::sync::{Arc, Mutex};

use clawmux_core::observe::Observers;
use clawmux_core::wire::{Code, Message};
use clawmux_core::{Event, Millis, Source, State};
use clawmux_store::{Applied, Incoming, NewMessage, Store, Submitted};
use tokio::sync::broadcast;

use crate::agents::Agents;
use crate::clock::now;
use crate::error::HubError;
use crate::live::Live;
use crate::ui_event::{Needs, UiEvent};
use clawmux_core::sync::Locked;

/// The sender of the hub's own notes in a conversation.
pub(crate) const HUB_SENDER: &str = "clawmux";

/// A cheap-clone handle to the agents' states.
#[derive(Clone)]
pub(crate) struct States {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    agents: Agents,
    /// Every UI event, in order. Message events go out under `append_order`, so their seqs only grow.
    ui: broadcast::Sender<UiEvent>,
    /// Serialises "append a message, then broadcast it": a UI that has seen seq N has seen all below it.
    append_order: tokio::sync::Mutex<()>,
    /// Logging and metrics of every decision.
    observers: Mutex<Observers>,
    /// Told when an agent's usage limit starts or ends (it annotates it: until when, continues at).
    usage: crate::usage::Usage,
    /// Told when a session starts (Claude Code's sessions folder may exist now).
    opinion: crate::opinion::SecondOpinion,
}

impl States {
    /// The states of the agents in `agents`, kept in `store`, told to `ui` and to `observers`.
    pub(crate) fn new(
        store: Store,
        agents: Agents,
        ui: broadcast::Sender<UiEvent>,
        observers: Observers,
        usage: crate::usage::Usage,
        opinion: crate::opinion::SecondOpinion,
    ) -> States {
        States {
            inner: Arc::new(Inner {
                store,
                agents,
                ui,
                append_order: tokio::sync::Mutex::new(()),
                observers: Mutex::new(observers),
                usage,
                opinion,
            }),
        }
    }

    /// The store the states are kept in.
    pub(crate) fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The agents' registry.
    pub(crate) fn agents(&self) -> &Agents {
        &self.inner.agents
    }

    /// `agent`'s live data, or `unknown_agent`.
    pub(crate) fn live(&self, agent: &str) -> Result<Arc<Live>, HubError> {
        self.inner.agents.live(agent)
    }

    /// Tells every UI `event`. No receiver means no UI is open: not an error.
    pub(crate) fn broadcast(&self, event: UiEvent) {
        let _ = self.inner.ui.send(event);
    }

    /// Registers a new agent, STARTING.
    pub(crate) fn insert_live(&self, agent: &str, work_dir: std::path::PathBuf) {
        self.inner.agents.insert(agent, work_dir, State::Starting);
    }

    /// Forgets an agent, and what usage knew of it.
    pub(crate) fn remove_live(&self, agent: &str) {
        self.inner.agents.remove(agent);
        self.inner.usage.forget(agent);
    }

    /// An agent taken over after a start of the hub is in `attention`: usage holds it again if its usage
    /// limit held it (and continues it after the reset, at once if that passed meanwhile).
    pub(crate) fn held_at_start(&self, agent: &str, attention: Option<&clawmux_core::Attention>) {
        self.inner.usage.need_is(agent, attention);
    }

    /// Whether `agent` is dead.
    pub(crate) async fn is_dead(&self, agent: &str) -> Result<bool, HubError> {
        Ok(self.inner.store.agent(agent).await?.snapshot.state == State::Dead)
    }

    /// Sets (or clears) what the user must know about an agent, and tells the UI when it changes.
    pub(crate) fn set_problem(&self, agent: &str, problem: Option<String>) {
        let Ok(live) = self.live(agent) else { return };
        let mut slot = live.run.problem();
        if *slot != problem {
            slot.clone_from(&problem);
            drop(slot);
            self.broadcast(UiEvent::SessionProblem {
                session_id: agent.to_owned(),
                problem,
            });
        }
    }

    /// Appends a message and broadcasts it, in seq order with every other append.
    pub(crate) async fn append(&self, m: &NewMessage<'_>) -> Result<Message, HubError> {
        let _order = self.inner.append_order.lock().await;
        let appended = self.inner.store.append(m).await?;
        if appended.created {
            self.broadcast(UiEvent::message(&appended.message));
        }
        Ok(appended.message)
    }

    /// A note of the hub's in `agent`'s conversation, for the user (never handed to the agent).
    pub(crate) async fn note(&self, agent: &str, text: &str) -> Result<(), HubError> {
        self.append(&NewMessage::plain(
            agent,
            clawmux_core::wire::Kind::System,
            HUB_SENDER,
            Some("user"),
            text,
            now(),
        ))
        .await?;
        Ok(())
    }

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

    /// [`States::apply`] for an event that happened at `at` by its source's clock (a transcript line).
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
                let (states, agent, event) = (self.clone(), agent.to_owned(), event.clone());
                tokio::spawn(async move {
                    let applied = later.wait().await?;
                    Ok(states.heard(&live, &agent, &event, applied))
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
        self.inner.observers.locked().notify(
            agent,
            &applied.before,
            &applied.decision,
            &applied.after,
        );
        live.run.pulse.send_modify(|p| p.saw(event, &applied.after));
        if starts_a_session(event) {
            // Claude Code's sessions folder exists once a session runs: its watcher may start now.
            self.inner.opinion.poke();
        }
        if rate_limited(&applied.before) != rate_limited(&applied.after) {
            // The machine decides "rate-limited"; usage annotates it (until when, continues at).
            self.inner
                .usage
                .need_is(agent, applied.after.attention.as_ref());
        }
        if waits_for_user(&applied.before) && !waits_for_user(&applied.after) {
            // Answered in the terminal, interrupted, or over: the app's request ends unanswered.
            live.asks.close();
        }
        // Read before `last_status` is taken: no other std mutex is taken while it is held (the UI
        // channel's own lock aside, which must be: statuses go out in the order of their events).
        let request = live.asks.current();
        let mut last_status = live.last_status.locked();
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
        let (Ok(row), Ok(live)) = (self.inner.store.agent(agent).await, self.live(agent)) else {
            return;
        };
        let s = &row.snapshot;
        self.broadcast(UiEvent::SessionStatus {
            session_id: row.name,
            state: s.state,
            activity: clawmux_core::state::activity(s),
            tool_name: None,
            tool_input: None,
            since: s.since,
            needs: Needs::of(s.attention.as_ref(), live.asks.current()),
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
        | Event::Answered
        | Event::Undelivered(_)
        | Event::SecondOpinion(_)
        | Event::Transcript(_)
        | Event::Rejected { .. } => false,
    }
}

/// The agents' states over a temporary store, with `sky` registered (its work folder `/w/sky`, IDLE in
/// memory, STARTING in the store until an event moves it): what the features built on them are tested with.
#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests;
