//! The original's REST routes (`docs/PROTOCOL.md`, "REST names of commands"), kept for the scripts that
//! call them: each is a command under another name, read from its path and body, turned into that
//! command here, and run as `POST /api/command` runs it ([`api::run`]). So none has rules of its own: a
//! phone's token meets the one check of what a phone may run, and the answer is the command's.

use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use clawmux_core::wire::Code;
use serde::Deserialize;
use serde_json::Value;

use super::api::{body_json, run};
use crate::commands::{self, Command};
use crate::error::HubError;
use crate::hub::Hub;
use crate::phone::access::Caller;

type Asker = Option<Extension<Caller>>;

/// The routes, added to the hub's.
pub(super) fn add(routes: Router<Hub>) -> Router<Hub> {
    routes
        .route("/api/sessions", get(sessions))
        .route("/api/capabilities", get(capabilities))
        .route("/api/agents", post(add_agent))
        .route("/api/spawn", post(spawn))
        .route("/api/sessions/{id}/messages", post(user_message))
        .route("/api/sessions/{id}/read", post(mark_read))
        .route("/api/sessions/{id}/{action}", post(lifecycle))
        .route("/api/history/{id}", get(history))
        .route(
            "/api/voice/settings",
            get(voice_settings).post(set_voice_settings),
        )
}

