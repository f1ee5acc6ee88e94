//! A terminal of another machine's agent: that hub's own viewer (`/ws/terminal/{name}`), reached over a
//! dial of its own and passed on frame for frame. The frames are the same protocol on both sides (the
//! terminal's bytes as binary, notices and input as JSON), so nothing here reads them: the viewer here
//! talks to the agent's hub as it would to its own.

use clawmux_core::wire::{Code, TermSize, TERMINAL_PROTOCOL, TOKEN_PROTOCOL};
use tokio::process::Child;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::WebSocketStream;

use super::link::{websocket, DialStream};
use super::Machines;
use crate::error::HubError;

/// An open viewer of another machine's agent's terminal.
pub struct RemoteTerminal {
    /// The viewer's WebSocket, to that hub.
    pub ws: WebSocketStream<DialStream>,
    /// The dial's ssh: the viewer ends with it.
    _ssh: Child,
}

/// A frame of a terminal viewer: the terminal's bytes, or JSON (a notice from the hub; keys or a size to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Bytes.
    Bytes(Vec<u8>),
    /// JSON text.
    Json(String),
}

impl RemoteTerminal {
    /// Passes frames until either side ends or `stop` is told: that hub's to `out` (which answers false
    /// once its viewer is gone), `input`'s to that hub.
    pub async fn pump(
        self,
        mut out: impl FnMut(Frame) -> bool,
        mut input: tokio::sync::mpsc::UnboundedReceiver<Frame>,
        mut stop: tokio::sync::oneshot::Receiver<()>,
    ) {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message;
        let (mut tx, mut rx) = self.ws.split();
        loop {
            tokio::select! {
                from = rx.next() => {
                    let frame = match from {
                        Some(Ok(Message::Binary(bytes))) => Frame::Bytes(bytes.to_vec()),
                        Some(Ok(Message::Text(text))) => Frame::Json(text.as_str().to_owned()),
                        Some(Ok(_)) => continue,
                        None | Some(Err(_)) => return,
                    };
                    if !out(frame) {
                        let _ = tx.send(Message::Close(None)).await;
                        return;
                    }
                }
                to = input.recv() => {
                    let message = match to {
                        Some(Frame::Bytes(bytes)) => Message::Binary(bytes.into()),
                        Some(Frame::Json(text)) => Message::Text(text.into()),
                        None => return,
                    };
                    if tx.send(message).await.is_err() {
                        return;
                    }
                }
                _ = &mut stop => {
                    let _ = tx.send(Message::Close(None)).await;
                    return;
                }
            }
        }
    }
}

impl Machines {
    /// Opens a viewer of `name`'s terminal on `machine` at `size`.
    pub async fn terminal(
        &self,
        machine: &str,
        name: &str,
        size: TermSize,
    ) -> Result<RemoteTerminal, HubError> {
        let remote = self.remote(machine)?;
        clawmux_core::wire::check_agent_name(name)
            .map_err(|e| HubError::new(Code::BadAgentName, e.to_string()))?;
        let (ws, ssh) = websocket(
            &remote.name,
            &remote.target,
            self.inner.ssh_config.as_deref(),
            |token| {
                let mut request = format!(
                    "ws://localhost/ws/terminal/{name}?cols={}&rows={}",
                    size.cols, size.rows
                )
                .into_client_request()
                .map_err(|e| e.to_string())?;
                let protocols =
                    HeaderValue::from_str(&format!("{TERMINAL_PROTOCOL}, {TOKEN_PROTOCOL}{token}"))
                        .map_err(|e| e.to_string())?;
                request
                    .headers_mut()
                    .insert("Sec-WebSocket-Protocol", protocols);
                Ok(request)
            },
        )
        .await
        .map_err(|why| HubError::new(Code::MachineUnreachable, why))?;
        Ok(RemoteTerminal { ws, _ssh: ssh })
    }
}
