//! The commands of the conversation: the user's message and its files, what was read, and history's pages;
//! with the agent's logs as JSON lines and a "finished" notice's body, which the HTTP routes and the window
//! read the same way.

use clawmux_core::wire::Code;
use clawmux_core::wire::{Attachment, AttachmentRef, MsgId, Said};
use serde::{Deserialize, Serialize};

use super::{Done, Handle};
use crate::diagnose::{decision_line, event_line, json_lines, Log, MAX_LOG_ROWS};
use crate::error::HubError;
use crate::hub::Hub;
use crate::ui_event::MessageOut;

/// The most messages one history page returns.
pub const MAX_PAGE: u32 = 1000;
/// The page size when none is asked for.
pub const DEFAULT_PAGE: u32 = 100;

/// The user's message to an agent: answered with the stored message (once per client id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserMessage {
    /// The agent.
    pub session_id: String,
    /// The text.
    pub text: String,
    /// Transcribed speech rather than typed.
    #[serde(default)]
    pub voice: bool,
    /// Files kept for it with `attach`, in order (the text may then be empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<AttachmentRef>,
    /// The client's id for this message: a retry with it stores nothing new.
    pub client_id: Option<String>,
}

/// `user_message`'s answer: the stored message (once per client id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// Its id.
    pub id: MsgId,
    /// Its cursor.
    pub seq: i64,
}

impl Handle for UserMessage {
    async fn handle(self, hub: &Hub) -> Result<Sent, HubError> {
        let files = hub.attachments().resolve(&self.attachments).await?;
        let m = hub
            .user_message(
                &self.session_id,
                &self.text,
                Said::voice(self.voice),
                &files,
                self.client_id.as_deref(),
            )
            .await?;
        Ok(Sent {
            id: m.id,
            seq: m.seq,
        })
    }
}

/// Keeps a file the user attaches to a message for an agent (sent next with `user_message`): what the hub
/// found it to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attach {
    /// The agent it is for (the file is kept on that agent's machine).
    pub session_id: String,
    /// The file's name, as the user's system gave it.
    pub name: String,
    /// Its bytes, in standard base64.
    pub data: String,
}

impl Handle for Attach {
    async fn handle(self, hub: &Hub) -> Result<Attachment, HubError> {
        let bytes = crate::attachments::decode(&self.name, &self.data)?;
        hub.attach(&self.session_id, &self.name, bytes).await
    }
}

/// A kept image's bytes, for its thumbnail where the hub's HTTP route cannot be reached: an agent on
/// another machine (this command is forwarded whole to the hub that keeps the file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachmentImage {
    /// The file's id, as `attach` answered it.
    pub id: String,
}

/// `attachment_image`'s answer: its media type and its bytes in standard base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes.
    pub data: String,
}

impl Handle for AttachmentImage {
    async fn handle(self, hub: &Hub) -> Result<Image, HubError> {
        use base64::Engine;
        let (bytes, media_type) = hub.attachments().read(&self.id).await?;
        let media_type = media_type.ok_or_else(|| {
            HubError::new(
                Code::UnknownAttachment,
                format!("{} is not an image", self.id),
            )
        })?;
        Ok(Image {
            media_type: media_type.to_owned(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }
}

/// The user has read a conversation up to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkRead {
    /// The agent.
    pub session_id: String,
    /// The last message read.
    pub up_to: String,
}

impl Handle for MarkRead {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.mark_read(
            &self.session_id,
            &message_id(&self.up_to, Code::BadMessageId)?,
        )
        .await?;
        Ok(Done {})
    }
}

/// A page of a conversation: the latest, after a cursor, or before one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct History {
    /// The agent.
    pub session_id: String,
    /// Messages after this one.
    pub after: Option<String>,
    /// Messages before this one.
    pub before: Option<String>,
    /// At most this many (default 100, at most 1000).
    pub limit: Option<u32>,
}

/// `history`'s answer: a page of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// The agent.
    pub session_id: String,
    /// The page, oldest first.
    pub messages: Vec<MessageOut>,
}

impl Handle for History {
    async fn handle(self, hub: &Hub) -> Result<Page, HubError> {
        let limit = self.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        let store = hub.store();
        let agent = self.session_id.as_str();
        store.agent(agent).await?;
        let page = match (self.after, self.before) {
            (Some(_), Some(_)) => {
                return Err(HubError::new(
                    Code::BadQuery,
                    "give `after` or `before`, not both",
                ))
            }
            (Some(after), None) => {
                let after = message_id(&after, Code::BadCursor)?;
                store.after(Some(agent), Some(&after), limit).await?
            }
            (None, Some(before)) => {
                let before = message_id(&before, Code::BadCursor)?;
                store.before(agent, &before, limit).await?
            }
            (None, None) => store.latest(agent, limit).await?,
        };
        Ok(Page {
            messages: page.iter().map(MessageOut::from).collect(),
            session_id: self.session_id,
        })
    }
}

fn message_id(s: &str, code: Code) -> Result<MsgId, HubError> {
    MsgId::parse(s).map_err(|e| HubError::new(code, e.to_string()))
}

impl Hub {
    /// Keeps a file the user attaches to a message for `agent` (`attach`, or its bytes posted raw by the
    /// page or the window): refused for an agent that is not there.
    pub async fn attach(
        &self,
        agent: &str,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<Attachment, HubError> {
        drop(self.live(agent)?);
        self.attachments().keep(name, bytes).await
    }

    /// One page of an agent's log as JSON lines: rows with an id above `after`, at most `limit`.
    pub async fn log_lines(
        &self,
        agent: &str,
        log: Log,
        after: i64,
        limit: u32,
    ) -> Result<String, HubError> {
        self.store().agent(agent).await?;
        let limit = limit.clamp(1, MAX_LOG_ROWS);
        Ok(match log {
            Log::Events => json_lines(
                self.store()
                    .events(agent, after, limit)
                    .await?
                    .iter()
                    .map(event_line),
            ),
            Log::Decisions => json_lines(
                self.store()
                    .decisions(agent, after, limit)
                    .await?
                    .iter()
                    .map(decision_line),
            ),
        })
    }

    /// The body of a "finished" notice: the start of the agent's last answer to the user.
    pub async fn finished_notice(&self, agent: &str) -> String {
        let latest = self.store().latest(agent, 20).await.unwrap_or_default();
        crate::notice::finished_body(&latest)
    }
}
