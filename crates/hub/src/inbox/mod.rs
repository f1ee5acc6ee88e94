//! The three inbox consumers and the rule that keeps them apart.
//!
//! A message reaches Claude exactly once, through whichever consumer comes first:
//! - the waiting `clawmux wait` (it is offered the messages and they count as handed over only once it
//!   confirms it printed them, so a waiter that dies mid-way loses nothing);
//! - a tool hook's additionalContext (PreToolUse/PostToolUse), but never while a waiter is connected and
//!   never on the PreToolUse of `clawmux wait` itself: that is the race where the hook took the message
//!   and Claude then sat blocked in a wait that would never return;
//! - the Stop hook, which also refuses to let Claude stop after a hook hand-over it has not answered, and
//!   tells it to run `clawmux wait` when there is nothing to do.
//!
//! Each consumer holds the agent's inbox lock while it takes, so there is one consumer at a time; the
//! store's UNIQUE hand-over rows make a double hand-over impossible even below this layer.

mod rules;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clawmux_core::hook::HookKind;
use clawmux_core::wire::{hook_context, Code, Message, StopVerdict};
use clawmux_core::{Event, Hook, Source, State};
use clawmux_store::{Channel, NewMessage};
use serde_json::{json, Value};
use tokio::sync::OwnedMutexGuard;

use crate::clock::now;
use crate::error::HubError;
use crate::live::Live;
use crate::mailbox::WaitSignals;
use crate::states::States;
use rules::{may_hand_over, stop_verdict, wait_call_returned};

/// Each agent's unread messages and how they reach it: a hook that may carry them, the Stop hook's verdict,
/// and `clawmux wait`. Made once when the hub opens; a cheap clone.
#[derive(Clone)]
pub struct Inbox {
    states: States,
    /// The next waiter's number: a waiter that leaves clears the slot only if it is still its own.
    next_waiter: Arc<AtomicU64>,
}

impl Inbox {
    /// The inboxes of the agents `states` knows.
    pub(crate) fn new(states: States) -> Inbox {
        Inbox {
            states,
            next_waiter: Arc::new(AtomicU64::new(1)),
        }
    }

    /// What a recorded tool hook does beside the state: it may end a backgrounded wait, name the Claude
    /// conversation, and hand the inbox over.
    pub(crate) async fn answer_hook(
        &self,
        agent: &str,
        hook: &Hook,
        payload: Option<&Value>,
    ) -> Result<Value, HubError> {
        let agent = agent.to_owned();
        if let (HookKind::PreToolUse(call), None) = (&hook.kind, &hook.subagent) {
            self.states
                .live(&agent)?
                .asks
                .saw_call(&call.name, &call.input);
        }
        if wait_call_returned(hook, payload) {
            // A wait still connected now runs in the background: a message it took would never reach
            // Claude. It ends; the messages stay for the next wait, or this hook.
            self.states.live(&agent)?.mail.release_waiter();
        }
        if let (HookKind::SessionStart { .. }, Some(session)) = (&hook.kind, &hook.session_id) {
            // The conversation exists now: a restart resumes it.
            self.states
                .store()
                .set_claude_session(&agent, session)
                .await?;
        }
        if !may_hand_over(hook) {
            return Ok(json!({}));
        }
        let messages = self.hand_over_to_hook(&agent).await?;
        if messages.is_empty() {
            return Ok(json!({}));
        }
        Ok(json!({
            "hookSpecificOutput": {
                "hookEventName": hook.name(),
                "additionalContext": hook_context(&messages),
            }
        }))
    }

    async fn hand_over_to_hook(&self, agent: &str) -> Result<Vec<Message>, HubError> {
        let live = self.states.live(agent)?;
        if live.mail.has_waiter() || !live.mail.maybe_pending.load(Ordering::SeqCst) {
            return Ok(Vec::new());
        }
        // Another consumer is at work: leave the messages to it rather than make Claude's tool call wait.
        let Ok(_guard) = live.mail.consumer.try_lock() else {
            return Ok(Vec::new());
        };
        if live.mail.has_waiter() {
            return Ok(Vec::new());
        }
        live.mail.maybe_pending.store(false, Ordering::SeqCst);
        let messages = self
            .states
            .store()
            .take_inbox(agent, Channel::Hook, now())
            .await?;
        if !messages.is_empty() {
            live.mail.hook_delivered.store(true, Ordering::SeqCst);
            self.changed(agent).await;
        }
        Ok(messages)
    }

