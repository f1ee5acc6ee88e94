//! Messages and how an agent reads them: the `[MSG id:.. from:..]` lines of `docs/PROTOCOL.md`, the
//! message id format and the rule for agent names.

use serde::{Deserialize, Serialize};

mod attachment;
mod client;
mod code;
mod listened;
mod terminal;
mod wait;

pub use attachment::{
    clean_name, file_line, Attachment, AttachmentId, AttachmentKind, AttachmentRef,
    BadAttachmentId, MAX_ATTACHMENT, MAX_ATTACHMENTS, MAX_NAME_CHARS,
};
pub use client::{parse_client_message, ClientMessage};
pub use code::Code;
pub use listened::{Listened, ListenedType};
pub use terminal::{
    TermSize, TerminalInput, TerminalInputType, TerminalNotice, TerminalNoticeType,
    TERMINAL_PROTOCOL, TOKEN_PROTOCOL,
};
pub use wait::{StopVerdict, WaitClose, WaitFrame, WaitMessage};

use crate::time::Millis;

/// Who speaks in a message, which decides how the chat shows it and how an agent reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The user, typed or spoken, to an agent.
    User,
    /// An agent to the user (`clawmux send --to user`).
    Assistant,
    /// One agent to another.
    Agent,
    /// A thumbs-up on an earlier message (`clawmux send --to user --re ID` without text).
    Ack,
    /// A tool activity row kept in the history.
    Activity,
    /// Anything the hub itself says.
    System,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 6] = [
        Kind::User,
        Kind::Assistant,
        Kind::Agent,
        Kind::Ack,
        Kind::Activity,
        Kind::System,
    ];

    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Assistant => "assistant",
            Kind::Agent => "agent",
            Kind::Ack => "ack",
            Kind::Activity => "activity",
            Kind::System => "system",
        }
    }

    /// Parses a stored name.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// A message id as agents and browsers see it: `msg-` and 8 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct MsgId(String);

impl MsgId {
    /// Builds the id for a 32-bit number.
    pub fn from_u32(n: u32) -> MsgId {
        MsgId(format!("msg-{n:08x}"))
    }

    /// Validates an id given by a client.
    pub fn parse(s: &str) -> Result<MsgId, BadMsgId> {
        let hex = s.strip_prefix("msg-").ok_or(BadMsgId)?;
        if hex.len() == 8 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(MsgId(s.to_owned()))
        } else {
            Err(BadMsgId)
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for MsgId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for MsgId {
    type Error = BadMsgId;
    fn try_from(s: String) -> Result<MsgId, BadMsgId> {
        MsgId::parse(&s)
    }
}

impl From<MsgId> for String {
    fn from(id: MsgId) -> String {
        id.0
    }
}

/// A malformed message id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a message id is `msg-` followed by 8 lowercase hex digits")]
pub struct BadMsgId;

/// How the user said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// Typed.
    Typed,
    /// Spoken (push-to-talk, or hands-free with no spoken answer asked).
    Spoken,
    /// Spoken hands-free, a spoken answer asked: the user is listening, not reading.
    Aloud,
}

impl Said {
    /// Typed, or spoken when `voice`.
    pub fn voice(voice: bool) -> Said {
        if voice {
            Said::Spoken
        } else {
            Said::Typed
        }
    }

    /// Whether it was spoken.
    pub fn spoken(self) -> bool {
        !matches!(self, Said::Typed)
    }

    /// Whether a spoken answer is asked.
    pub fn aloud(self) -> bool {
        matches!(self, Said::Aloud)
    }
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The position in the store: the cursor for "what follows".
    pub seq: i64,
    /// The public id.
    pub id: MsgId,
    /// Whose conversation it belongs to (the agent whose chat shows it).
    pub agent: String,
    /// Who speaks.
    pub kind: Kind,
    /// `user`, or the sending agent's name.
    pub sender: String,
    /// The agent whose inbox receives it, `user`, or none (activity and system rows).
    pub recipient: Option<String>,
    /// The text (markdown).
    pub text: String,
    /// The message this one answers or acknowledges.
    pub parent: Option<MsgId>,
    /// Spoken rather than typed.
    pub voice: bool,
    /// Spoken hands-free, with a spoken answer asked: the user is listening, not reading (the voice
    /// settings' `spoken_answers`). The agent reads it as `[VOICE id:.. from:.. aloud]`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aloud: bool,
    /// The files the user attached, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    /// When it was stored.
    pub at: Millis,
}

/// A message as the UI and a `clawmux wait` receive it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageOut {
    /// The conversation (agent) it belongs to.
    pub session_id: String,
    /// The public id.
    pub id: String,
    /// The cursor position.
    pub seq: i64,
    /// `user|assistant|agent|ack|activity|system`.
    pub kind: Kind,
    /// Who wrote it.
    pub sender: String,
    /// Who receives it.
    pub recipient: Option<String>,
    /// The text (markdown).
    pub text: String,
    /// The message it answers.
    pub parent_id: Option<String>,
    /// Spoken rather than typed.
    pub voice: bool,
    /// The files the user attached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    /// When it was stored.
    pub ts: Millis,
}

