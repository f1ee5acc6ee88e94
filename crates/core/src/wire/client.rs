//! What a browser sends on the hub's feed (`/ws`), typed once here so that the hub and the fuzzing of
//! this hostile input (`fuzz/fuzz_targets/browser_message.rs`) read it the same way, without the hub.

use serde::Deserialize;

/// What a browser may send on its WebSocket.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// A message to an agent.
    Text {
        /// The agent.
        session_id: String,
        /// The message.
        text: String,
        /// The browser's id for it, so a resend is stored once.
        client_id: Option<String>,
        /// Spoken rather than typed.
        #[serde(default)]
        voice: bool,
    },
    /// Keeps the connection alive.
    Ping,
}

/// Parses one WebSocket text frame from a browser. (The fuzz target's entry point.)
pub fn parse_client_message(text: &str) -> Result<ClientMessage, serde_json::Error> {
    serde_json::from_str(text)
}
