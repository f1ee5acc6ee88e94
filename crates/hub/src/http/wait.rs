//! `/ws/wait/{id}`: the socket of `clawmux wait`, the one signal of IDLE (connected) and PROCESSING (gone).
//!
//! The hub pings every [`PING_EVERY`]; a waiter that answers nothing for [`DEAD_AFTER`] is dropped, so a
//! killed process or a half-closed connection turns the agent PROCESSING within 2 s. Messages are offered
//! in one frame `{"type":"messages","messages":[...]}`; they count as handed over once the client answers
//! `{"type":"ack"}` or closes the socket cleanly (what an older client does after printing). A connection
//! that dies first leaves them in the inbox.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message as Ws, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use clawmux_core::wire::{Code, WaitClose, WaitFrame, WaitMessage};
use futures_util::{SinkExt, StreamExt};
use tokio::time::{timeout, Instant};

use super::MAX_BODY;
use crate::hub::Hub;
use crate::inbox::{Offer, Waiter};

/// How often the hub pings a waiter.
pub const PING_EVERY: Duration = Duration::from_millis(500);
/// Silence after which a waiter counts as dead.
pub const DEAD_AFTER: Duration = Duration::from_millis(1500);
/// How long a waiter has to confirm it printed its messages.
const ACK_WITHIN: Duration = Duration::from_secs(2);

pub(super) async fn upgrade(
    ws: WebSocketUpgrade,
    State(hub): State<Hub>,
    Path(agent): Path<String>,
) -> Response {
    ws.max_message_size(MAX_BODY)
        .on_upgrade(move |socket| run(hub, agent, socket))
}

async fn run(hub: Hub, agent: String, mut socket: WebSocket) {
    let waiter = match hub.inbox().wait_open(&agent).await {
        Ok(w) => w,
        Err(e) => {
            let close = if e.code == Code::AgentDead {
                WaitClose::AgentDead
            } else {
                WaitClose::UnknownAgent
            };
            let frame = CloseFrame {
                code: close.code(),
                reason: e.message.into(),
            };
            let _ = socket.send(Ws::Close(Some(frame))).await;
            return;
        }
    };
    if let Err(e) = serve(&waiter, socket).await {
        tracing::debug!(agent = waiter.agent(), reason = e, "waiter gone");
    }
    if let Err(e) = waiter.close().await {
        tracing::warn!(agent, error = %e, "could not record the end of a wait");
    }
}

/// Serves one waiter until it has its messages or goes away. The error says why it ended, for the log.
async fn serve(waiter: &Waiter, socket: WebSocket) -> Result<(), &'static str> {
    let (mut tx, mut rx) = socket.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    let mut last_heard = Instant::now();
    let offer = waiter.offer();
    tokio::pin!(offer);
    let ended = waiter.agent_ended();
    tokio::pin!(ended);
    let returned = waiter.call_returned();
    tokio::pin!(returned);
    let noticed = waiter.notice();
    tokio::pin!(noticed);
    loop {
        tokio::select! {
            // First: once its call has returned, no message may be offered to it.
            biased;
            () = &mut returned => {
                let frame = CloseFrame {
                    code: WaitClose::CallReturned.code(),
                    reason: "the Bash call that ran this wait has returned; run `clawmux wait` again in the foreground".into(),
                };
                close_with(&mut tx, &mut rx, frame).await;
                return Err("its Bash call returned");
            }
            () = &mut ended => {
                let frame = CloseFrame {
                    code: WaitClose::AgentDead.code(),
                    reason: "the agent's process has ended".into(),
                };
                close_with(&mut tx, &mut rx, frame).await;
                return Err("the agent's process ended");
            }
            offered = &mut offer => {
                let offer = offered.map_err(|_| "the inbox could not be read")?;
                return deliver(waiter, offer, &mut tx, &mut rx).await;
            }
            // After the messages: a wait that prints them ends too, and Claude Code hands its own over.
            line = &mut noticed => {
                let frame = serde_json::to_string(&WaitFrame::Notice { line }).map_err(|_| "unwritable")?;
                tx.send(Ws::Text(frame.into())).await.map_err(|_| "send failed")?;
                let done = CloseFrame { code: axum::extract::ws::close_code::NORMAL, reason: "".into() };
                close_with(&mut tx, &mut rx, done).await;
                return Ok(());
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > DEAD_AFTER {
                    return Err("no answer to pings");
                }
                tx.send(Ws::Ping(Default::default())).await.map_err(|_| "send failed")?;
            }
            frame = rx.next() => match frame {
                Some(Ok(Ws::Close(_))) | None | Some(Err(_)) => return Err("closed by the client"),
                Some(Ok(Ws::Pong(_) | Ws::Ping(_) | Ws::Text(_) | Ws::Binary(_))) => last_heard = Instant::now(),
            },
        }
    }
}

/// How long a closing waiter has to answer the close before its socket is dropped.
const CLOSE_WITHIN: Duration = Duration::from_secs(1);

/// Closes a waiter's connection saying why, and waits (briefly) for its side of the close before the
/// socket goes: a socket dropped with the waiter's last frame unread (a pong) is reset, and the waiter,
/// which then reads a reset instead of the reason, would take the hub for gone and connect again.
async fn close_with(
    tx: &mut futures_util::stream::SplitSink<WebSocket, Ws>,
    rx: &mut futures_util::stream::SplitStream<WebSocket>,
    frame: CloseFrame,
) {
    if tx.send(Ws::Close(Some(frame))).await.is_err() {
        return;
    }
    let _ = timeout(CLOSE_WITHIN, async {
        while let Some(Ok(frame)) = rx.next().await {
            if matches!(frame, Ws::Close(_)) {
                break;
            }
        }
    })
    .await;
}

async fn deliver(
    waiter: &Waiter,
    offer: Offer,
    tx: &mut futures_util::stream::SplitSink<WebSocket, Ws>,
    rx: &mut futures_util::stream::SplitStream<WebSocket>,
) -> Result<(), &'static str> {
    let frame = WaitFrame::Messages {
        messages: offer.messages.iter().map(WaitMessage::from).collect(),
    };
    let Ok(frame) = serde_json::to_string(&frame) else {
        waiter.decline(offer);
        return Err("the messages could not be encoded");
    };
    if timeout(ACK_WITHIN, tx.send(Ws::Text(frame.into())))
        .await
        .map_or(true, |r| r.is_err())
    {
        waiter.decline(offer);
        return Err("could not send the messages");
    }
    let acked = timeout(ACK_WITHIN, async {
        while let Some(frame) = rx.next().await {
            match frame {
                Ok(Ws::Text(t)) if serde_json::from_str(&t).ok() == Some(WaitFrame::Ack) => {
                    return true
                }
                Ok(Ws::Close(_)) => return true,
                Ok(Ws::Text(_) | Ws::Binary(_) | Ws::Ping(_) | Ws::Pong(_)) => {}
                Err(_) => return false,
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    if !acked {
        waiter.decline(offer);
        return Err("the messages were not confirmed");
    }
    waiter
        .confirm(offer)
        .await
        .map_err(|_| "the hand-over could not be recorded")?;
    let _ = tx.send(Ws::Close(None)).await;
    Ok(())
}
