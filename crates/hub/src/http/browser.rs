//! `/ws`: the browser's (and desktop window's) live feed.
//!
//! On connect the client gets `session_list`, then every message after its own cursor (`?cursor=msg-..`;
//! none means "I loaded the history myself, start from now"), then live events. It subscribes to the live
//! feed before reading the gap from the store and skips live messages it already replayed, so the gap
//! arrives with no hole and no duplicate. A client that falls too far behind is replayed from the store.
//! Clients may send `{"type":"text","session_id","text","client_id"}`, the same command as
//! `POST /api/sessions/{id}/messages`.

use std::time::Duration;

use axum::extract::ws::{Message as Ws, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::response::Response;
use clawmux_core::wire::{parse_client_message, ClientMessage, MsgId};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

use clawmux_core::wire::Code;

use super::MAX_BODY;
use crate::commands::UserMessage;
use crate::hub::Hub;
use crate::phone::access::Caller;
use crate::phone::PhoneId;
use crate::ui_event::UiEvent;

/// Replay page size.
const PAGE: u32 = 500;
/// A keep-alive `ping` event, which also lets the client notice a dead connection; with it goes a
/// WebSocket ping, which every browser answers by itself: the answer is what keeps the connection from
/// counting as idle (`peers::Idle`), so the pings come at least four times per idle time.
const PING_EVERY: Duration = Duration::from_secs(15);

#[derive(Deserialize)]
pub(super) struct Connect {
    cursor: Option<String>,
}

pub(super) async fn upgrade(
    ws: WebSocketUpgrade,
    State(hub): State<Hub>,
    Query(q): Query<Connect>,
    caller: Option<axum::Extension<Caller>>,
) -> Response {
    let phone = match caller {
        Some(axum::Extension(Caller::Phone(phone))) => Some(phone),
        Some(axum::Extension(Caller::Desktop)) | None => None,
    };
    ws.max_message_size(MAX_BODY)
        .on_upgrade(move |socket| async move {
            if let Err(e) = run(hub, q.cursor, socket, phone).await {
                tracing::debug!(reason = e, "browser connection ended");
            }
        })
}

/// Resolves when `phone` (a phone's feed) may no longer come in: revoked, or phones turned off. Never,
/// for the desktop's.
async fn shut_out(hub: &Hub, phone: Option<&PhoneId>, changes: &mut Option<watch::Receiver<u64>>) {
    let (Some(phone), Some(changes)) = (phone, changes.as_mut()) else {
        return std::future::pending().await;
    };
    loop {
        if changes.changed().await.is_err() || !hub.phone().still_admitted(phone).await {
            return;
        }
    }
}

type Tx = SplitSink<WebSocket, Ws>;

async fn send(tx: &mut Tx, event: &UiEvent) -> Result<(), &'static str> {
    let text = serde_json::to_string(event).map_err(|_| "unserialisable event")?;
    tx.send(Ws::Text(text.into()))
        .await
        .map_err(|_| "send failed")
}

/// Sends every message after `from`, returning the last seq sent.
async fn replay(hub: &Hub, tx: &mut Tx, mut from: i64) -> Result<i64, &'static str> {
    loop {
        let page = hub
            .store()
            .after_seq(None, from, PAGE)
            .await
            .map_err(|_| "store")?;
        for m in &page {
            send(tx, &UiEvent::message(m)).await?;
            from = m.seq;
        }
        if page.len() < PAGE as usize {
            return Ok(from);
        }
    }
}

/// The feed's start: the agents, then every message after the client's `cursor` (none: from now on).
/// Returns the last seq sent.
async fn begin(hub: &Hub, tx: &mut Tx, cursor: Option<&str>) -> Result<i64, &'static str> {
    let sessions = hub.roster().sessions().await.map_err(|_| "store")?;
    send(tx, &UiEvent::SessionList { sessions }).await?;
    let head = hub.store().head().await.map_err(|_| "store")?;
    let last = match cursor.map(MsgId::parse) {
        None => head,
        Some(Ok(id)) => match hub.store().message(&id).await.map_err(|_| "store")? {
            Some(m) => replay(hub, tx, m.seq).await?,
            None => {
                let reason = format!("unknown cursor {id}: reload the history");
                send(tx, &UiEvent::Reset { reason }).await?;
                head
            }
        },
        Some(Err(e)) => {
            send(
                tx,
                &UiEvent::Reset {
                    reason: e.to_string(),
                },
            )
            .await?;
            head
        }
    };
    Ok(last)
}

async fn run(
    hub: Hub,
    cursor: Option<String>,
    socket: WebSocket,
    phone: Option<PhoneId>,
) -> Result<(), &'static str> {
    let mut changes = phone.as_ref().map(|_| hub.phone().changes());
    let (mut tx, mut rx) = socket.split();
    // Subscribe before reading anything, so nothing falls between the replay and the live feed.
    let mut live = hub.subscribe();
    let mut last = begin(&hub, &mut tx, cursor.as_deref()).await?;
    let mut ping = tokio::time::interval(PING_EVERY.min(hub.options().idle_timeout / 4));
    loop {
        tokio::select! {
            event = live.recv() => match event {
                Ok(event) => {
                    if let Some(seq) = event.seq() {
                        if seq <= last {
                            continue;
                        }
                        last = seq;
                    }
                    send(&mut tx, &event).await?;
                }
                Err(RecvError::Lagged(_)) => {
                    last = replay(&hub, &mut tx, last).await?;
                    let sessions = hub.roster().sessions().await.map_err(|_| "store")?;
                    send(&mut tx, &UiEvent::SessionList { sessions }).await?;
                }
                Err(RecvError::Closed) => return Ok(()),
            },
            _ = ping.tick() => {
                tx.send(Ws::Ping(Default::default())).await.map_err(|_| "send failed")?;
                send(&mut tx, &UiEvent::Ping).await?;
            }
            () = shut_out(&hub, phone.as_ref(), &mut changes) => {
                let _ = tx.send(Ws::Close(None)).await;
                return Err("the phone was shut out");
            }
            frame = rx.next() => match frame {
                Some(Ok(Ws::Text(text))) => handle(&hub, &mut tx, &text).await?,
                Some(Ok(Ws::Close(_))) | None | Some(Err(_)) => return Ok(()),
                Some(Ok(Ws::Binary(_) | Ws::Ping(_) | Ws::Pong(_))) => {}
            },
        }
    }
}

async fn handle(hub: &Hub, tx: &mut Tx, text: &str) -> Result<(), &'static str> {
    let error = |code: Code, message: String, client_id: Option<String>| UiEvent::Error {
        code,
        message,
        client_id,
    };
    match parse_client_message(text) {
        Ok(ClientMessage::Text {
            session_id,
            text,
            client_id,
            voice,
        }) => {
            let command = UserMessage {
                session_id,
                text,
                voice,
                attachments: Vec::new(),
                client_id: client_id.clone(),
            };
            if let Err(e) = hub.dispatch(command.into()).await {
                send(tx, &error(e.code, e.message, client_id)).await?;
            }
        }
        Ok(ClientMessage::Ping) => {}
        Err(e) => {
            send(
                tx,
                &error(
                    Code::MalformedJson,
                    format!("bad client message: {e}"),
                    None,
                ),
            )
            .await?
        }
    }
    Ok(())
}