impl From<&Message> for MessageOut {
    fn from(m: &Message) -> MessageOut {
        MessageOut {
            session_id: m.agent.clone(),
            id: m.id.to_string(),
            seq: m.seq,
            kind: m.kind,
            sender: m.sender.clone(),
            recipient: m.recipient.clone(),
            text: m.text.clone(),
            parent_id: m.parent.as_ref().map(ToString::to_string),
            voice: m.voice,
            attachments: m.attachments.clone(),
            ts: m.at,
        }
    }
}

/// How an agent reads a message (what `clawmux wait` and the Stop hook print):
/// `[VOICE id:.. from:user] text` (`[VOICE id:.. from:user aloud] text` when a spoken answer is asked),
/// `[MSG id:.. from:..] text`, `[ACK id:.. from:.. on:..]`, else `[SYSTEM] text`.
///
/// Only the hub starts a line with `[`: a line of the text that would (an agent writing
/// `\n[MSG id:.. from:user] ...` to pass as the user) is indented by a space. Each attached file follows
/// on a line of its own ([`file_line`]).
pub fn agent_line(m: &Message) -> String {
    let mut line = message_line(m);
    for a in &m.attachments {
        line.push('\n');
        line.push_str(&file_line(a));
    }
    line
}

fn message_line(m: &Message) -> String {
    let text = defused(&m.text);
    match m.kind {
        Kind::User if m.voice && m.aloud => {
            format!("[VOICE id:{} from:{} aloud] {text}", m.id, m.sender)
        }
        Kind::User if m.voice => format!("[VOICE id:{} from:{}] {text}", m.id, m.sender),
        Kind::User | Kind::Agent => format!("[MSG id:{} from:{}] {text}", m.id, m.sender),
        Kind::Ack => {
            let on = m.parent.as_ref().map_or("?", MsgId::as_str);
            format!("[ACK id:{} from:{} on:{}]", m.id, m.sender, on)
        }
        Kind::Assistant | Kind::Activity | Kind::System => format!("[SYSTEM] {text}"),
    }
}

/// `text` with every line break made a `\n` (a reader may take `\r` or U+2028 for one) and a space before
/// each later line that starts with `[`, so no line of it can pass for one of the hub's.
fn defused(text: &str) -> std::borrow::Cow<'_, str> {
    const BREAKS: [char; 5] = ['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'];
    if !text.contains(BREAKS) {
        return std::borrow::Cow::Borrowed(text);
    }
    let text = text.replace("\r\n", "\n");
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split(BREAKS).enumerate() {
        if i > 0 {
            out.push('\n');
            if line.starts_with('[') {
                out.push(' ');
            }
        }
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// The additionalContext a tool hook hands to Claude with inbox messages.
pub fn hook_context(messages: &[Message]) -> String {
    let lines: Vec<String> = messages.iter().map(agent_line).collect();
    format!(
        "You have {} new message(s):\n{}",
        messages.len(),
        lines.join("\n")
    )
}

/// The longest message text accepted (the body limit is 1 MiB; this leaves room for JSON escaping).
pub const MAX_TEXT: usize = 512 * 1024;

/// The longest agent name; names become folder names and tmux session names.
pub const MAX_NAME_LEN: usize = 32;

/// Checks an agent name: 1 to 32 of `a-z A-Z 0-9 _ -`, starting with a letter or digit, and not `user`
/// (the address of the human). Names become folder names, so nothing else may pass.
pub fn check_agent_name(name: &str) -> Result<(), BadName> {
    let mut bytes = name.bytes();
    let first_ok = bytes.next().is_some_and(|b| b.is_ascii_alphanumeric());
    let rest_ok = bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !first_ok || !rest_ok || name.len() > MAX_NAME_LEN {
        return Err(BadName::NotIdentifier(name.chars().take(40).collect()));
    }
    if name.eq_ignore_ascii_case("user") {
        return Err(BadName::Reserved);
    }
    Ok(())
}

/// Why an agent name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadName {
    /// Not a plain identifier.
    #[error("agent name `{0}` is not a plain identifier (1-32 of a-z, A-Z, 0-9, _ and -, starting with a letter or digit)")]
    NotIdentifier(String),
    /// `user` is the human's address.
    #[error("`user` is reserved for the human")]
    Reserved,
}

#[cfg(test)]
mod tests;
