//! Native notifications, sent to the desktop's notification server directly (notify-rust over D-Bus):
//! Tauri's notification plugin has no click event on Linux. Clicking a notification opens its agent in
//! the window; where the server offers actions (dunst does), a permission request's notification carries
//! Allow and Deny, which answer it as the card's buttons do.
//!
//! Each notification waits for its action on a thread of its own (the wait is a blocking D-Bus call);
//! the notification server closes it in the end, which ends the thread.

use clawmux_api::asks::{AnswerRequest, Verdict};
use clawmux_api::commands::{Command, OnMachine};
use clawmux_hub::Hub;
use tauri::AppHandle;

/// A notification to show.
pub struct Popup {
    /// The agent it is about.
    pub agent: String,
    /// Its title.
    pub title: String,
    /// Its text.
    pub body: String,
    /// The permission request it may answer (its id), with Allow and Deny on the notification.
    pub request: Option<String>,
}

/// Shows `notice`, and acts on what the user does with it.
pub fn show(app: &AppHandle, hub: &Hub, notice: Popup) {
    let (app, hub) = (app.clone(), hub.clone());
    std::thread::spawn(move || {
        let mut n = notify_rust::Notification::new();
        n.appname("ClawMux")
            .summary(&notice.title)
            .body(&notice.body)
            .action("default", "Open");
        if notice.request.is_some() {
            n.action("allow", "Allow").action("deny", "Deny");
        }
        let handle = match n.show() {
            Ok(handle) => handle,
            Err(e) => {
                tracing::warn!(agent = notice.agent, error = %e, "could not show a notification");
                return;
            }
        };
        handle.wait_for_action(|action| match action {
            "allow" | "deny" => answer(&hub, &notice, action == "allow"),
            "default" => crate::main_window::open_agent(&app, &notice.agent),
            _ => {}
        });
    });
}

/// Shows a notification about the app itself, with no action.
pub fn tell(title: &str, body: &str) {
    let shown = notify_rust::Notification::new()
        .appname("ClawMux")
        .summary(title)
        .body(body)
        .show();
    if let Err(e) = shown {
        tracing::warn!(error = %e, "could not show a notification");
    }
}

/// Answers the notice's request from the notification (forwarded to its machine for another machine's
/// agent, `name@machine`).
fn answer(hub: &Hub, notice: &Popup, allow: bool) {
    let address = clawmux_core::remote::AgentAddress::parse(&notice.agent);
    let answer = Command::Answer(AnswerRequest {
        session_id: address.name.to_owned(),
        request_id: notice.request.clone(),
        decision: if allow { Verdict::Allow } else { Verdict::Deny },
        message: (!allow).then(|| "The user said no (from a notification).".to_owned()),
        answers: None,
        suggestion: None,
        mode: None,
    });
    // Another machine's agent: the same command, forwarded whole to its hub.
    let command = match address.machine {
        None => answer,
        Some(machine) => Command::from(OnMachine {
            machine: machine.to_owned(),
            forward: Box::new(answer),
        }),
    };
    if let Err(e) = tauri::async_runtime::block_on(hub.dispatch(command)) {
        // Answered elsewhere meanwhile, or its machine not reached: nothing was decided twice.
        tracing::info!(agent = notice.agent, error = %e, "a notification's answer did not land");
    }
}
