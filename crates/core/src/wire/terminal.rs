//! The terminal panel's wire: what a viewer of an agent's terminal sends and is told.
//!
//! The terminal's bytes themselves travel as they are (binary WebSocket frames, raw IPC channel
//! messages); these are the few things around them, typed so the hub, the window and the browser agree.

use serde::{Deserialize, Serialize};

use super::Code;

/// The WebSocket protocol a terminal viewer speaks (the one the hub names back to it).
pub const TERMINAL_PROTOCOL: &str = "clawmux.terminal.v1";
/// The prefix of the second protocol a viewer offers, which carries the token: a browser's WebSocket can
/// send no other header, and a URL is what logs keep.
pub const TOKEN_PROTOCOL: &str = "clawmux.token.";

/// A terminal's size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermSize {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

impl TermSize {
    /// The largest size accepted, in either direction: far beyond any screen, small enough that tmux is
    /// never asked for a window it would refuse or spend memory on.
    pub const MAX: u16 = 1000;

    /// `cols` x `rows`, if both are between 1 (2 columns) and [`TermSize::MAX`].
    pub fn new(cols: u16, rows: u16) -> Option<TermSize> {
        ((2..=Self::MAX).contains(&cols) && (1..=Self::MAX).contains(&rows))
            .then_some(TermSize { cols, rows })
    }
}

/// What a viewer sends to the hub (text frames; a binary frame is input as it is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[strum_discriminants(
    name(TerminalInputType),
    doc = "The `type` of a [`TerminalInput`], as a viewer sends it.",
    derive(Serialize, strum::EnumIter),
    serde(rename_all = "snake_case")
)]
pub enum TerminalInput {
    /// Keys typed or text pasted, as the terminal encodes them.
    Input {
        /// The bytes for the pane, as text.
        data: String,
    },
    /// The viewer's panel has a new size.
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
}

/// What the hub tells a viewer besides the terminal's bytes (text frames).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum_discriminants(
    name(TerminalNoticeType),
    doc = "The `type` of a [`TerminalNotice`], as a viewer matches it.",
    derive(Serialize, strum::EnumIter),
    serde(rename_all = "snake_case")
)]
pub enum TerminalNotice {
    /// The terminal is shown: the bytes follow.
    Attached {
        /// The agent.
        session_id: String,
    },
    /// There is no terminal to show, and why (an observed session, an agent not running, ...).
    Unavailable {
        /// Why, for programs.
        code: Code,
        /// Why, for people.
        message: String,
    },
    /// One frame from the viewer was refused (it changed nothing); the terminal goes on.
    Refused {
        /// Why, for programs.
        code: Code,
        /// Why, for people.
        message: String,
    },
    /// The terminal closed: the agent ended.
    Ended {
        /// What happened, for people.
        message: String,
        /// The screen its process left (escape sequences for colours, `\n` between rows), for the
        /// viewer to draw again: tmux clears a viewer's screen as the session closes. None when the
        /// session was closed some other way.
        #[serde(skip_serializing_if = "Option::is_none")]
        screen: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bounded() {
        assert!(TermSize::new(80, 24).is_some());
        assert!(TermSize::new(1, 24).is_none());
        assert!(TermSize::new(80, 0).is_none());
        assert!(TermSize::new(1001, 24).is_none());
    }

    #[test]
    fn input_parses_and_refuses_strangers() {
        let input: TerminalInput =
            serde_json::from_str(r#"{"type":"input","data":"ls\r"}"#).unwrap();
        assert_eq!(
            input,
            TerminalInput::Input {
                data: "ls\r".into()
            }
        );
        let resize: TerminalInput =
            serde_json::from_str(r#"{"type":"resize","cols":100,"rows":30}"#).unwrap();
        assert_eq!(
            resize,
            TerminalInput::Resize {
                cols: 100,
                rows: 30
            }
        );
        assert!(serde_json::from_str::<TerminalInput>(r#"{"type":"exec","data":"x"}"#).is_err());
        assert!(
            serde_json::from_str::<TerminalInput>(r#"{"type":"resize","cols":-1,"rows":3}"#)
                .is_err()
        );
    }

    #[test]
    fn notices_name_their_code() {
        let n = TerminalNotice::Unavailable {
            code: Code::NoTerminal,
            message: "m".into(),
        };
        let text = serde_json::to_string(&n).unwrap();
        assert_eq!(
            text,
            r#"{"type":"unavailable","code":"no_terminal","message":"m"}"#
        );
        assert_eq!(serde_json::from_str::<TerminalNotice>(&text).unwrap(), n);
    }
}