    /// Whether Claude may stop (the Stop hook, its event recorded): not while a message waits or a hook
    /// hand-over is unanswered, and never to sit idle outside `clawmux wait`.
    pub(crate) async fn stop_verdict(&self, agent: &str) -> Result<StopVerdict, HubError> {
        let live = self.states.live(agent)?;
        let _guard = live.mail.consumer.lock().await;
        if live.mail.hook_delivered.swap(false, Ordering::SeqCst) {
            return Ok(stop_verdict(true, &[], false));
        }
        live.mail.maybe_pending.store(false, Ordering::SeqCst);
        let messages = self
            .states
            .store()
            .take_inbox(agent, Channel::StopHook, now())
            .await?;
        if !messages.is_empty() {
            self.changed(agent).await;
        }
        Ok(stop_verdict(false, &messages, live.mail.has_waiter()))
    }

    /// Tells the UI how many messages now wait in `agent`'s inbox.
    pub(crate) async fn changed(&self, agent: &str) {
        if let Ok(pending) = self.states.store().pending(agent).await {
            self.states
                .broadcast(crate::ui_event::UiEvent::InboxUpdate {
                    session_id: agent.to_owned(),
                    pending,
                });
        }
    }

    /// How many messages wait in the agent's inbox.
    pub async fn pending(&self, agent: &str) -> Result<i64, HubError> {
        Ok(self.states.store().pending(agent).await?)
    }

    /// Stores a message for its recipient's inbox and announces it: how a feature (the board, a lead, what
    /// passes between agents) hands an agent words of its own.
    pub(crate) async fn deliver(&self, m: &NewMessage<'_>) -> Result<Message, HubError> {
        let stored = self.states.append(m).await?;
        if let Some(to) = m.recipient {
            self.announce_pending(to).await?;
        }
        Ok(stored)
    }

    /// After a message for `agent`'s inbox was stored: flag it, wake the waiter, tell the UI.
    pub(crate) async fn announce_pending(&self, agent: &str) -> Result<(), HubError> {
        let live = self.states.live(agent)?;
        live.mail.maybe_pending.store(true, Ordering::SeqCst);
        live.mail.wake();
        self.changed(agent).await;
        Ok(())
    }

    /// After a start: an agent recorded IDLE whose wait did not come back within `grace` left its wait
    /// while the hub was down. Record that (a wait disconnect, reported by the hub), so the sidebar does
    /// not show it idle forever. Waits that reconnected are left alone.
    pub(crate) async fn settle_waits_after_start(
        &self,
        grace: std::time::Duration,
    ) -> Result<(), HubError> {
        tokio::time::sleep(grace).await;
        let store = self.states.store();
        for row in store.agents().await? {
            let Ok(live) = self.states.live(&row.name) else {
                continue;
            };
            let _order = live.mail.wait_order.lock().await;
            let idle = store.agent(&row.name).await?.snapshot.state == State::Idle;
            if idle && !live.mail.has_waiter() {
                self.states
                    .apply(&row.name, Source::Hub, &Event::WaitDisconnected, b"")
                    .await?;
            }
        }
        Ok(())
    }

    /// A `clawmux wait` connected: the agent is IDLE. Refuses an unknown agent and a dead one.
    pub async fn wait_open(&self, agent: &str) -> Result<Waiter, HubError> {
        let live = self.states.live(agent)?;
        if self.states.is_dead(agent).await? {
            return Err(HubError::new(
                Code::AgentDead,
                format!("agent `{agent}` has been terminated"),
            ));
        }
        let order = live.mail.wait_order.lock().await;
        let id = self.next_waiter.fetch_add(1, Ordering::Relaxed);
        let signals = Arc::new(WaitSignals::default());
        // The first look at the inbox happens at once: messages may have arrived while it was away.
        signals.wake.notify_one();
        if let Some(line) = live.mail.take_kept_notice() {
            signals.tell(line, crate::mailbox::Owed::ByHub);
        }
        *live.mail.waiter() = Some((id, signals.clone()));
        // Entering the wait means Claude finished with whatever a hook handed it.
        live.mail.hook_delivered.store(false, Ordering::SeqCst);
        self.states
            .apply(agent, Source::Wait, &Event::WaitConnected, b"")
            .await?;
        drop(order);
        Ok(Waiter {
            inbox: self.clone(),
            agent: agent.to_owned(),
            live,
            id,
            signals,
        })
    }
}

