//! The window's IPC: one command that runs the hub's command surface (the same `Command` the HTTP API
//! runs), speech from the hub's speech service and attached files as raw bytes, and two small ones of
//! the app's own.
//! (Push-to-talk has its own file, `recording.rs`.)

use clawmux_api::commands::Command;
use clawmux_hub::HubError;
use serde_json::Value;
use tauri::State;

use crate::desktop::Desktop;
use clawmux_core::sync::Locked;

/// Runs a command of the hub's UI surface: its answer, the JSON of the type the command is paired with.
#[tauri::command]
pub async fn hub(desktop: State<'_, Desktop>, command: Command) -> Result<Value, HubError> {
    desktop.running()?.dispatch(command).await
}

/// Whether the hub runs (`{port}`), or why not (`{error}`).
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum HubInfo {
    /// It serves, on this port (none: the window's IPC only).
    Serving {
        /// The port.
        port: Option<u16>,
    },
    /// It could not start: why.
    Failed {
        /// Why, for the error screen.
        error: String,
    },
}

/// Whether the hub runs, on which port, or why not: the window shows the port, or an error screen.
#[tauri::command]
pub fn hub_info(desktop: State<'_, Desktop>) -> HubInfo {
    match &desktop.hub {
        Ok(_) => HubInfo::Serving { port: desktop.port },
        Err(why) => HubInfo::Failed { error: why.clone() },
    }
}

/// The agent on screen (none when the window is hidden or shows no chat): it gets no notification.
#[tauri::command]
pub fn viewing(desktop: State<'_, Desktop>, agent: Option<String>) {
    *desktop.viewing.locked() = agent;
}

/// Speech for `text` where the hub's settings say (the device's voice in `variant`, or the speech
/// service): the audio's bytes, unencoded (the window plays them; the media engine reads their format
/// from the bytes).
#[tauri::command]
pub async fn speech(
    desktop: State<'_, Desktop>,
    text: String,
    variant: Option<clawmux_hub::voice::Variant>,
) -> Result<tauri::ipc::Response, HubError> {
    let hub = desktop.running()?;
    let (_content_type, audio) = hub
        .voice()
        .speech(&text, variant.unwrap_or_default())
        .await?;
    Ok(tauri::ipc::Response::new(audio))
}

/// A file attached to a message, for the chat's thumbnail: its bytes, unencoded (the page makes an image
/// of them only when the hub kept the file as an image).
#[tauri::command]
pub async fn attachment(
    desktop: State<'_, Desktop>,
    id: String,
) -> Result<tauri::ipc::Response, HubError> {
    let hub = desktop.running()?;
    let (bytes, _) = hub.attachments().read(&id).await?;
    Ok(tauri::ipc::Response::new(bytes))
}

/// A file the page attaches to a message for an agent: its bytes raw as the call's body, the agent and the
/// file's name (percent-encoded: a header is ASCII) in its headers. What the hub kept.
#[tauri::command]
pub async fn attach_file(
    desktop: State<'_, Desktop>,
    request: tauri::ipc::Request<'_>,
) -> Result<clawmux_core::wire::Attachment, HubError> {
    use clawmux_core::wire::Code;
    let hub = desktop.running()?;
    let header = |key: &str| {
        request
            .headers()
            .get(key)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                percent_encoding::percent_decode_str(v)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .ok_or_else(|| HubError::new(Code::BadBody, format!("no {key} header")))
    };
    let (agent, name) = (header("x-agent")?, header("x-name")?);
    let tauri::ipc::InvokeBody::Raw(bytes) = request.body() else {
        return Err(HubError::new(
            Code::BadBody,
            "the file's bytes come raw, not as JSON",
        ));
    };
    hub.attach(&agent, &name, bytes.clone()).await
}
