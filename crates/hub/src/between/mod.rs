//! Messages between agents: the rules a send between two agents must pass, the answer a `clawmux ask`
//! waits for, what a transcript proves the other model received, and the threads as the window shows
//! them.
//!
//! Claude Code's own messages between sessions report "sent" while the other model never saw them, echo a
//! sender's words back to it, and let two idle agents ping-pong. Here a message between agents is stored
//! once in the recipient's conversation and travels the recipient's inbox like the user's messages (so a
//! hub restart or a killed agent loses nothing); its delivery is read from its own records
//! (`clawmux_core::between`); an agent cannot write to itself; an acknowledgement that only thanks for an
//! answer is kept but never handed over as a turn; a thread past its hourly turns, or closed, refuses the
//! next send with the reason instead of queueing it silently.

use std::sync::Arc;
use std::time::Duration;

use clawmux_api::commands::Sent;
use clawmux_core::between::{only_thanks, Pair, SamePair};
use clawmux_core::remote::MachineName;
use clawmux_core::wire::{Code, Kind, Message, MsgId, MAX_TEXT};
use clawmux_core::{Millis, State};
use clawmux_store::{NewMessage, Store};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::Notify;

use crate::clock::now;
use crate::error::HubError;
use crate::inbox::Inbox;
use crate::machines::Machines;
use crate::states::States;
use crate::ui_event::UiEvent;

mod away;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_undelivered;
mod threads;
mod undelivered;

use undelivered::Flagged;
pub use undelivered::Rules;

/// An hour, the window of the turns limit.
const HOUR_MS: i64 = 60 * 60 * 1000;

/// How a send between two agents is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carried {
    /// A turn: into the recipient's inbox.
    Turn,
    /// An acknowledgement of an answer: kept in the thread, handed to nobody.
    Acknowledgement,
}

/// What passes between agents. Made once with the agents' states (the store, the registry, the window),
/// their inboxes and its rules; a cheap clone.
#[derive(Clone)]
pub struct Between {
    states: States,
    inbox: Inbox,
    /// Told whenever a message that answers another is stored: the asks waiting look again.
    answers: Arc<Notify>,
    rules: Rules,
    /// The messages whose senders' users were told they wait.
    flagged: Arc<Flagged>,
    /// Held from a send's count to its message stored: sends at once never pass a thread's count together.
    admitting: Arc<tokio::sync::Mutex<()>>,
    /// The other machines, for messages to their agents (`away.rs`).
    machines: Machines,
    /// Told which machine holds answers for this one's agents; taken by [`Between::start`].
    answers_told: Arc<std::sync::Mutex<Option<UnboundedReceiver<MachineName>>>>,
}

impl Between {
    pub(crate) fn new(
        states: States,
        inbox: Inbox,
        rules: Rules,
        (machines, answers_told): (Machines, UnboundedReceiver<MachineName>),
    ) -> Between {
        Between {
            states,
            inbox,
            answers: Arc::new(Notify::new()),
            rules,
            flagged: Arc::default(),
            admitting: Arc::default(),
            machines,
            answers_told: Arc::new(std::sync::Mutex::new(Some(answers_told))),
        }
    }

    /// What passes between the agents of a states fixture, this machine `laptop` with no other linked.
    #[cfg(test)]
    pub(crate) fn for_tests(f: &crate::states::fixture::Fixture, rules: Rules) -> Between {
        let (waiting, told) = tokio::sync::mpsc::unbounded_channel();
        let machines = Machines::new(
            f.dir.path().to_owned(),
            None,
            tokio::sync::broadcast::channel(4).0,
            crate::tasks::Tasks::default(),
            crate::machines::Answers {
                here: MachineName::parse("laptop").unwrap_or_else(|_| MachineName::here()),
                waiting,
            },
        );
        Between::new(
            f.states.clone(),
            Inbox::new(f.states.clone()),
            rules,
            (machines, told),
        )
    }

    fn store(&self) -> &Store {
        self.states.store()
    }