/// A connected `clawmux wait`.
pub struct Waiter {
    inbox: Inbox,
    agent: String,
    live: Arc<Live>,
    id: u64,
    signals: Arc<WaitSignals>,
}

/// Messages offered to a waiter, with the inbox held until they are confirmed or declined.
pub struct Offer {
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    guard: OwnedMutexGuard<()>,
}

impl Waiter {
    /// Waits until the inbox has messages and offers them. Cancel-safe: dropping it loses nothing.
    pub async fn offer(&self) -> Result<Offer, HubError> {
        loop {
            self.signals.wake.notified().await;
            let guard = self.live.mail.consumer.clone().lock_owned().await;
            self.live.mail.maybe_pending.store(false, Ordering::SeqCst);
            let messages = self.inbox.states.store().peek_inbox(&self.agent).await?;
            if !messages.is_empty() {
                return Ok(Offer { messages, guard });
            }
        }
    }

    /// The waiter printed the offered messages: record the hand-over.
    pub async fn confirm(&self, offer: Offer) -> Result<(), HubError> {
        self.inbox
            .states
            .store()
            .hand_over(&self.agent, &offer.messages, Channel::Wait, now())
            .await?;
        drop(offer.guard);
        self.inbox.changed(&self.agent).await;
        Ok(())
    }

    /// The waiter went away before confirming: the messages stay in the inbox for the next consumer.
    pub fn decline(&self, offer: Offer) {
        self.live.mail.maybe_pending.store(true, Ordering::SeqCst);
        drop(offer.guard);
    }

    /// Resolves when the agent's process has ended: the wait must close.
    pub async fn agent_ended(&self) {
        self.live.run.ended.notified().await;
    }

    /// Resolves when the Bash call that ran this wait has returned: the wait must close, taking nothing.
    pub async fn call_returned(&self) {
        self.signals.call_returned.notified().await;
    }

    /// Resolves when Claude Code holds something for the model: the line the wait prints before it ends.
    pub async fn notice(&self) -> String {
        loop {
            self.signals.noticed.notified().await;
            if let Some((line, _)) = self.signals.untold() {
                return line;
            }
        }
    }

    /// The agent this waiter waits for.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The waiter is gone (it exited after its messages, was killed, or its connection died): unless a
    /// newer waiter replaced it, the agent is now PROCESSING.
    pub async fn close(self) -> Result<(), HubError> {
        let _order = self.live.mail.wait_order.lock().await;
        let was_current = {
            let mut slot = self.live.mail.waiter();
            match &*slot {
                Some((id, _)) if *id == self.id => {
                    *slot = None;
                    true
                }
                Some(_) | None => false,
            }
        };
        // Messages went first: a notice of the hub's own this wait did not tell waits for the next one.
        if let Some((line, crate::mailbox::Owed::ByHub)) = self.signals.untold() {
            self.live.mail.keep_notice(line);
        }
        if was_current && !self.inbox.states.is_dead(&self.agent).await? {
            self.inbox
                .states
                .apply(&self.agent, Source::Wait, &Event::WaitDisconnected, b"")
                .await?;
        }
        Ok(())
    }
}

/// What the tests of the features that take messages share.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use clawmux_core::wire::Kind;
    use clawmux_store::NewMessage;

    /// The user's message `text` stored for `sky`, and its inbox told.
    pub(crate) async fn message_for_sky(states: &States, inbox: &Inbox, text: &str) {
        states
            .append(&NewMessage {
                agent: "sky",
                kind: Kind::User,
                sender: "user",
                recipient: Some("sky"),
                text,
                parent: None,
                voice: false,
                aloud: false,
                attachments: &[],
                idem_key: None,
                at: now(),
            })
            .await
            .unwrap();
        inbox.announce_pending("sky").await.unwrap();
    }
}

#[cfg(test)]
mod tests;
