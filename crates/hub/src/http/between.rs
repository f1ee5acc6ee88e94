//! The agent protocol's routes of what passes between agents, beside `/api/send`: the answer a
//! `clawmux ask` waits for (`POST /api/answer`) and a thread an agent closes (`POST /api/close`), each as
//! the agent its `ClawMux-Session` header names.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use clawmux_api::agent::{Answer, AwaitAnswer, Close, MAX_ANSWER_WAIT_MS};
use clawmux_api::commands::Sent;
use clawmux_core::wire::{agent_line, Code, MsgId};

use super::api::{body_json, required_session};
use crate::error::HubError;
use crate::hub::Hub;

/// `POST /api/answer`: held until the first answer to the asker's message comes (handed over to this
/// request, so no wait or hook hands it again), or the time asked (at most a minute) passes.
pub(super) async fn answer(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Answer>, HubError> {
    let asker = required_session(&headers)?;
    let req: AwaitAnswer = body_json(body)?;
    let re = MsgId::parse(&req.re)
        .map_err(|e| HubError::new(Code::BadMessageId, format!("{}: {e}", req.re)))?;
    let within = Duration::from_millis(req.within_ms.min(MAX_ANSWER_WAIT_MS));
    let answer = hub.between().await_answer(&asker, &re, within).await?;
    if answer.is_some() {
        // Its delivery moved to handed over: the window reads the thread again.
        hub.inbox().changed(&asker).await;
    }
    Ok(Json(Answer {
        id: answer.as_ref().map(|m| m.id.to_string()),
        line: answer.as_ref().map(agent_line),
    }))
}

/// `POST /api/close`: the agent closes its thread with another, after its last word.
pub(super) async fn close(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Sent>, HubError> {
    let from = required_session(&headers)?;
    let req: Close = body_json(body)?;
    Ok(Json(
        hub.between()
            .close_with(&from, &req.with, req.text.as_deref())
            .await?,
    ))
}
