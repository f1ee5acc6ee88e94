//! The commands of the conversation: the user's message and its files, what was read, and history's
//! pages.

use clawmux_core::wire::{AttachmentRef, MessageOut, MsgId};
use serde::{Deserialize, Serialize};

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
    /// What the sender should know of its way: kept as an acknowledgement and not handed over as a turn,
    /// or the recipient cannot take it now. An older hub sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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

/// The user has read a conversation up to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkRead {
    /// The agent.
    pub session_id: String,
    /// The last message read.
    pub up_to: String,
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
