//! Closing the window keeps the hub, the agents and the notifications: where the desktop shows the tray
//! icon the window hides into it, elsewhere it is minimized, so the window stays the way in (as does
//! launching the app again). The first close says so once, in a notification.

use std::path::PathBuf;

use tauri::{AppHandle, Manager, Window};

use crate::tray::Tray;

/// The file whose presence says the user was told that closing the window keeps the app.
const TOLD: &str = "told-closing-keeps-running";

/// The window was asked to close (the title bar's button, the desktop's shortcut): it hides into the tray,
/// or is minimized where there is none. (Whether a tray host runs is asked of the session bus, off the
/// window's thread.)
pub fn on_close(window: &Window) {
    let (app, window) = (window.app_handle().clone(), window.clone());
    std::thread::spawn(move || {
        let in_tray = app.state::<Tray>().shown();
        let done = if in_tray {
            window.hide()
        } else {
            window.minimize()
        };
        if let Err(e) = done {
            tracing::warn!(error = %e, "the window could not be put away");
        }
        tell_once(&app, in_tray);
    });
}

/// Says, the first time only, that the app goes on after its window is closed, and how to end it.
fn tell_once(app: &AppHandle, in_tray: bool) {
    let Some(told) = told_file(app) else { return };
    if told.exists() {
        return;
    }
    let body = if in_tray {
        "The agents keep working and you are still notified. Open ClawMux or quit it from its icon in the tray."
    } else {
        "The agents keep working and you are still notified. The window is minimized; Ctrl+Q in it quits ClawMux."
    };
    crate::notices::tell("ClawMux is still running", body);
    let written = told
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| clawmux_hub::config::write_private(&told, b""));
    if let Err(e) = written {
        tracing::warn!(error = %e, file = %told.display(), "could not note that the user was told");
    }
}

fn told_file(app: &AppHandle) -> Option<PathBuf> {
    app.path().app_config_dir().ok().map(|dir| dir.join(TOLD))
}
