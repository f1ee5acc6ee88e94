//! `/ws/terminal/{id}?cols=C&rows=R`: a browser's view of an agent's terminal ([`crate::terminal`]).
//!
//! The token comes in the `Sec-WebSocket-Protocol` header, as a second protocol `clawmux.token.<token>`
//! beside [`PROTOCOL`], which alone is answered: a browser's WebSocket can send no other header, and a URL
//! is what logs and histories keep. The guard checks it with the Host and the Origin before the upgrade,
//! so a page of another origin or a request without the token gets a refusal, not a terminal.
//!
//! After the upgrade the hub says `attached` (then sends the terminal's bytes as binary frames) or
//! `unavailable` with why (an observed session, an agent not running) and closes. The viewer sends keys
//! as binary frames or `{"type":"input","data":..}`, and `{"type":"resize","cols":..,"rows":..}`; a frame
//! that is neither gets a `refused` notice and changes nothing. When the terminal closes (the agent
//! ended) the viewer is told `ended` and the connection closes; the screen it drew last stays its own.

use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::{Message as Ws, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use clawmux_core::wire::{Code, TermSize, TerminalInput, TerminalNotice};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;

use super::MAX_BODY;
use crate::error::HubError;
use crate::hub::Hub;
use crate::terminal::{self, ViewerControl};

pub use clawmux_core::wire::{TERMINAL_PROTOCOL as PROTOCOL, TOKEN_PROTOCOL};
/// WebSocket pings keep an idle panel's connection from counting as idle ([`super::peers`]).
const PING_EVERY: Duration = Duration::from_secs(15);

#[derive(Deserialize)]
pub(super) struct Open {
    cols: u16,
    rows: u16,
}

pub(super) async fn upgrade(
    ws: WebSocketUpgrade,
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    query: Result<Query<Open>, QueryRejection>,
) -> Response {
    let Ok(Query(open)) = query else {
        return HubError::new(
            Code::BadQuery,
            "a terminal is opened with ?cols=C&rows=R (numbers)",
        )
        .into_response();
    };
    let size = match terminal::size(open.cols, open.rows) {
        Ok(size) => size,
        Err(e) => return e.into_response(),
    };
    let idle = hub.options().idle_timeout;
    ws.protocols([PROTOCOL])
        .max_message_size(MAX_BODY)
        .on_upgrade(move |socket| async move {
            let address = clawmux_core::remote::AgentAddress::parse(&agent);
            let ended = match address.machine {
                Some(machine) => relay(hub, machine, address.name, size, socket).await,
                None => run(hub, agent, size, socket, PING_EVERY.min(idle / 4)).await,
            };
            if let Err(e) = ended {
                tracing::debug!(reason = e, "terminal viewer left");
            }
        })
}

/// A viewer of another machine's agent (`name@machine`): that hub's viewer, passed on frame for frame
/// (`machines::terminal`).
async fn relay(
    hub: Hub,
    machine: &str,
    name: &str,
    size: TermSize,
    socket: WebSocket,
) -> Result<(), &'static str> {
    use tokio_tungstenite::tungstenite::Message as Remote;
    let (mut tx, mut rx) = socket.split();
    let remote = match hub.machines().terminal(machine, name, size).await {
        Ok(remote) => remote,
        Err(e) => return unavailable(&mut tx, e).await,
    };
    let (mut rtx, mut rrx) = remote.ws.split();
    let mut ping = tokio::time::interval(PING_EVERY.min(hub.options().idle_timeout / 4));
    ping.reset();
    loop {
        tokio::select! {
            _ = ping.tick() => tx.send(Ws::Ping(Default::default())).await.map_err(|_| "send failed")?,
            from = rrx.next() => match from {
                Some(Ok(Remote::Binary(bytes))) => tx.send(Ws::Binary(bytes)).await.map_err(|_| "send failed")?,
                Some(Ok(Remote::Text(text))) => tx.send(Ws::Text(text.as_str().into())).await.map_err(|_| "send failed")?,
                Some(Ok(Remote::Ping(_) | Remote::Pong(_) | Remote::Frame(_))) => {}
                None | Some(Err(_) | Ok(Remote::Close(_))) => {
                    let _ = tx.send(Ws::Close(None)).await;
                    return Ok(());
                }
            },
            to = rx.next() => match to {
                Some(Ok(Ws::Binary(bytes))) => rtx.send(Remote::Binary(bytes)).await.map_err(|_| "send failed")?,
                Some(Ok(Ws::Text(text))) => rtx.send(Remote::Text(text.as_str().into())).await.map_err(|_| "send failed")?,
                Some(Ok(Ws::Ping(_) | Ws::Pong(_))) => {}
                None | Some(Err(_) | Ok(Ws::Close(_))) => {
                    let _ = rtx.send(Remote::Close(None)).await;
                    return Ok(());
                }
            },
        }
    }
}

