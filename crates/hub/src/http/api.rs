//! The hub's own endpoints beside the REST names of commands (`aliases.rs`): health, the command route, a
//! file's bytes, metrics, and the agent protocol (sends, hooks, observed sessions, usage, logs). Each parses
//! its input, calls one feature, and shapes the answer.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use clawmux_core::wire::Code;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::commands::Command;
use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::access::{self, Caller};
use clawmux_api::transport::SESSION_HEADER;

pub(super) fn body_json<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
) -> Result<T, HubError> {
    let bytes = body_bytes(body)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| HubError::new(Code::MalformedJson, format!("bad request body: {e}")))
}

pub(super) fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, HubError> {
    body.map_err(|e| {
        let code = if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Code::BodyTooLarge
        } else {
            Code::BadBody
        };
        HubError::new(code, e.body_text())
    })
}

fn session_header(headers: &HeaderMap) -> Result<Option<String>, HubError> {
    headers
        .get(SESSION_HEADER)
        .map(|v| {
            v.to_str().map(str::to_owned).map_err(|_| {
                HubError::new(Code::BadSessionHeader, "ClawMux-Session is not valid text")
            })
        })
        .transpose()
}

pub(super) fn required_session(headers: &HeaderMap) -> Result<String, HubError> {
    session_header(headers)?.ok_or_else(|| {
        HubError::new(
            Code::MissingSession,
            "the ClawMux-Session header names the agent speaking",
        )
    })
}

pub(super) async fn health() -> Json<Value> {
    Json(json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }))
}

/// `POST /api/command`: any command of the UI's surface, as the desktop window's IPC sends it, and as the
/// browser and phones send every command.
pub(super) async fn command(
    State(hub): State<Hub>,
    caller: Option<axum::Extension<Caller>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    run(&hub, caller, body_json(body)?).await.map(Json)
}

/// Runs `command` for `caller`: the one place a phone's token meets what a phone may run
/// ([`access::may_run`]), for the command route and the REST names of commands alike (`aliases.rs`).
pub(super) async fn run(
    hub: &Hub,
    caller: Option<axum::Extension<Caller>>,
    command: Command,
) -> Result<Value, HubError> {
    if let Some(axum::Extension(Caller::Phone(phone))) = caller {
        if !access::may_run(&command) {
            tracing::info!(phone = phone.0, "a phone asked for a desktop's command");
            return Err(HubError::new(
                Code::NotForPhones,
                "a phone may read, send, answer and interrupt, never raising an agent's permission \
                 mode; this is for the desktop",
            ));
        }
    }
    hub.dispatch(command).await
}

#[derive(Deserialize)]
pub(super) struct AttachQuery {
    name: String,
}

/// `POST /api/sessions/{id}/attachments?name=NAME`: a file the page attaches, its bytes as the body (the
/// browser streams a file it holds; `attach` carries the same as base64 in JSON): what the hub kept.
pub(super) async fn attach(
    State(hub): State<Hub>,
    Path(session_id): Path<String>,
    Query(q): Query<AttachQuery>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<clawmux_core::wire::Attachment>, HubError> {
    let bytes = body_bytes(body)?;
    Ok(Json(
        hub.attach(&session_id, &q.name, bytes.to_vec()).await?,
    ))
}

/// `GET /api/attachments/{id}`: a kept file's bytes, for the chat's thumbnails and downloads. Only the four
/// image types are served as what they are; anything else is a download the browser may not run or sniff
/// (a page's HTML attached as a file must never become a page of the hub's origin).
pub(super) async fn attachment(
    State(hub): State<Hub>,
    Path(id): Path<String>,
) -> Result<Response, HubError> {
    use axum::http::header;
    let (bytes, image) = hub.attachments().read(&id).await?;
    let disposition = if image.is_some() {
        "inline"
    } else {
        "attachment"
    };
    Ok((
        [
            (
                header::CONTENT_TYPE,
                image.unwrap_or("application/octet-stream"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CONTENT_SECURITY_POLICY, "sandbox"),
            (
                header::CACHE_CONTROL,
                "private, max-age=31536000, immutable",
            ),
        ],
        bytes,
    )
        .into_response())
}

/// `GET /metrics`, in the Prometheus text format (scrape it with the token as a bearer token).
pub(super) async fn metrics(State(hub): State<Hub>) -> Result<Response, HubError> {
    let text = hub.metrics_text().await?;
    Ok((
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response())
}

/// `POST /api/send`: an agent's message (`clawmux send`), as the agent its `ClawMux-Session` header names;
/// answers the stored message.
pub(super) async fn send(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let from = required_session(&headers)?;
    let req: clawmux_api::agent::Send = body_json(body)?;
    Ok(Json(
        hub.messages()
            .send(
                &from,
                &req.to,
                req.text.as_deref(),
                req.re.as_deref(),
                req.client_id.as_deref(),
            )
            .await?,
    )
    .into_response())
}

pub(super) async fn tool_status(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let agent = session_header(&headers)?;
    let body = body_bytes(body)?;
    Ok(Json(hub.hooks().tool(agent.as_deref(), &body).await?).into_response())
}

/// `POST /api/usage`: a status-line payload of the agent the `ClawMux-Session` header names (`clawmux
/// statusline`), or without it of the observed session the payload's `session_id` names (`clawmux
/// statusline --observe`); answers the agent's figures.
pub(super) async fn usage(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let agent = session_header(&headers)?;
    let body = body_bytes(body)?;
    let usage = hub.usage();
    let figures = match agent {
        Some(agent) => usage.report(&agent, &body).await?,
        None => usage.report_observed(&body).await?,
    };
    Ok(Json(figures).into_response())
}

/// `POST /api/status-report`: a status report of the agent the `ClawMux-Session` header names, as its
/// terminal bridge read it (`clawmux pty`): a second opinion, never a move of the indicator.
pub(super) async fn status_report(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let agent = required_session(&headers)?;
    let report: clawmux_core::program_status::StatusReport = body_json(body)?;
    hub.opinion().reported(&agent, &report).await;
    Ok(axum::http::StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/hooks/permission`: held open until the user answers the request from the app.
pub(super) async fn permission(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let agent = session_header(&headers)?;
    let body = body_bytes(body)?;
    Ok(Json(hub.hooks().permission(agent.as_deref(), &body).await?).into_response())
}

/// `POST /api/observe`: a hook of a session ClawMux did not start (`clawmux hook observe`).
pub(super) async fn observe(
    State(hub): State<Hub>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    let body = body_bytes(body)?;
    Ok(Json(hub.hooks().observe(&body).await?))
}

#[derive(Deserialize)]
pub(super) struct LogQuery {
    #[serde(default)]
    after: i64,
    #[serde(default = "max_log_rows")]
    limit: u32,
}

fn max_log_rows() -> u32 {
    crate::diagnose::MAX_LOG_ROWS
}

/// `GET /api/sessions/{id}/log/{events|decisions}?after=&limit=`: JSON lines, oldest first.
pub(super) async fn log(
    State(hub): State<Hub>,
    Path((session_id, stream)): Path<(String, String)>,
    Query(q): Query<LogQuery>,
) -> Result<Response, HubError> {
    let log = crate::diagnose::Log::parse(&stream)?;
    let text = hub.log_lines(&session_id, log, q.after, q.limit).await?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson")],
        text,
    )
        .into_response())
}

pub(super) async fn stop(
    State(hub): State<Hub>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let agent = required_session(&headers)?;
    let body = body_bytes(body)?;
    Ok(Json(hub.hooks().stop(&agent, &body).await?).into_response())
}
