//! Following another machine's hub: its window feed (`/ws`) through a dial of its own, each event relayed
//! to this hub's window as `machine_event`, and the machine's state as `machine_link`.
//!
//! Each event is read as this hub reads its own (`UiEvent`); one this version does not read (a newer hub's
//! type, or what a hostile hub made up) is dropped here, since this hub's window is of this version too.
//!
//! A feed opened again asks for what followed the last message relayed (`?cursor=`), and that hub replays
//! the gap from its store: a link that drops and comes back loses nothing and shows nothing twice. The
//! agents' last known states are kept from `session_list`, `session_spawned` and `session_status`, so a machine that cannot
//! be reached is still listed with them. Nothing in an event is acted on here: it is data for the window,
//! which renders it as text as it does its own hub's.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

use super::backoff::Backoff;
use super::link::websocket;
use super::{Answers, Remote};
use crate::clock::now;
use crate::ui_event::UiEvent;
use clawmux_core::remote::MachineName;

/// Silence after which a feed is taken for dead: that hub pings every 15 s.
const SILENCE: Duration = Duration::from_secs(40);

/// Follows `remote` until it is removed.
pub(super) async fn follow(
    remote: Arc<Remote>,
    ui: broadcast::Sender<UiEvent>,
    ssh_config: Option<PathBuf>,
    answers: Answers,
) {
    let mut backoff = Backoff::default();
    loop {
        if remote.seen().stopped {
            return;
        }
        // Removed while its feed runs: the feed (and its ssh) goes at once.
        let why = tokio::select! {
            ended = feed(&remote, &ui, ssh_config.as_ref(), &mut backoff, &answers) => match ended {
                Ok(()) => format!("the link to `{}` dropped", remote.name),
                Err(why) => why,
            },
            () = remote.stop.notified() => return,
        };
        if remote.seen().stopped {
            return;
        }
        {
            let mut seen = remote.seen();
            seen.up = false;
            seen.error = Some(why);
        }
        announce(&remote, &ui);
        let wait = backoff.after_failure(fastrand::f64());
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = remote.stop.notified() => return,
        }
    }
}

/// Tells the window how the machine stands.
fn announce(remote: &Remote, ui: &broadcast::Sender<UiEvent>) {
    let info = remote.info();
    let _ = ui.send(UiEvent::MachineLink {
        machine: info.name,
        up: info.up,
        last_seen: info.last_seen,
        error: info.error,
    });
}

/// Opens the feed and relays it until it ends; why it could not be opened.
async fn feed(
    remote: &Remote,
    ui: &broadcast::Sender<UiEvent>,
    ssh_config: Option<&PathBuf>,
    backoff: &mut Backoff,
    answers: &Answers,
) -> Result<(), String> {
    let cursor = remote.seen().cursor.clone();
    let (mut ws, _ssh) = websocket(
        &remote.name,
        &remote.target,
        ssh_config.map(PathBuf::as_path),
        |token| {
            let mut url = format!("ws://localhost/ws?token={token}");
            if let Some(c) = cursor {
                url.push_str(&format!("&cursor={c}"));
            }
            url.into_client_request().map_err(|e| e.to_string())
        },
    )
    .await?;
    backoff.reset();
    {
        let mut seen = remote.seen();
        seen.up = true;
        seen.error = None;
        seen.last_seen = Some(now());
    }
    announce(remote, ui);
    // What its agents answered this machine's while the feed was closed is taken now.
    let _ = answers.waiting.send(remote.name.clone());
    loop {
        let frame = match tokio::time::timeout(SILENCE, ws.next()).await {
            Ok(Some(Ok(frame))) => frame,
            Ok(Some(Err(_)) | None) => return Ok(()),
            Err(_) => return Err(format!("`{}` went silent", remote.name)),
        };
        let Message::Text(text) = frame else {
            continue;
        };
        remote.seen().last_seen = Some(now());
        let Some(event) = read(remote, &text) else {
            continue;
        };
        if !keep(remote, &event) {
            continue;
        }
        if answers_here(&event, &answers.here) {
            let _ = answers.waiting.send(remote.name.clone());
        }
        let _ = ui.send(UiEvent::MachineEvent {
            machine: remote.name.to_string(),
            event: Box::new(event),
        });
    }
}

/// An event of the machine's feed as this hub reads its own; `None` for a newer hub's, or a hostile one's
/// (not read, not relayed).
fn read(remote: &Remote, text: &str) -> Option<UiEvent> {
    serde_json::from_str(text)
        .inspect_err(|e| {
            tracing::debug!(machine = %remote.name, error = %e, "an event this hub does not read");
        })
        .ok()
}

/// Whether an event is a message one of the machine's agents sent to an agent of this one (`name@here`).
fn answers_here(event: &UiEvent, here: &MachineName) -> bool {
    matches!(event, UiEvent::AgentMessage(m)
        if m.recipient
            .as_deref()
            .and_then(|to| to.rsplit_once('@'))
            .is_some_and(|(_, machine)| machine == here.as_str()))
}

/// Notes what an event says of the machine; whether the window is to have it (pings are not).
fn keep(remote: &Remote, event: &UiEvent) -> bool {
    let mut seen = remote.seen();
    if matches!(event, UiEvent::Ping) {
        return false;
    }
    if let UiEvent::SessionList { sessions } = event {
        seen.sessions.clone_from(sessions);
    }
    if let UiEvent::SessionSpawned { session } = event {
        seen.sessions.retain(|s| s.session_id != session.session_id);
        seen.sessions.push(session.clone());
    }
    if let UiEvent::SessionStatus {
        session_id,
        state,
        activity,
        since,
        needs,
        ..
    } = event
    {
        if let Some(s) = seen
            .sessions
            .iter_mut()
            .find(|s| &s.session_id == session_id)
        {
            s.state = *state;
            s.activity.clone_from(activity);
            s.since = *since;
            s.needs.clone_from(needs);
        }
    }
    // A message: the feed resumes after the last one relayed.
    if let Some(m) = event.message_out() {
        seen.cursor = Some(m.id.clone());
    }
    true
}
