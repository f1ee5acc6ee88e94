//! A tool's report answered before the hub has it, and forwarded after, in order.
//!
//! Claude Code waits for each hook, and a tool call has two reports (PreToolUse, PostToolUse): each was a
//! round trip through the relay and the hub's commit, half a millisecond of ClawMux's in every call. The
//! answer to a report can only carry the inbox, so while the hub says no message can wait for the agent
//! (its mail flag, followed here over the private socket), the relay answers such a report `{}` at once
//! and forwards it after, marked answered: the hub records it and steps the machine as ever, and hands
//! nothing over in it, so a message that arrives meanwhile stays for the next hook, the Stop hook or the
//! wait. Reports of calls that reach the hub themselves (a command naming `clawmux`) are never answered
//! first (`clawmux_core::hook::relay::may_answer_first`).
//!
//! Order: the reports answered first go to the hub one at a time, as they came; a hook Claude Code waits
//! for goes only after all of them, so the hub sees an agent's hooks in the order Claude Code ran them.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use clawmux_core::hook::relay::{may_answer_first, Relayed, MAIL_PATH};
use clawmux_hub::hooks::Reader;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::sync::{mpsc, oneshot};

use super::Relay;
use crate::hook::HOOK_TIMEOUT;

/// Reports answered first and not yet forwarded, at most: past it a report waits for the hub.
const QUEUE: usize = 1024;

/// How soon the mail flag is followed again after its connection ended (the hub restarting).
const FOLLOW_AGAIN: Duration = Duration::from_secs(1);

/// The relay's side of answering first: the hub's mail flag as last heard, and the reports on their way.
pub(super) struct Ahead {
    /// Whether a message may wait for the agent: true until the hub says otherwise, and whenever its
    /// flag cannot be followed.
    mail: AtomicBool,
    /// Reports answered and not yet forwarded.
    in_flight: AtomicUsize,
    queue: mpsc::Sender<Job>,
}

/// What the forwarding task does next.
pub(super) enum Job {
    /// Forward a report already answered.
    Report(Bytes),
    /// Say that every report before it has been forwarded.
    Reached(oneshot::Sender<()>),
}

impl Ahead {
    pub(super) fn new() -> (Ahead, mpsc::Receiver<Job>) {
        let (queue, jobs) = mpsc::channel(QUEUE);
        let ahead = Ahead {
            mail: AtomicBool::new(true),
            in_flight: AtomicUsize::new(0),
            queue,
        };
        (ahead, jobs)
    }

    /// Answers `payload` (a tool-status hook's, as sent to the hub) first if it may be: then it is on its
    /// way to the hub, and true.
    pub(super) fn answered_first(&self, payload: &[u8]) -> bool {
        if self.mail.load(Ordering::SeqCst) || !may_answer_first(payload) {
            return false;
        }
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let queued = self
            .queue
            .try_send(Job::Report(Bytes::copy_from_slice(payload)));
        if queued.is_err() {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
        queued.is_ok()
    }

    /// Returns once every report answered before now has been forwarded (at once when none is on its
    /// way), or after a hook's wait if the hub takes longer.
    pub(super) async fn after_reports(&self) {
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            return;
        }
        let (reached, done) = oneshot::channel();
        let _ = tokio::time::timeout(HOOK_TIMEOUT, async {
            if self.queue.send(Job::Reached(reached)).await.is_ok() {
                let _ = done.await;
            }
        })
        .await;
    }
}

/// Forwards the reports answered first, one at a time, in order.
pub(super) async fn forward(relay: Arc<Relay>, mut jobs: mpsc::Receiver<Job>) {
    while let Some(job) = jobs.recv().await {
        match job {
            Job::Report(payload) => {
                relay
                    .forward(Relayed::ToolStatus, &payload, Reader::Nobody)
                    .await;
                relay.ahead.in_flight.fetch_sub(1, Ordering::SeqCst);
            }
            Job::Reached(reached) => {
                let _ = reached.send(());
            }
        }
    }
}

/// Follows the agent's mail flag on the hub for as long as the relay runs; while it cannot, says a
/// message may wait (every hook then waits for the hub, as the hub down answers them at once).
pub(super) async fn follow_mail(relay: Arc<Relay>) {
    loop {
        let _ = follow_once(&relay.socket, &relay.agent, &relay.ahead.mail).await;
        relay.ahead.mail.store(true, Ordering::SeqCst);
        tokio::time::sleep(FOLLOW_AGAIN).await;
    }
}

/// One connection's following: sets `mail` from each line, until the hub ends it or cannot be reached.
async fn follow_once(socket: &Path, agent: &str, mail: &AtomicBool) -> Option<()> {
    let stream = tokio::net::UnixStream::connect(socket).await.ok()?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .ok()?;
    tokio::spawn(connection);
    let request = hyper::Request::get(MAIL_PATH)
        .header(hyper::header::HOST, "localhost")
        .header(clawmux_api::transport::SESSION_HEADER, agent)
        .body(Full::new(Bytes::new()))
        .ok()?;
    let answer = sender.send_request(request).await.ok()?;
    if !answer.status().is_success() {
        return None;
    }
    let mut body = answer.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.ok()?;
        let Some(data) = frame.data_ref() else {
            continue;
        };
        // The last line sent is the flag now.
        if let Some(last) = data.iter().rev().find(|b| matches!(b, b'0' | b'1')) {
            mail.store(*last == b'1', Ordering::SeqCst);
        }
    }
    None
}
