//! The window's size and place, saved as they change (not only when the app quits), so a crash, a kill or
//! a logout does not lose them. The window-state plugin restores them at the next start.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tauri::{AppHandle, Manager, WindowEvent};
use tauri_plugin_window_state::{AppHandleExt, StateFlags};

/// How long the window must stay still before its geometry is written: one write per drag, not hundreds.
const SETTLE: Duration = Duration::from_millis(400);

/// Saves the main window's geometry whenever it has moved or been resized and then stayed still.
pub fn save_on_change(app: &AppHandle) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let generation = Arc::new(AtomicU64::new(0));
    let app = app.clone();
    window.on_window_event(move |event| {
        if !matches!(event, WindowEvent::Moved(_) | WindowEvent::Resized(_)) {
            return;
        }
        let mine = generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = generation.clone();
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(SETTLE).await;
            if generation.load(Ordering::SeqCst) == mine {
                if let Err(e) = app.save_window_state(StateFlags::all()) {
                    tracing::warn!(error = %e, "cannot save the window's size and place");
                }
            }
        });
    });
}
