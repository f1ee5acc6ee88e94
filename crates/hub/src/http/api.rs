//! The REST endpoints: each parses its input, calls one hub command, and shapes the answer.

use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use clawmux_core::wire::MsgId;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::SESSION_HEADER;
use crate::error::ApiError;
use crate::hub::Hub;
use crate::ui_event::MessageOut;

/// The most messages one history page returns.
const MAX_PAGE: u32 = 1000;

fn body_json<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body_bytes(body)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request("malformed_json", format!("bad request body: {e}")))
}

fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|e| {
        let status = e.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "body_too_large"
        } else {
            "bad_body"
        };
        ApiError::new(status, code, e.body_text())
    })
}

fn session_header(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    headers
        .get(SESSION_HEADER)
        .map(|v| {
            v.to_str().map(str::to_owned).map_err(|_| {
                ApiError::bad_request("bad_session_header", "ClawMux-Session is not valid text")
            })
        })
        .transpose()
}

fn required_session(headers: &HeaderMap) -> Result<String, ApiError> {
    session_header(headers)?.ok_or_else(|| {
        ApiError::bad_request(
            "missing_session",
            "the ClawMux-Session header names the agent speaking",
        )
    })
}

pub(super) async fn health() -> Json<Value> {
    Json(json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }))
}

pub(super) async fn sessions(State(hub): State<Hub>) -> Result<Response, ApiError> {
    Ok(Json(hub.sessions().await?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AddAgent {
    name: String,
    work_dir: Option<PathBuf>,
}

pub(super) async fn add_agent(
    State(hub): State<Hub>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: AddAgent = body_json(body)?;
    let info = hub.add_agent(&req.name, req.work_dir.as_deref()).await?;
    Ok((StatusCode::CREATED, Json(info)).into_response())
}

#[derive(Deserialize)]
pub(super) struct UserMessage {
    text: String,
    #[serde(default)]
    voice: bool,
    client_id: Option<String>,
}

pub(super) async fn user_message(
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: UserMessage = body_json(body)?;
    let m = hub
        .user_message(&agent, &req.text, req.voice, req.client_id.as_deref())
        .await?;
    Ok(Json(json!({ "id": m.id, "seq": m.seq })).into_response())
}

#[derive(Deserialize)]
pub(super) struct MarkRead {
    up_to: String,
}

pub(super) async fn mark_read(
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: MarkRead = body_json(body)?;
    let up_to = MsgId::parse(&req.up_to)
        .map_err(|e| ApiError::bad_request("bad_message_id", e.to_string()))?;
    hub.mark_read(&agent, &up_to).await?;
    Ok(Json(json!({})).into_response())
}

#[derive(Deserialize)]
pub(super) struct Send {
    to: String,
    text: Option<String>,
    re: Option<String>,
    client_id: Option<String>,
}

pub(super) async fn send(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let from = required_session(&headers)?;
    let req: Send = body_json(body)?;
    let m = hub
        .send(
            &from,
            &req.to,
            req.text.as_deref(),
            req.re.as_deref(),
            req.client_id.as_deref(),
        )
        .await?;
    Ok(Json(json!({ "id": m.id, "seq": m.seq })).into_response())
}

pub(super) async fn tool_status(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let agent = session_header(&headers)?;
    let body = body_bytes(body)?;
    Ok(Json(hub.tool_hook(agent.as_deref(), &body).await?).into_response())
}

pub(super) async fn stop(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let agent = required_session(&headers)?;
    let body = body_bytes(body)?;
    Ok(Json(hub.stop_hook(&agent, &body).await?).into_response())
}

#[derive(Deserialize)]
pub(super) struct HistoryQuery {
    after: Option<String>,
    before: Option<String>,
    limit: Option<u32>,
}

pub(super) async fn history(
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    Query(q): Query<HistoryQuery>,
) -> Result<Response, ApiError> {
    let parse =
        |s: &str| MsgId::parse(s).map_err(|e| ApiError::bad_request("bad_cursor", e.to_string()));
    let limit = q.limit.unwrap_or(100).clamp(1, MAX_PAGE);
    let store = hub.store();
    store.agent(&agent).await?;
    let page = match (q.after.as_deref(), q.before.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad_request(
                "bad_query",
                "give `after` or `before`, not both",
            ))
        }
        (Some(after), None) => {
            store
                .after(Some(&agent), Some(&parse(after)?), limit)
                .await?
        }
        (None, Some(before)) => store.before(&agent, &parse(before)?, limit).await?,
        (None, None) => store.latest(&agent, limit).await?,
    };
    let messages: Vec<MessageOut> = page.iter().map(MessageOut::from).collect();
    Ok(Json(json!({ "session_id": agent, "messages": messages })).into_response())
}
