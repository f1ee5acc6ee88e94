//! The frames of a `clawmux wait` socket (`/ws/wait/{agent}`), used by the hub that sends them and the CLI
//! that reads them.
//!
//! The hub offers the inbox in one [`WaitFrame::Messages`]; the wait prints each message's `line`, flushes,
//! and answers [`WaitFrame::Ack`]: only then do the messages count as handed over. A wait the hub refuses or
//! ends is closed with a [`WaitClose`] code, after which it must not reconnect.

use serde::{Deserialize, Serialize};

use super::{agent_line, Message, MessageOut};

/// A text frame of the wait socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WaitFrame {
    /// The hub offers these messages (hub to wait).
    Messages {
        /// The messages, oldest first.
        messages: Vec<WaitMessage>,
    },
    /// The wait printed them (wait to hub).
    Ack,
    /// Claude Code holds something for the model (a background task ended, a monitor spoke, a wake-up
    /// came) that it hands over only when a tool call ends: the wait prints `line` and ends, so that the
    /// model takes it and waits again (hub to wait).
    Notice {
        /// What the wait prints.
        line: String,
    },
}

/// A message as a wait receives it: the UI's fields and the line the agent reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitMessage {
    /// The message.
    #[serde(flatten)]
    pub message: MessageOut,
    /// What the wait prints: the `[MSG ...]` line.
    pub line: String,
}

impl From<&Message> for WaitMessage {
    fn from(m: &Message) -> WaitMessage {
        WaitMessage {
            message: MessageOut::from(m),
            line: agent_line(m),
        }
    }
}

/// The Stop hook's answer: let Claude stop, or keep it going with a reason (`clawmux hook stop` prints it
/// on stderr and exits 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopVerdict {
    /// True: exit 2 and show `reason` to Claude.
    pub block: bool,
    /// What Claude is told.
    pub reason: String,
}

/// Why the hub closed a wait for good (WebSocket close codes in the private range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitClose {
    /// No agent by that name.
    UnknownAgent,
    /// The agent was terminated, or its process ended.
    AgentDead,
    /// The Bash call that ran this wait has returned (it was moved to the background): no message may be
    /// offered to it, and it must end.
    CallReturned,
}

impl WaitClose {
    /// Every close code.
    pub const ALL: [WaitClose; 3] = [
        WaitClose::UnknownAgent,
        WaitClose::AgentDead,
        WaitClose::CallReturned,
    ];

    /// The WebSocket close code.
    pub fn code(self) -> u16 {
        match self {
            WaitClose::UnknownAgent => 4004,
            WaitClose::AgentDead => 4010,
            WaitClose::CallReturned => 4011,
        }
    }

    /// The close reason a code names, if it is one of ours.
    pub fn from_code(code: u16) -> Option<WaitClose> {
        WaitClose::ALL.into_iter().find(|c| c.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_keep_their_wire_shape() {
        assert_eq!(
            serde_json::to_string(&WaitFrame::Ack).unwrap(),
            r#"{"type":"ack"}"#
        );
        let frame: WaitFrame = serde_json::from_str(
            r#"{"type":"messages","messages":[{"session_id":"sky","id":"msg-1","seq":3,"kind":"user",
                "sender":"user","recipient":"sky","text":"hi","parent_id":null,"voice":false,"ts":5,
                "line":"[MSG id:msg-1 from:user] hi"}]}"#,
        )
        .unwrap();
        let WaitFrame::Messages { messages } = frame else {
            panic!("not a messages frame");
        };
        assert_eq!(messages[0].line, "[MSG id:msg-1 from:user] hi");
        assert_eq!(messages[0].message.seq, 3);
    }

    #[test]
    fn close_codes_read_back() {
        for c in WaitClose::ALL {
            assert_eq!(WaitClose::from_code(c.code()), Some(c));
        }
        assert_eq!(WaitClose::from_code(1000), None);
    }
}
