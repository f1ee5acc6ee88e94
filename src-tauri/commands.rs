//! The window's IPC: one command that runs the hub's command surface (the same `Command` the HTTP API
//! runs), and two small ones of the app's own.

use clawmux_hub::{ApiError, Command};
use serde_json::{json, Value};
use tauri::State;

use crate::start::Desktop;

/// Runs a command of the hub's UI surface.
#[tauri::command]
pub async fn hub(desktop: State<'_, Desktop>, command: Command) -> Result<Value, ApiError> {
    match &desktop.hub {
        Ok(hub) => hub.dispatch(command).await,
        Err(why) => Err(ApiError::new(
            clawmux_hub::error::StatusCode::SERVICE_UNAVAILABLE,
            "hub_unavailable",
            why.clone(),
        )),
    }
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
