//! Messages: the user's to an agent, an agent's `clawmux send` (to the user here, to another agent through
//! `between`), and marking a conversation read. Each is stored, broadcast in seq order, and handed to the
//! agent's inbox by the features it is made with.

use clawmux_api::commands::Sent;
use clawmux_core::wire::{Attachment, Code, Kind, Message, MsgId, Said};
use clawmux_store::NewMessage;
use sha2::{Digest, Sha256};

use crate::clock::now;
use crate::error::HubError;
use crate::states::States;

/// Sending and reading messages.
#[derive(Clone)]
pub struct Messages {
    states: States,
    inbox: crate::inbox::Inbox,
    between: crate::between::Between,
}

impl Messages {
    /// Messages through `states` (stored and broadcast), handed over by `inbox`, to other agents by
    /// `between`'s rules.
    pub(crate) fn new(
        states: States,
        inbox: crate::inbox::Inbox,
        between: crate::between::Between,
    ) -> Messages {
        Messages {
            states,
            inbox,
            between,
        }
    }

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
            crate::between::words(text)?;
        }
        self.states.live(agent)?;
        let key = client_key.map(|k| format!("user:{agent}:{k}"));
        self.inbox
            .deliver(&NewMessage {
                voice: said.spoken(),
                aloud: said.aloud(),
                attachments: files,
                idem_key: key.as_deref(),
                ..NewMessage::plain(agent, Kind::User, "user", Some(agent), text, now())
            })
            .await
    }

    /// `clawmux send`: an agent's message to the user (or a thumbs-up with `re` and no text) or to another
    /// agent (carried by `between`, by its rules). Without a client key, a retry of the same content by the
    /// same agent in the same turn (before it was handed anything new) returns the first message: sends are
    /// idempotent. Answers the stored message with what the sender should know of its way.
    pub async fn send(
        &self,
        from: &str,
        to: &str,
        text: Option<&str>,
        re: Option<&str>,
        client_key: Option<&str>,
    ) -> Result<Sent, HubError> {
        let sender = self.states.store().agent(from).await?;
        let parent = re
            .map(|r| MsgId::parse(r).map_err(|e| HubError::new(Code::BadMessageId, e.to_string())))
            .transpose()?;
        let text = text.unwrap_or_default();
        let key = client_key.map_or_else(
            || {
                send_key(
                    from,
                    sender.inbox_cursor,
                    [to, re.unwrap_or_default(), text],
                )
            },
            |k| format!("send:{from}:{k}"),
        );
        if to != "user" {
            crate::between::words(text)?;
            return self
                .between
                .send(from, to, text, parent.as_ref(), &key)
                .await;
        }
        to_user(&self.states, from, text, parent.as_ref(), &key).await
    }

    /// Marks `agent`'s conversation read up to message `up_to`.
    pub async fn mark_read(&self, agent: &str, up_to: &MsgId) -> Result<(), HubError> {
        let m = self
            .states
            .store()
            .message(up_to)
            .await?
            .filter(|m| m.agent == agent)
            .ok_or_else(|| {
                HubError::new(
                    Code::UnknownCursor,
                    format!("no message {up_to} in {agent}"),
                )
            })?;
        self.states.store().mark_read(agent, m.seq).await?;
        Ok(())
    }
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

/// An agent's message to the user, or its thumbs-up on `parent` (no text).
async fn to_user(
    states: &crate::states::States,
    from: &str,
    text: &str,
    parent: Option<&MsgId>,
    key: &str,
) -> Result<Sent, HubError> {
    let kind = match (text.trim().is_empty(), parent) {
        (true, Some(_)) => Kind::Ack,
        (true, None) => {
            return Err(HubError::new(
                Code::EmptyMessage,
                "nothing to send: give a message, or --re ID for a thumbs-up",
            ))
        }
        (false, _) => {
            crate::between::words(text)?;
            Kind::Assistant
        }
    };
    let m = states
        .append(&NewMessage {
            parent,
            idem_key: Some(key),
            ..NewMessage::plain(from, kind, from, Some("user"), text, now())
        })
        .await?;
    Ok(Sent {
        id: m.id,
        seq: m.seq,
        note: None,
    })
}