    /// `from`'s message to another agent, `to`, under the idempotency key `key`: refused by the rules
    /// ([`Between::admit`]), or stored in `to`'s conversation (an acknowledgement kept there, handed to
    /// nobody; a turn into its inbox). Answers it with what the sender should know of its way.
    pub(crate) async fn send(
        &self,
        from: &str,
        to: &str,
        text: &str,
        re: Option<&MsgId>,
        key: &str,
    ) -> Result<Sent, HubError> {
        if to.contains('@') {
            // An agent of another machine: its hub keeps the thread's rules (`away.rs`).
            return self.send_away(from, to, text, re, key).await;
        }
        let admitting = self.admitting.lock().await;
        let carried = match self.admit(from, to, text, re).await {
            Ok(carried) => carried,
            // A retry of a send that was stored before the thread closed or reached its count (its answer
            // was lost) is that send, not a new one: answered with it.
            Err(refused) => {
                return match self.store().message_by_key(key).await? {
                    Some(m) if m.agent == to && m.text == text => Ok(Sent {
                        id: m.id,
                        seq: m.seq,
                        note: None,
                    }),
                    Some(_) | None => Err(refused),
                }
            }
        };
        let m = self
            .store_message(from, to, text, re, Some(key), carried)
            .await?;
        drop(admitting);
        if carried == Carried::Turn {
            self.noted_at_sender(from, to, text, key).await;
        }
        Ok(Sent {
            note: self.note_for(&m, carried).await?,
            id: m.id,
            seq: m.seq,
        })
    }

    /// `clawmux close`: `from` closes its thread with `with`, after its last word (if any), delivered as a
    /// turn whatever its words and the hour's count, with a line that says no answer is expected.
    pub(crate) async fn close_with(
        &self,
        from: &str,
        with: &str,
        last_word: Option<&str>,
    ) -> Result<Sent, HubError> {
        self.store().agent(from).await?;
        self.check_open(from, with).await?;
        let closing = format!(
            "({from} closed this thread: no answer is expected, and neither of you can write to the \
             other until the user reopens it.)"
        );
        let text = match last_word.map(str::trim).filter(|t| !t.is_empty()) {
            Some(word) => format!("{word}\n\n{closing}"),
            None => closing,
        };
        let m = self
            .store_message(from, with, &text, None, None, Carried::Turn)
            .await?;
        self.close(from, with, from).await?;
        Ok(Sent {
            note: self.note_for(&m, Carried::Turn).await?,
            id: m.id,
            seq: m.seq,
        })
    }

    /// Stores `from`'s message in `to`'s conversation as `carried` says, and tells whoever waits on it.
    async fn store_message(
        &self,
        from: &str,
        to: &str,
        text: &str,
        re: Option<&MsgId>,
        key: Option<&str>,
        carried: Carried,
    ) -> Result<Message, HubError> {
        let turn = carried == Carried::Turn;
        let m = self
            .inbox
            .deliver(&NewMessage {
                parent: re,
                idem_key: key,
                // An acknowledgement is kept in the thread and handed to nobody.
                ..NewMessage::plain(
                    to,
                    if turn { Kind::Agent } else { Kind::Ack },
                    from,
                    turn.then_some(to),
                    text,
                    now(),
                )
            })
            .await?;
        if turn && m.parent.is_some() {
            self.answers.notify_waiters();
        }
        Ok(m)
    }

    /// Whether `from` may send `to` this message now, and how it is carried: never to itself, never into
    /// a closed thread or one past its turns for the hour; an acknowledgement that only thanks for an
    /// answer is not a turn.
    async fn admit(
        &self,
        from: &str,
        to: &str,
        text: &str,
        re: Option<&MsgId>,
    ) -> Result<Carried, HubError> {
        let pair = self.check_open(from, to).await?;
        if self.acknowledges_an_answer(text, re).await? {
            return Ok(Carried::Acknowledgement);
        }
        let turns = self
            .store()
            .turns_since(&pair, Millis(now().0 - HOUR_MS))
            .await?;
        if turns >= i64::from(self.rules.turns_per_hour) {
            let reason = format!(
                "Your thread with {to} reached {turns} messages this hour: the next was not sent \
                 (reopen it later, or tell {from} what to do)"
            );
            self.raise_undelivered(from, to, reason).await;
            return Err(HubError::new(
                Code::ThreadLimit,
                format!(
                    "you and {to} passed {turns} messages in the last hour, the limit: this one was not sent. \
                     Tell the user what you need from {to}, and stop writing to it"
                ),
            ));
        }
        Ok(Carried::Turn)
    }

