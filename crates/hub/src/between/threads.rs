//! The threads as the window shows them and the user steps into them: every thread, one thread with each
//! message's delivery, the user's word in one, a thread closed or reopened, and the line in a sender's
//! own chat that names the agent it wrote to.

use clawmux_core::between::{Passed, ThreadSummary};
use clawmux_core::wire::{Code, Kind, Message, MsgId};
use clawmux_store::NewMessage;

use clawmux_core::printable::one_line;

use super::{pair, words, Between};
use crate::clock::now;
use crate::error::HubError;
use crate::states::HUB_SENDER;

impl Between {
    /// Every thread that has a message, the latest first.
    pub async fn threads(&self) -> Result<Vec<ThreadSummary>, HubError> {
        Ok(self.store().threads().await?)
    }

    /// The last `limit` messages of `a` and `b`'s thread, each with its delivery.
    pub async fn thread(&self, a: &str, b: &str, limit: i64) -> Result<Vec<Passed>, HubError> {
        if !(1..=10_000).contains(&limit) {
            return Err(HubError::new(
                Code::BadQuery,
                "a thread's page is 1 to 10000 messages",
            ));
        }
        Ok(self.store().thread(&pair(a, b)?, limit).await?)
    }

    /// The user's word in a thread: to `to`, answering `re`, a message of `to`'s thread with another
    /// agent; handed to `to` as the user's, shown in the thread. Stored once under `key`.
    pub async fn user_reply(
        &self,
        to: &str,
        re: &MsgId,
        text: &str,
        key: &str,
    ) -> Result<Message, HubError> {
        let passed = self.store().passed(re).await?.filter(|p| {
            p.message.kind == Kind::Agent && (p.message.agent == to || p.message.sender == to)
        });
        if passed.is_none() {
            return Err(HubError::new(
                Code::UnknownCursor,
                format!("{re} is no message of a thread of {to}'s"),
            ));
        }
        self.states.live(to)?;
        words(text)?;
        let key = format!("thread:{key}");
        self.inbox
            .deliver(&NewMessage {
                parent: Some(re),
                idem_key: Some(&key),
                ..NewMessage::plain(to, Kind::User, "user", Some(to), text, now())
            })
            .await
    }

    /// Closes `a` and `b`'s thread, by `by` (one of them, or `user`). Closing a closed thread changes
    /// nothing.
    pub async fn close(&self, a: &str, b: &str, by: &str) -> Result<(), HubError> {
        let pair = pair(a, b)?;
        self.states.live(&pair.a)?;
        self.states.live(&pair.b)?;
        self.store().close_thread(&pair, by, now()).await?;
        Ok(())
    }

    /// Reopens `a` and `b`'s thread.
    pub async fn reopen(&self, a: &str, b: &str) -> Result<(), HubError> {
        self.store().reopen_thread(&pair(a, b)?).await?;
        Ok(())
    }

    /// A line in the sender's own conversation naming the other, so the user reading `from`'s chat sees
    /// what it wrote to whom (once: under the send's key). An agent of another machine has none here.
    pub(super) async fn noted_at_sender(&self, from: &str, to: &str, text: &str, key: &str) {
        if from.contains('@') {
            return;
        }
        let line = format!("To {to}: {}", one_line(text, 300));
        let note_key = format!("to:{key}");
        let noted = self
            .states
            .append(&NewMessage {
                idem_key: Some(&note_key),
                ..NewMessage::plain(from, Kind::System, HUB_SENDER, Some("user"), &line, now())
            })
            .await;
        if let Err(e) = noted {
            tracing::warn!(from, to, error = %e, "could not note a message in its sender's chat");
        }
    }
}