type Tx = SplitSink<WebSocket, Ws>;

async fn notice(tx: &mut Tx, notice: &TerminalNotice) -> Result<(), &'static str> {
    let text = serde_json::to_string(notice).map_err(|_| "cannot encode")?;
    tx.send(Ws::Text(text.into()))
        .await
        .map_err(|_| "send failed")
}

/// Tells a viewer why there is no terminal, and closes.
async fn unavailable(tx: &mut Tx, e: HubError) -> Result<(), &'static str> {
    let unavailable = TerminalNotice::Unavailable {
        code: e.code,
        message: e.message,
    };
    notice(tx, &unavailable).await?;
    let _ = tx.send(Ws::Close(None)).await;
    Ok(())
}

async fn run(
    hub: Hub,
    agent: String,
    size: TermSize,
    socket: WebSocket,
    ping_every: Duration,
) -> Result<(), &'static str> {
    let (mut tx, mut rx) = socket.split();
    let mut viewer = match hub.open_terminal(&agent, size).await {
        Ok(viewer) => viewer,
        Err(e) => return unavailable(&mut tx, e).await,
    };
    let control = viewer.control();
    notice(
        &mut tx,
        &TerminalNotice::Attached {
            session_id: agent.clone(),
        },
    )
    .await?;
    let mut ping = tokio::time::interval(ping_every);
    ping.reset();
    loop {
        tokio::select! {
            out = viewer.next() => match out {
                Some(bytes) => tx.send(Ws::Binary(bytes.into())).await.map_err(|_| "send failed")?,
                None => {
                    notice(&mut tx, &hub.terminal_closed(&agent).await).await?;
                    let _ = tx.send(Ws::Close(None)).await;
                    return Ok(());
                }
            },
            msg = rx.next() => match msg {
                None | Some(Err(_)) | Some(Ok(Ws::Close(_))) => return Ok(()),
                Some(Ok(Ws::Binary(bytes))) => control.input(bytes.to_vec()),
                Some(Ok(Ws::Text(text))) => {
                    if let Err(e) = take(&control, text.as_str()) {
                        let refused = TerminalNotice::Refused { code: e.code, message: e.message };
                        notice(&mut tx, &refused).await?;
                    }
                }
                Some(Ok(Ws::Ping(_) | Ws::Pong(_))) => {}
            },
            _ = ping.tick() => tx.send(Ws::Ping(Default::default())).await.map_err(|_| "send failed")?,
        }
    }
}

/// Carries out one text frame from a viewer, or says why not (having changed nothing).
pub fn take(control: &ViewerControl, text: &str) -> Result<(), HubError> {
    let input: TerminalInput = serde_json::from_str(text).map_err(|e| {
        HubError::new(
            Code::MalformedJson,
            format!("a terminal frame is {{\"type\":\"input\",\"data\":..}} or {{\"type\":\"resize\",\"cols\":..,\"rows\":..}}: {e}"),
        )
    })?;
    match input {
        TerminalInput::Input { data } => control.input(data.into_bytes()),
        TerminalInput::Resize { cols, rows } => {
            control.resize(terminal::size(cols, rows)?).map_err(|e| {
                HubError::new(Code::Internal, format!("cannot resize the terminal: {e}"))
            })?
        }
    }
    Ok(())
}