    /// The pair's thread, if `from` may write in it: `to` is another agent the hub knows, and the thread is
    /// not closed.
    pub(crate) async fn check_open(&self, from: &str, to: &str) -> Result<Pair, HubError> {
        let pair = pair(from, to)?;
        self.states.live(to)?;
        if let Some(closed) = self.store().thread_closed(&pair).await? {
            let by = if closed.by == from {
                "you"
            } else {
                closed.by.as_str()
            };
            return Err(HubError::new(
                Code::ThreadClosed,
                format!(
                    "your thread with {to} was closed by {by}: nothing more is sent until the user reopens it"
                ),
            ));
        }
        Ok(pair)
    }

    /// Whether `text` only thanks, in answer to an answer (or to nothing): answering a fresh question
    /// with "got it" is still a turn.
    async fn acknowledges_an_answer(
        &self,
        text: &str,
        re: Option<&MsgId>,
    ) -> Result<bool, HubError> {
        if !only_thanks(text) {
            return Ok(false);
        }
        let Some(re) = re else {
            return Ok(true);
        };
        Ok(self
            .store()
            .message(re)
            .await?
            .is_some_and(|m| m.parent.is_some()))
    }

    /// What the sender should know of a turn it just sent, `m`: nothing, unless the recipient cannot take
    /// it now (it stays queued for the recipient's next start, and the sender's user is told).
    async fn note_for(&self, m: &Message, carried: Carried) -> Result<Option<String>, HubError> {
        let to = &m.agent;
        if carried == Carried::Acknowledgement {
            return Ok(Some(format!(
                "kept as an acknowledgement in your thread with {to}: not handed to {to} as a new turn"
            )));
        }
        if self.store().agent(to).await?.snapshot.state != State::Dead {
            return Ok(None);
        }
        self.not_running(m).await;
        Ok(Some(format!(
            "{to} is not running: the message waits in its inbox until it starts again, and the user \
             was told"
        )))
    }

    /// Waits at most `within` for the first answer to `asker`'s message `re` and hands it over to the
    /// ask (no wait or hook hands it again). None when none came in time: it will come as a message.
    pub async fn await_answer(
        &self,
        asker: &str,
        re: &MsgId,
        within: Duration,
    ) -> Result<Option<Message>, HubError> {
        let deadline = tokio::time::Instant::now() + within;
        let live = self.states.live(asker)?;
        loop {
            let told = self.answers.notified();
            tokio::pin!(told);
            told.as_mut().enable();
            {
                // One consumer of the asker's inbox at a time, as for a wait or a hook.
                let _one = live.mail.consumer.clone().lock_owned().await;
                if let Some(answer) = self.store().take_answer(asker, re, now()).await? {
                    return Ok(Some(answer));
                }
            }
            if tokio::time::timeout_at(deadline, told).await.is_err() {
                return Ok(None);
            }
        }
    }

    /// The messages `agent`'s transcript showed its model received: their delivery moves to seen.
    pub(crate) async fn seen(&self, agent: &str, ids: &[MsgId], at: Millis) {
        match self.store().mark_seen(agent, ids, at).await {
            Ok(newly) if newly.is_empty() => {}
            Ok(newly) => {
                self.states.broadcast(UiEvent::Seen {
                    session_id: agent.to_owned(),
                    ids: newly,
                });
            }
            Err(e) => tracing::warn!(agent, error = %e, "could not record messages as seen"),
        }
    }
}

/// Words a message may carry: some, and at most [`MAX_TEXT`] bytes of them (the user's, an agent's).
pub(crate) fn words(text: &str) -> Result<(), HubError> {
    if text.trim().is_empty() {
        return Err(HubError::new(Code::EmptyMessage, "the message is empty"));
    }
    if text.len() > MAX_TEXT {
        return Err(HubError::new(
            Code::MessageTooLarge,
            format!("a message may be at most {MAX_TEXT} bytes"),
        ));
    }
    Ok(())
}

fn pair(a: &str, b: &str) -> Result<Pair, HubError> {
    Pair::new(a, b).map_err(|SamePair| {
        HubError::new(
            Code::ToItself,
            format!("{a} cannot write to itself: name another agent, or `user`"),
        )
    })
}
