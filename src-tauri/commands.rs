//! The window's IPC: one command that runs the hub's command surface (the same `Command` the HTTP API
//! runs), speech from the hub's speech service as raw bytes, and two small ones of the app's own.
//! (Push-to-talk has its own file, `recording.rs`.)

use clawmux_hub::commands::Reply;
use clawmux_hub::{Command, HubError};
use serde_json::{json, Value};
use tauri::State;

use crate::desktop::Desktop;

/// Runs a command of the hub's UI surface.
#[tauri::command]
pub async fn hub(desktop: State<'_, Desktop>, command: Command) -> Result<Reply, HubError> {
    desktop.running()?.dispatch(command).await
}

/// Whether the hub runs, on which port, or why not: the window shows the port, or an error screen.
#[tauri::command]
pub fn hub_info(desktop: State<'_, Desktop>) -> Value {
    match &desktop.hub {
        Ok(_) => json!({ "port": desktop.port }),
        Err(why) => json!({ "error": why }),
    }
}

/// The agent on screen (none when the window is hidden or shows no chat): it gets no notification.
#[tauri::command]
pub fn viewing(desktop: State<'_, Desktop>, agent: Option<String>) {
    *desktop
        .viewing
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = agent;
}

/// Speech for `text` from the speech service the hub is set to use: the audio's bytes, unencoded (the
/// window plays them; the media engine reads their format from the bytes).
#[tauri::command]
pub async fn speech(
    desktop: State<'_, Desktop>,
    text: String,
) -> Result<tauri::ipc::Response, HubError> {
    let hub = desktop.running()?;
    let (_content_type, audio) = hub.voice().speech(&text).await?;
    Ok(tauri::ipc::Response::new(audio))
}
