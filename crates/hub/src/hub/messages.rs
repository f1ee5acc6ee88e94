//! Messages: storing one, broadcasting it in seq order, and telling the agent's inbox.

use clawmux_api::commands::Sent;
use clawmux_core::wire::{Attachment, Code, Kind, Message, MsgId, Said};
use clawmux_store::NewMessage;
use sha2::{Digest, Sha256};

use super::Hub;
use crate::between::Carried;
use crate::clock::now;
use crate::error::HubError;

/// The longest message text accepted (the body limit is 1 MiB; this leaves room for JSON escaping).
pub const MAX_TEXT: usize = 512 * 1024;

impl Hub {
    /// The user's message to an agent (typed, or transcribed speech, as `said`), with the files kept for it
    /// (`attachments`; the text may then be empty). `client_key` makes a retried send store nothing new.
    pub async fn user_message(
        &self,
        agent: &str,
        text: &str,
        said: Said,
        files: &[Attachment],
        client_key: Option<&str>,
    ) -> Result<Message, HubError> {
        if files.is_empty() || !text.is_empty() {
            check_text(text)?;
        }
        self.live(agent)?;
        let key = client_key.map(|k| format!("user:{agent}:{k}"));
        let m = self
            .states()
            .append(&NewMessage {
                agent,
                kind: Kind::User,
                sender: "user",
                recipient: Some(agent),
                text,
                parent: None,
                voice: said.spoken(),
                aloud: said.aloud(),
                attachments: files,
                idem_key: key.as_deref(),
                at: now(),
            })
            .await?;
        self.inbox().announce_pending(agent).await?;
        Ok(m)
    }

    /// `clawmux send`: an agent's message to the user (or a thumbs-up with `re` and no text) or to another
    /// agent (by the rules of `between`: an acknowledgement of an answer is kept, not handed over). Without
    /// a client key, a retry of the same content by the same agent in the same turn (before it was handed
    /// anything new) returns the first message: sends are idempotent. Answers the stored message with what
    /// the sender should know of its way.
    pub async fn send(
        &self,
        from: &str,
        to: &str,
        text: Option<&str>,
        re: Option<&str>,
        client_key: Option<&str>,
    ) -> Result<Sent, HubError> {
        let sender = self.inner.store.agent(from).await?;
        let parent = re
            .map(|r| MsgId::parse(r).map_err(|e| HubError::new(Code::BadMessageId, e.to_string())))
            .transpose()?;
        let text = text.unwrap_or_default();
        let (agent, kind, recipient) = if to == "user" {
            match (text.trim().is_empty(), &parent) {
                (true, Some(_)) => (from, Kind::Ack, "user"),
                (true, None) => {
                    return Err(HubError::new(
                        Code::EmptyMessage,
                        "nothing to send: give a message, or --re ID for a thumbs-up",
                    ))
                }
                (false, _) => (from, Kind::Assistant, "user"),
            }
        } else {
            check_text(text)?;
            match self
                .between()
                .admit(from, to, text, parent.as_ref())
                .await?
            {
                Carried::Turn => (to, Kind::Agent, to),
                Carried::Acknowledgement => (to, Kind::Ack, to),
            }
        };
        if kind == Kind::Assistant {
            check_text(text)?;
        }
        let key = match client_key {
            Some(k) => format!("send:{from}:{k}"),
            None => send_key(
                from,
                sender.inbox_cursor,
                [to, re.unwrap_or_default(), text],
            ),
        };
        let m = self
            .states()
            .append(&NewMessage {
                agent,
                kind,
                sender: from,
                // An acknowledgement between agents is kept in the thread and handed to nobody.
                recipient: (!(kind == Kind::Ack && recipient != "user")).then_some(recipient),
                text,
                parent: parent.as_ref(),
                voice: false,
                aloud: false,
                attachments: &[],
                idem_key: Some(&key),
                at: now(),
            })
            .await?;
        let note = match kind {
            Kind::Agent => {
                self.between().stored(&m);
                self.inbox().announce_pending(to).await?;
                self.between().note_for(to, Carried::Turn).await?
            }
            Kind::Ack if to != "user" => {
                self.between()
                    .note_for(to, Carried::Acknowledgement)
                    .await?
            }
            Kind::User | Kind::Assistant | Kind::Ack | Kind::Activity | Kind::System => None,
        };
        Ok(Sent {
            id: m.id,
            seq: m.seq,
            note,
        })
    }

    /// `clawmux close`: `from` closes its thread with `with`, after its last word (if any) is delivered
    /// with a line that says no answer is expected.
    pub async fn close_thread(
        &self,
        from: &str,
        with: &str,
        last_word: Option<&str>,
    ) -> Result<Sent, HubError> {
        let closing = format!(
            "({from} closed this thread: no answer is expected, and neither of you can write to the \
             other until the user reopens it.)"
        );
        let text = match last_word.map(str::trim).filter(|t| !t.is_empty()) {
            Some(word) => format!("{word}\n\n{closing}"),
            None => closing,
        };
        // Sent as a turn whatever its words and the hour's count: the other agent must learn of it.
        self.inner.store.agent(from).await?;
        self.between().check_open(from, with).await?;
        let m = self
            .states()
            .append(&NewMessage {
                agent: with,
                kind: Kind::Agent,
                sender: from,
                recipient: Some(with),
                text: &text,
                parent: None,
                voice: false,
                aloud: false,
                attachments: &[],
                idem_key: None,
                at: now(),
            })
            .await?;
        self.inbox().announce_pending(with).await?;
        self.between().close(from, with, from).await?;
        Ok(Sent {
            id: m.id,
            seq: m.seq,
            note: self.between().note_for(with, Carried::Turn).await?,
        })
    }

    /// Marks `agent`'s conversation read up to message `up_to`.
    pub async fn mark_read(&self, agent: &str, up_to: &MsgId) -> Result<(), HubError> {
        let m = self
            .inner
            .store
            .message(up_to)
            .await?
            .filter(|m| m.agent == agent)
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownCursor,
                    format!("no message {up_to} in {agent}"),
                )
            })?;
        self.inner.store.mark_read(agent, m.seq).await?;
        Ok(())
    }
}

fn check_text(text: &str) -> Result<(), HubError> {
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

/// The idempotency key of a send that named none: the same words to the same recipient in the same turn
/// (the sender's inbox position) are one message, sent again.
fn send_key(from: &str, turn: i64, parts: [&str; 3]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update(part.len().to_le_bytes());
        h.update(part.as_bytes());
    }
    let digest = clawmux_core::hex::hex(&h.finalize()[..16]);
    format!("send:{from}:turn{turn}:{digest}")
}
