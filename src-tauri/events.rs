//! The hub's live events: to the window (the Tauri event `hub`, carrying the same events as the hub's
//! WebSocket) and to a native notification when an agent stops working and waits for the user, or starts to
//! need the user ("Needs you": a permission, an answer, a plan approval, a failed turn).
//!
//! One notification per such transition, never for the agent the user is looking at in a focused window.

use clawmux_hub::notice::{Notice, NoticeRule};
use clawmux_hub::ui_event::UiEvent;
use clawmux_hub::Hub;
use tauri::{AppHandle, Emitter, Manager};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::broadcast::error::RecvError;

use crate::desktop::Desktop;

/// Forwards the hub's events for as long as the app runs.
pub fn forward(app: AppHandle) {
    let Ok(hub) = app.state::<Desktop>().hub.clone() else {
        return;
    };
    let mut events = hub.subscribe();
    tauri::async_runtime::spawn(async move {
        let sessions = hub.sessions().await.unwrap_or_default();
        let mut rule = NoticeRule::new(&sessions);
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                // The window fell behind: it takes what it missed from the history.
                Err(RecvError::Lagged(_)) => UiEvent::Reset {
                    reason: "the window fell behind the hub".into(),
                },
                Err(RecvError::Closed) => break,
            };
            if let UiEvent::SessionStatus {
                session_id,
                state,
                needs,
                ..
            } = &event
            {
                match rule.on_status(session_id, *state, needs.as_ref().map(|n| &n.attention)) {
                    Some(Notice::NeedsYou(reason)) => {
                        notify(
                            &app,
                            session_id,
                            &format!("{session_id} needs you"),
                            &reason,
                        );
                    }
                    Some(Notice::Finished) => notify_idle(&app, &hub, session_id).await,
                    None => {}
                }
            }
            if let Err(e) = app.emit("hub", &event) {
                tracing::warn!(error = %e, "could not pass an event to the window");
            }
        }
    });
}

/// Whether the user is looking at `agent` in the focused window.
fn on_screen(app: &AppHandle, agent: &str) -> bool {
    let focused = app
        .get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false);
    let on_screen = app
        .state::<Desktop>()
        .viewing
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_deref()
        == Some(agent);
    focused && on_screen
}

fn notify(app: &AppHandle, agent: &str, title: &str, body: &str) {
    if on_screen(app, agent) {
        return;
    }
    let shown = app.notification().builder().title(title).body(body).show();
    if let Err(e) = shown {
        tracing::warn!(agent, error = %e, "could not show a notification");
    }
}

async fn notify_idle(app: &AppHandle, hub: &Hub, agent: &str) {
    if on_screen(app, agent) {
        return;
    }
    let body = hub.finished_notice(agent).await;
    notify(app, agent, &format!("{agent} is waiting for you"), &body);
}
