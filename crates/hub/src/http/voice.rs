//! The voice routes: a recording for an agent, one hands-free utterance, and speech for a text. Each is a
//! thin translation to the hub: the audio and its type in, what came of it out.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::api::{body_bytes, body_json};
use crate::error::HubError;
use crate::hub::Hub;

/// The request's `Content-Type`, or nothing.
fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[derive(Deserialize)]
pub(super) struct VoiceQuery {
    recording: String,
}

/// `POST /api/sessions/{id}/voice?recording=ID`: a recording (body: the audio, `Content-Type` its type),
/// transcribed and stored as the user's voice message.
pub(super) async fn voice(
    State(hub): State<Hub>,
    Path(session_id): Path<String>,
    Query(q): Query<VoiceQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, HubError> {
    let audio = body_bytes(body)?;
    let content_type = content_type(&headers);
    let spoken = hub
        .voice_message(
            &session_id,
            &q.recording,
            content_type,
            Some(audio.to_vec()),
        )
        .await?;
    Ok(Json(json!(spoken)))
}

#[derive(Deserialize)]
pub(super) struct HearQuery {
    recording: String,
    shown: Option<String>,
    said: Option<String>,
}

/// `POST /api/voice/hear?recording=ID&shown=AGENT&said=TEXT`: one utterance of hands-free mode (body:
/// the audio, `Content-Type` its type), heard and carried out: what the app made of it. `said` is what the
/// app said last (its own speech heard back is not the user's).
pub(super) async fn hear(
    State(hub): State<Hub>,
    Query(q): Query<HearQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<crate::hands_free::Heard>, HubError> {
    let audio = body_bytes(body)?;
    let content_type = content_type(&headers);
    let heard = crate::commands::hear_voice(
        &hub,
        &q.recording,
        content_type,
        Some(audio.to_vec()),
        q.shown.as_deref(),
        q.said.as_deref(),
    )
    .await?;
    Ok(Json(heard))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SpeechRequest {
    text: String,
    /// The device voice's variant (an agent's own); the voice as it is when left out.
    #[serde(default)]
    variant: crate::voice::Variant,
}

/// `POST /api/speech {"text", "variant"}`: the audio for the text, from the device's voice or the speech
/// service as the settings say.
pub(super) async fn speech(
    State(hub): State<Hub>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HubError> {
    let req: SpeechRequest = body_json(body)?;
    let (ctype, audio) = hub.voice().speech(&req.text, req.variant).await?;
    Ok(([(axum::http::header::CONTENT_TYPE, ctype)], audio).into_response())
}
