//! The hub's live events: to the window (the Tauri event `hub`, carrying the same events as the hub's
//! WebSocket) and to a native notification when an agent stops working and waits for the user, or starts to
//! need the user ("Needs you": a permission, an answer, a plan approval, a failed turn).
//!
//! One notification per such transition, never for the agent the user is looking at in a focused window;
//! the agents of other machines (`machine_event`) are notified the same way, as `name@machine`. The tray
//! (`tray/`) is told every agent's needs, for its badge and menu.

use clawmux_api::ui_event::UiEvent;
use clawmux_hub::machines::{status_of, AgentStatus};
use clawmux_hub::notice::{Notice, NoticeRule};
use clawmux_hub::Hub;
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::broadcast::error::RecvError;

use crate::desktop::Desktop;
use crate::notices::{self, Popup};
use crate::tray::Tray;
use clawmux_core::sync::Locked;

/// The Tauri event that carries the hub's events to the window (`ui/js/backend.js` listens to it).
pub const HUB_EVENT: &str = "hub";

/// Forwards the hub's events for as long as the app runs.
pub fn forward(app: AppHandle) {
    let Ok(hub) = app.state::<Desktop>().hub.clone() else {
        return;
    };
    let mut events = hub.subscribe();
    tauri::async_runtime::spawn(async move {
        let sessions = hub.roster().sessions().await.unwrap_or_default();
        let mut rule = NoticeRule::new(&sessions);
        let tray = app.state::<Tray>();
        for session in &sessions {
            tray.on_status(
                &session.session_id,
                session.needs.as_ref().map(|n| &n.attention),
            );
        }
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                // The window fell behind: it takes what it missed from the history.
                Err(RecvError::Lagged(_)) => UiEvent::Reset {
                    reason: "the window fell behind the hub".into(),
                },
                Err(RecvError::Closed) => break,
            };
            let status = status_of(&event);
            if let UiEvent::SessionTerminated { session_id, .. } = &event {
                tray.on_status(session_id, None);
            }
            if let Some(status) = status {
                tray.on_status(&status.agent, status.needs.as_ref());
                raise(&app, &hub, &mut rule, status).await;
            }
            if let Err(e) = app.emit(HUB_EVENT, &event) {
                tracing::warn!(error = %e, "could not pass an event to the window");
            }
        }
    });
}

/// The notification a status deserves, if any.
async fn raise(app: &AppHandle, hub: &Hub, rule: &mut NoticeRule, status: AgentStatus) {
    let agent = status.agent;
    match rule.on_status(&agent, status.state, status.needs.as_ref()) {
        Some(Notice::NeedsYou(reason)) => notify(
            app,
            hub,
            Popup {
                title: format!("{agent} needs you"),
                agent,
                body: reason,
                request: status.permission,
            },
        ),
        Some(Notice::RateLimited(reason)) => notify(
            app,
            hub,
            Popup {
                title: format!("{agent} is rate-limited"),
                agent,
                body: reason,
                request: None,
            },
        ),
        // Another machine's agent has no messages in this hub: its body is the one for none.
        Some(Notice::Finished) => notify_idle(app, hub, &agent).await,
        None => {}
    }
}

/// Whether the user is looking at `agent` in the focused window.
fn on_screen(app: &AppHandle, agent: &str) -> bool {
    let focused = app
        .get_webview_window("main")
        .and_then(|w| w.is_focused().ok())
        .unwrap_or(false);
    let on_screen = app.state::<Desktop>().viewing.locked().as_deref() == Some(agent);
    focused && on_screen
}

fn notify(app: &AppHandle, hub: &Hub, notice: Popup) {
    if on_screen(app, &notice.agent) {
        return;
    }
    notices::show(app, hub, notice);
}

async fn notify_idle(app: &AppHandle, hub: &Hub, agent: &str) {
    if on_screen(app, agent) {
        return;
    }
    let body = hub.finished_notice(agent).await;
    let title = format!("{agent} is waiting for you");
    notify(
        app,
        hub,
        Popup {
            agent: agent.to_owned(),
            title,
            body,
            request: None,
        },
    );
}
