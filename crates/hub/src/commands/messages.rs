//! The commands of the conversation: the user's message and its files, what was read, and history's pages;
//! with the agent's logs as JSON lines and a "finished" notice's body, which the HTTP routes and the window
//! read the same way.

use clawmux_api::commands::messages::{
    Attach, AttachmentImage, History, Image, MarkRead, Page, Sent, UserMessage, DEFAULT_PAGE,
    MAX_PAGE,
};
use clawmux_core::wire::Code;
use clawmux_core::wire::{Attachment, MsgId, Said};

use super::{Done, Handle};
use crate::diagnose::{decision_line, event_line, json_lines, Log, MAX_LOG_ROWS};
use crate::error::HubError;
use crate::hub::Hub;
use crate::ui_event::MessageOut;

impl Handle for UserMessage {
    async fn handle(self, hub: &Hub) -> Result<Sent, HubError> {
        let files = hub.attachments().resolve(&self.attachments).await?;
        let m = hub
            .messages()
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
            note: None,
        })
    }
}

impl Handle for Attach {
    async fn handle(self, hub: &Hub) -> Result<Attachment, HubError> {
        let bytes = crate::attachments::decode(&self.name, &self.data)?;
        hub.attach(&self.session_id, &self.name, bytes).await
    }
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

impl Handle for MarkRead {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.messages()
            .mark_read(
                &self.session_id,
                &message_id(&self.up_to, Code::BadMessageId)?,
            )
            .await?;
        Ok(Done {})
    }
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
