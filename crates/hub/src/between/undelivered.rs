//! A message between agents that does not get through is the sender's user's to know, never a silent
//! queue: the sender's "needs you" (`Need::Undelivered`) says which and why.
//!
//! Three ways a message does not get through: its recipient is not running when it is sent (raised at
//! once; the message waits in the inbox for the next start), the recipient has not taken it for
//! `after` (the hub looks now and then), or the thread reached its turns for the hour (the send was
//! refused). A "needs you" raised for messages that waited ends by itself when every one of them is taken;
//! the user dismisses any of them, and a message of the user's to the sender ends it too.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use clawmux_core::wire::{Message, MsgId};
use clawmux_core::{Event, Millis, Need, Source, Undelivered};

use super::Between;
use crate::clock::now;
use clawmux_core::sync::Locked;

/// The messages a "needs you" was raised for, by sender, so each is raised once and the need ends when
/// all of a sender's are taken.
#[derive(Default)]
pub(super) struct Flagged(Mutex<HashMap<String, HashSet<MsgId>>>);

impl Flagged {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashSet<MsgId>>> {
        self.0.locked()
    }

    /// Adds `id` for `sender`; false when it was there already.
    fn add(&self, sender: &str, id: &MsgId) -> bool {
        self.lock()
            .entry(sender.to_owned())
            .or_default()
            .insert(id.clone())
    }

    /// Keeps only the flagged messages still queued; returns the senders none of whose are.
    fn keep_queued(&self, queued: &HashSet<&MsgId>) -> Vec<String> {
        let mut flagged = self.lock();
        let mut cleared = Vec::new();
        flagged.retain(|sender, ids| {
            ids.retain(|id| queued.contains(id));
            if ids.is_empty() {
                cleared.push(sender.clone());
            }
            !ids.is_empty()
        });
        cleared
    }
}

impl Between {
    /// Raises `sender`'s "needs you": its message to `to` does not get through, for `reason`. Never fails
    /// the send it comes from: what cannot be recorded is logged.
    pub(super) async fn raise_undelivered(&self, sender: &str, to: &str, reason: String) {
        if sender.contains('@') {
            // An agent of another machine: its user is that machine's.
            return;
        }
        let undelivered = Undelivered {
            to: to.to_owned(),
            reason,
        };
        let payload = serde_json::to_vec(&undelivered).unwrap_or_default();
        if let Err(e) = self
            .states
            .apply(
                sender,
                Source::Hub,
                &Event::Undelivered(undelivered),
                &payload,
            )
            .await
        {
            tracing::warn!(sender, to, error = %e, "could not tell the user of an undelivered message");
        }
    }

    /// A turn just stored for `to`, who is not running: its sender's user is told at once.
    pub(super) async fn not_running(&self, m: &Message) {
        self.flagged.add(&m.sender, &m.id);
        let reason = format!(
            "Your message to {to} waits: {to} is not running (start it, or tell {from})",
            to = m.agent,
            from = m.sender
        );
        self.raise_undelivered(&m.sender, &m.agent, reason).await;
    }

    /// Looks at the messages between agents still queued as of `at`: each queued longer than the rules
    /// allow raises its sender's "needs you" once; a sender whose flagged messages were all taken since
    /// no longer needs the user for them.
    pub async fn check_undelivered(&self, at: Millis) -> Result<(), crate::HubError> {
        let after = i64::try_from(self.rules.undelivered_after.as_millis()).unwrap_or(i64::MAX);
        let queued = self.store().queued_between(at).await?;
        let ids: HashSet<&MsgId> = queued.iter().map(|m| &m.id).collect();
        for sender in self.flagged.keep_queued(&ids) {
            self.delivered_at_last(&sender).await;
        }
        let mut raised = HashSet::new();
        for m in queued.iter().filter(|m| at.0 - m.at.0 >= after) {
            if !self.flagged.add(&m.sender, &m.id) || !raised.insert((&m.sender, &m.agent)) {
                continue;
            }
            let state = self.store().agent(&m.agent).await?.snapshot.state;
            let reason = format!(
                "Your message to {to} waits: {to} has not taken it in {waited} ({to} is {state})",
                to = m.agent,
                waited = spoken_wait(at.0 - m.at.0),
                state = state.as_str()
            );
            self.raise_undelivered(&m.sender, &m.agent, reason).await;
        }
        Ok(())
    }

    /// `sender`'s messages were all taken: the "needs you" they raised ends (not one the user must meet).
    async fn delivered_at_last(&self, sender: &str) {
        let undelivered = match self.store().agent(sender).await {
            Ok(row) => row
                .snapshot
                .attention
                .is_some_and(|a| a.need == Need::Undelivered),
            Err(_) => false,
        };
        if undelivered {
            if let Err(e) = self.states.dismiss(sender, Source::Hub).await {
                tracing::debug!(sender, error = %e, "the undelivered notice had ended already");
            }
        }
    }

    /// Checks the queued messages now and then (a tenth of the allowed wait, between 1 s and 30 s), and
    /// takes the answers other machines hold for this one's agents (`away.rs`), until the hub stops.
    pub fn start(&self, tasks: &crate::tasks::Tasks) {
        let told = self.answers_told.locked().take();
        if let Some(told) = told {
            tasks.spawn(self.clone().take_answers_as_told(told));
        }
        let between = self.clone();
        let every = (self.rules.undelivered_after / 10)
            .clamp(Duration::from_secs(1), Duration::from_secs(30));
        tasks.spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = between.check_undelivered(now()).await {
                    tracing::warn!(error = %e, "could not look at the messages between agents");
                }
            }
        });
    }
}

/// A wait in whole minutes, or seconds under one.
fn spoken_wait(ms: i64) -> String {
    if ms < 60_000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{} min", ms / 60_000)
    }
}

/// What the rules of [`Between`] allow.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// How many turns a thread may take in an hour, both ways.
    pub turns_per_hour: u32,
    /// How long a message between agents may wait in its recipient's inbox before its sender's user is
    /// told.
    pub undelivered_after: Duration,
}

impl Default for Rules {
    /// 60 turns an hour, 10 minutes in an inbox: the hub's defaults.
    fn default() -> Rules {
        Rules {
            turns_per_hour: 60,
            undelivered_after: Duration::from_secs(600),
        }
    }
}