/// Whether `path` is one of these routes (one of [`add`]'s), which the guard lets a phone's token reach:
/// the command it names is checked then.
pub fn is_alias(method: &Method, path: &str) -> bool {
    let agents = path
        .strip_prefix("/api/sessions/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(id, action)| !id.is_empty() && AGENT_ROUTES.contains(&action));
    match *method {
        Method::GET => {
            path == "/api/sessions"
                || path == "/api/capabilities"
                || path == "/api/voice/settings"
                || path
                    .strip_prefix("/api/history/")
                    .is_some_and(|id| !id.is_empty() && !id.contains('/'))
        }
        Method::POST => {
            path == "/api/agents" || path == "/api/spawn" || path == "/api/voice/settings" || agents
        }
        _ => false,
    }
}

/// The REST names of commands under an agent's path (`/api/sessions/{id}/...`): its messages, marking
/// read, and [`lifecycle`]'s actions.
const AGENT_ROUTES: [&str; 5] = ["messages", "read", "terminate", "restart", "interrupt"];

async fn sessions(State(hub): State<Hub>, asker: Asker) -> Result<Json<Value>, HubError> {
    run(&hub, asker, commands::Sessions {}.into())
        .await
        .map(Json)
}

async fn capabilities(State(hub): State<Hub>, asker: Asker) -> Result<Json<Value>, HubError> {
    run(&hub, asker, commands::Capabilities {}.into())
        .await
        .map(Json)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddAgent {
    name: String,
    work_dir: Option<PathBuf>,
}

async fn add_agent(
    State(hub): State<Hub>,
    asker: Asker,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let AddAgent { name, work_dir } = body_json(body)?;
    let info = run(&hub, asker, commands::AddAgent { name, work_dir }.into()).await?;
    Ok((StatusCode::CREATED, Json(info)).into_response())
}

/// `POST /api/spawn`: the `spawn` command's request as the body (its `command`, the program to run, would
/// clash with the command route's tag).
async fn spawn(
    State(hub): State<Hub>,
    asker: Asker,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let info = run(&hub, asker, Command::Spawn(body_json(body)?)).await?;
    Ok((StatusCode::CREATED, Json(info)).into_response())
}

/// `POST /api/sessions/{id}/{action}`: terminate, restart or interrupt.
async fn lifecycle(
    State(hub): State<Hub>,
    asker: Asker,
    Path((session_id, action)): Path<(String, String)>,
) -> Result<Json<Value>, HubError> {
    let command = match action.as_str() {
        "terminate" => commands::Terminate { session_id }.into(),
        "restart" => commands::Restart { session_id }.into(),
        "interrupt" => commands::Interrupt { session_id }.into(),
        other => {
            return Err(HubError::new(
                Code::NotFound,
                format!("no action `{other}` (terminate, restart, interrupt)"),
            ))
        }
    };
    run(&hub, asker, command).await.map(Json)
}

#[derive(Deserialize)]
struct UserMessage {
    #[serde(default)]
    text: String,
    #[serde(default)]
    voice: bool,
    #[serde(default)]
    attachments: Vec<clawmux_core::wire::AttachmentRef>,
    client_id: Option<String>,
}

async fn user_message(
    State(hub): State<Hub>,
    asker: Asker,
    Path(session_id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    let UserMessage {
        text,
        voice,
        attachments,
        client_id,
    } = body_json(body)?;
    let command = commands::UserMessage {
        session_id,
        text,
        voice,
        attachments,
        client_id,
    };
    run(&hub, asker, command.into()).await.map(Json)
}

#[derive(Deserialize)]
struct MarkRead {
    up_to: String,
}

async fn mark_read(
    State(hub): State<Hub>,
    asker: Asker,
    Path(session_id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    let MarkRead { up_to } = body_json(body)?;
    let command = commands::MarkRead { session_id, up_to };
    run(&hub, asker, command.into()).await.map(Json)
}

#[derive(Deserialize)]
struct HistoryQuery {
    after: Option<String>,
    before: Option<String>,
    limit: Option<u32>,
}

async fn history(
    State(hub): State<Hub>,
    asker: Asker,
    Path(session_id): Path<String>,
    Query(HistoryQuery {
        after,
        before,
        limit,
    }): Query<HistoryQuery>,
) -> Result<Json<Value>, HubError> {
    let command = commands::History {
        session_id,
        after,
        before,
        limit,
    };
    run(&hub, asker, command.into()).await.map(Json)
}

async fn voice_settings(State(hub): State<Hub>, asker: Asker) -> Result<Json<Value>, HubError> {
    run(&hub, asker, commands::VoiceSettings {}.into())
        .await
        .map(Json)
}

/// `POST /api/voice/settings`: the settings as the body.
async fn set_voice_settings(
    State(hub): State<Hub>,
    asker: Asker,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    let settings = body_json(body)?;
    let command = commands::SetVoiceSettings { settings };
    run(&hub, asker, command.into()).await.map(Json)
}

#[cfg(test)]
mod tests {
    use axum::http::Method;

    use super::is_alias;

    #[test]
    fn the_rest_names_of_commands_are_told_from_the_other_routes() {
        let (get, post) = (Method::GET, Method::POST);
        for (method, path) in [
            (&get, "/api/sessions"),
            (&get, "/api/capabilities"),
            (&get, "/api/history/sky"),
            (&post, "/api/agents"),
            (&post, "/api/spawn"),
            (&post, "/api/sessions/sky/messages"),
            (&post, "/api/sessions/sky/read"),
            (&post, "/api/sessions/sky/restart"),
            (&get, "/api/voice/settings"),
            (&post, "/api/voice/settings"),
        ] {
            assert!(is_alias(method, path), "{method} {path}");
        }
        for (method, path) in [
            (&post, "/api/sessions/sky/attachments"),
            (&post, "/api/sessions/sky/voice"),
            (&post, "/api/sessions/sky/unknown"),
            (&get, "/api/sessions/sky/log/events"),
            (&post, "/api/sessions//read"),
            (&post, "/api/sessions/sky/"),
            (&get, "/api/history/"),
            (&get, "/api/history/a/b"),
            (&post, "/api/send"),
            (&post, "/api/command"),
            (&get, "/metrics"),
            (&post, "/api/sessions"),
            (&Method::DELETE, "/api/agents"),
        ] {
            assert!(!is_alias(method, path), "{method} {path}");
        }
    }
}
