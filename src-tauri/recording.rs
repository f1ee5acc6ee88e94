//! Push-to-talk in the desktop window. WebKitGTK's MediaRecorder records nothing here, so the window asks
//! the app to record (`clawmux-capture`: the microphone, or the WAV file given with `--microphone-file`),
//! and the audio never crosses the IPC: `record_stop` has the hub keep it as it keeps every recording
//! until its message is stored (`<data dir>/voice/<id>.wav`), and `send_recording` has the hub transcribe
//! and store that kept file, the path the browser's uploads take after they are kept. A recording that failed to send stays there and is
//! sent again under the same id, so it is stored once; one cancelled is never written.

use clawmux_core::wire::Code;
use clawmux_hub::HubError;
use serde::Serialize;
use tauri::State;

use crate::desktop::Desktop;

/// A recording under way, or kept: its id, and once stopped how long it is and whether it was cut at the
/// longest a recording may be.
#[derive(Debug, Serialize)]
pub struct Recorded {
    /// The recording's id (`send_recording` names it).
    recording: String,
    /// Its length, once stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    millis: Option<u64>,
    /// Whether it was cut at the longest a recording may be, once stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
}

fn failed(code: Code, e: impl std::fmt::Display) -> HubError {
    HubError::new(code, e.to_string())
}

/// Starts recording; answers once the microphone records (or why it cannot: no microphone, not allowed).
#[tauri::command]
pub async fn record_start(desktop: State<'_, Desktop>) -> Result<Recorded, HubError> {
    let recorder = desktop.recorder.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let id = recorder.begin()?;
        Ok(Recorded {
            recording: id,
            millis: None,
            truncated: None,
        })
    })
    .await
    .map_err(|e| failed(Code::RecordingFailed, e))?
}

/// Stops recording and keeps the audio for `send_recording`: `{recording, millis, truncated}`.
#[tauri::command]
pub async fn record_stop(desktop: State<'_, Desktop>) -> Result<Recorded, HubError> {
    let hub = desktop.running().cloned();
    let recorder = desktop.recorder.clone();
    // Off the async threads: taking the recording waits for a start still opening the device, and
    // finishing joins the source's thread.
    tauri::async_runtime::spawn_blocking(move || {
        let Some((id, recording)) = recorder.take() else {
            return Err(HubError::new(
                Code::NotRecording,
                "no recording is under way",
            ));
        };
        let hub = hub?;
        let clip = recording
            .finish()
            .map_err(|e| HubError::new(Code::EmptyRecording, e.to_string()))?;
        hub.voice().keep_recording(&id, "wav", &clip.wav)?;
        tracing::info!(recording = %id, millis = clip.millis, bytes = clip.wav.len(), "recorded");
        Ok(Recorded {
            recording: id,
            millis: Some(clip.millis),
            truncated: Some(clip.truncated),
        })
    })
    .await
    .map_err(|e| failed(Code::RecordingFailed, e))?
}

/// Stops recording and keeps nothing (Escape).
#[tauri::command]
pub async fn record_cancel(desktop: State<'_, Desktop>) -> Result<(), HubError> {
    let recorder = desktop.recorder.clone();
    tauri::async_runtime::spawn_blocking(move || drop(recorder.take()))
        .await
        .map_err(|e| failed(Code::RecordingFailed, e))
}

/// Sends a kept recording to `agent`: transcribed by the hub and stored as a voice message, once.
#[tauri::command]
pub async fn send_recording(
    desktop: State<'_, Desktop>,
    agent: String,
    recording: String,
) -> Result<clawmux_hub::voice::Spoken, HubError> {
    let hub = desktop.running()?;
    hub.voice_message(&agent, &recording, "audio/wav", None)
        .await
}
