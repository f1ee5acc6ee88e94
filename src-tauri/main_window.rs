//! The main window brought forward (a notification or the tray clicked, the app launched again), an agent
//! opened in it, and the app ended from it. Closing it only puts it away (`closing.rs`): quitting is the
//! tray's Quit, or Ctrl+Q in the window (`quit`).

use tauri::{AppHandle, Emitter, Manager, WebviewWindow};

/// The Tauri event that asks the window to open an agent (a notification or the tray was clicked).
pub const OPEN_AGENT_EVENT: &str = "open-agent";

fn main(app: &AppHandle) -> Option<WebviewWindow> {
    app.get_webview_window("main")
}

/// Brings the window forward, shown.
pub fn raise(app: &AppHandle) {
    if let Some(window) = main(app) {
        let _ = window.show();
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
}

/// Brings the window forward with `agent` on screen.
pub fn open_agent(app: &AppHandle, agent: &str) {
    raise(app);
    if let Err(e) = app.emit(OPEN_AGENT_EVENT, agent) {
        tracing::warn!(agent, error = %e, "could not open the agent in the window");
    }
}

/// Ends the app (Ctrl+Q in the window): the hub stops; the agents' processes go on in their terminals.
#[tauri::command]
pub fn quit(app: AppHandle) {
    app.exit(0);
}
