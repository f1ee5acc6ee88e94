//! Hands-free in the desktop window. The webview cannot stream the microphone here, so the app listens
//! (`clawmux_capture::listen`: the same detector as the browser UI's) and tells the window, over a channel
//! of its own, when someone starts speaking (it stops its speech: barge-in) and when an utterance ends,
//! which the hub keeps as it keeps a push-to-talk recording. The window then asks for it to be heard
//! (`hear_recording`) with what it knows: the agent shown and what it said last. The audio never crosses
//! the IPC, and the kept file is gone once heard. The tray's Hands-free item is ticked while it listens.

use clawmux_capture::listen::Heard;
use clawmux_core::wire::{Code, Listened};
use clawmux_hub::{Hub, HubError};
use tauri::ipc::Channel;
use tauri::State;

use crate::desktop::Desktop;
use crate::tray::Tray;

fn failed(e: impl std::fmt::Display) -> HubError {
    HubError::new(Code::RecordingFailed, e.to_string())
}

/// What the window is told of `heard`; an utterance is kept by the hub first.
fn listened(hub: &Hub, heard: Heard) -> Listened {
    match heard {
        Heard::Start => Listened::Start,
        Heard::Dropped => Listened::Dropped,
        Heard::Lost(e) => Listened::MicrophoneLost {
            message: e.to_string(),
        },
        Heard::Utterance(clip) => {
            let recording = uuid::Uuid::new_v4().simple().to_string();
            match hub.voice().keep_recording(&recording, "wav", &clip.wav) {
                Ok(_) => Listened::Utterance {
                    recording,
                    millis: clip.millis,
                },
                Err(e) => Listened::MicrophoneLost {
                    message: format!("An utterance could not be kept: {}", e.message),
                },
            }
        }
    }
}

/// Starts listening; answers once the microphone runs (or why it cannot). What is heard goes to `events`.
#[tauri::command]
pub async fn listen_start(
    desktop: State<'_, Desktop>,
    tray: State<'_, Tray>,
    events: Channel<Listened>,
) -> Result<(), HubError> {
    let hub = desktop.running()?.clone();
    let recorder = desktop.recorder.clone();
    tauri::async_runtime::spawn_blocking(move || {
        recorder.listen(move |heard| {
            let event = listened(&hub, heard);
            // A window gone (reloaded) reads nothing more: its next page stops this listening.
            let _ = events.send(event);
        })
    })
    .await
    .map_err(failed)??;
    tray.set_hands_free(true);
    Ok(())
}

/// What the window says while it listens: whether the app speaks (its echo is not the user) and whether
/// the user muted it (nothing is heard or kept).
#[tauri::command]
pub fn listen_hint(desktop: State<'_, Desktop>, speaking: bool, muted: bool) {
    desktop.recorder.hint(speaking, muted);
}

/// Stops listening; what was being said is dropped.
#[tauri::command]
pub async fn listen_stop(
    desktop: State<'_, Desktop>,
    tray: State<'_, Tray>,
) -> Result<(), HubError> {
    let recorder = desktop.recorder.clone();
    let stopped = tauri::async_runtime::spawn_blocking(move || recorder.stop_listening())
        .await
        .map_err(failed);
    tray.set_hands_free(false);
    stopped
}

/// Hears a kept utterance as the hub hears the browser's (`POST /api/voice/hear`): on the device, with
/// `shown` on screen, `said` the app's last words (heard back, they are not the user's).
#[tauri::command]
pub async fn hear_recording(
    desktop: State<'_, Desktop>,
    recording: String,
    shown: Option<String>,
    said: Option<String>,
) -> Result<clawmux_api::hands_free::Heard, HubError> {
    let hub = desktop.running()?;
    clawmux_hub::commands::hear_voice(
        hub,
        &recording,
        "audio/wav",
        None,
        shown.as_deref(),
        said.as_deref(),
    )
    .await
}
