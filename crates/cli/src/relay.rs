//! `clawmux hook relay AGENT`: the door through which a spawned agent's Claude Code reports its hooks
//! over HTTP, with no process started per hook.
//!
//! The hub starts one relay per agent process, before Claude Code, and hands it the agent's hook key on
//! its stdin. The relay binds a fresh loopback port, says which on its stdout, and learns the agent's PID
//! on its stdin once tmux has started it. From then on it lives exactly as long as that process: the port
//! an agent's settings name is never free while the agent can post to it, so no other user can bind it
//! and read or answer the hooks (which a port of the hub's would allow while the hub is down).
//!
//! Each hook is checked (the agent's key, from a process of this user) and forwarded to the hub over its
//! private socket, on kept-alive connections, exactly as the command-form hook forwards it; the hub's
//! answer is turned into what Claude Code reads from an HTTP hook. The hub down or restarting is no
//! error Claude Code would show: the relay answers `{}` at once, as the command-form hook exits 0.

use std::io::Write;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use clawmux_core::hook::relay::{HookKey, Relayed, KEY_HEADER};
use clawmux_core::wire::StopVerdict;
use clawmux_hub::http::idle::{while_answering, Carried};
use clawmux_hub::http::peers::{Budget, UserOnly};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

use crate::hook::{Payload, HOOK_TIMEOUT, MAX_STDIN};

/// Connections held at once: Claude Code runs an event's hooks in parallel, a few at a time.
const MAX_CONNECTIONS: usize = 64;

/// One agent's relay.
struct Relay {
    agent: String,
    key: HookKey,
    socket: PathBuf,
    /// Connections to the hub that are free for the next request.
    idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

/// Runs the relay of `agent` for the hub of `data_dir` (see the module's docs for the exchange on stdin
/// and stdout), closing connections silent for `idle` unless a hook on them is being answered. Exits 0
/// when the agent's process ends, or when no PID ever comes (the start failed).
pub fn run(agent: String, data_dir: PathBuf, idle: Duration) -> ExitCode {
    let mut line = String::new();
    // Read through `Stdin` itself, which takes its lock for this line alone: the PID comes later.
    let key = match std::io::stdin().read_line(&mut line) {
        Ok(_) => HookKey::parse(line.trim()),
        Err(_) => Err(clawmux_core::wire::Code::Unauthorized),
    };
    let Ok(key) = key else {
        let _ = writeln!(std::io::stderr(), "clawmux hook relay: no key on stdin");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "clawmux hook relay: {e}");
            return ExitCode::FAILURE;
        }
    };
    let relay = Arc::new(Relay {
        agent,
        key,
        socket: clawmux_core::layout::socket_path(&data_dir),
        idle: Mutex::new(Vec::new()),
    });
    let served = runtime.block_on(serve(relay, idle));
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "clawmux hook relay: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Binds, says the port, serves until the agent's process ends. A connection that carries a hook being
/// answered stays open however long its answer takes (a permission waits for the user, for up to its
/// hook's timeout of a day); a silent one is closed after its first seconds, or to make room.
async fn serve(relay: Arc<Relay>, idle: Duration) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let port = listener.local_addr()?.port();
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{port}")?;
    stdout.flush()?;
    drop(stdout);
    let app = axum::Router::new()
        .fallback(hook)
        // Claude Code waits, silent, for each answer: its connection is not idle meanwhile.
        .layer(axum::middleware::from_fn(while_answering))
        // As much as the command-form hook reads from its stdin.
        .layer(DefaultBodyLimit::max(MAX_STDIN as usize))
        .with_state(relay);
    let listener = UserOnly::new(listener, idle, Budget::new(MAX_CONNECTIONS));
    let server = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<Carried>(),
    );
    tokio::select! {
        served = server => served,
        () = agent_ended() => Ok(()),
    }
}

/// Completes when the process whose PID comes on stdin has ended, or at once when none comes.
async fn agent_ended() {
    let _ = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).ok()?;
        let pid = rustix::process::Pid::from_raw(line.trim().parse::<i32>().ok()?)?;
        let fd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()?;
        // A pidfd turns readable once its process has ended.
        let mut fds = [rustix::event::PollFd::new(
            &fd,
            rustix::event::PollFlags::IN,
        )];
        while let Err(e) = rustix::event::poll(&mut fds, None) {
            if e != rustix::io::Errno::INTR {
                break;
            }
        }
        Some(())
    })
    .await;
}

/// Any request: a relayed hook with the agent's key, forwarded; anything else refused.
async fn hook(
    State(relay): State<Arc<Relay>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(kind) = Relayed::from_path(uri.path()) else {
        return refused(StatusCode::NOT_FOUND, "no such hook");
    };
    let keyed = headers
        .get(KEY_HEADER)
        .is_some_and(|given| relay.key.matches(given.as_bytes()));
    if !keyed {
        return refused(
            StatusCode::UNAUTHORIZED,
            "missing or wrong hook key: this relay serves one agent",
        );
    }
    let payload = Payload::new(body.to_vec());
    let answer = relay.forward(kind, payload.sent()).await;
    Json(claude_answer(kind, answer, &payload)).into_response()
}

fn refused(status: StatusCode, why: &str) -> Response {
    (status, Json(json!({ "error": why }))).into_response()
}

/// What Claude Code reads from the hub's answer, as the command-form hook prints it: a decision where the
/// hub gave one, `{}` otherwise (and whenever the hub could not be asked).
fn claude_answer(kind: Relayed, answer: Option<Value>, payload: &Payload) -> Value {
    let Some(answer) = answer else {
        return json!({});
    };
    match kind {
        Relayed::ToolStatus if answer.get("hookSpecificOutput").is_some() => answer,
        Relayed::Permission if answer.get("hookSpecificOutput").is_some() => {
            crate::hook::whole(answer, payload)
        }
        Relayed::Stop => match serde_json::from_value::<StopVerdict>(answer) {
            Ok(StopVerdict {
                block: true,
                reason,
            }) => json!({ "decision": "block", "reason": reason }),
            Ok(StopVerdict { block: false, .. }) | Err(_) => json!({}),
        },
        Relayed::ToolStatus | Relayed::Permission => json!({}),
    }
}

impl Relay {
    /// The hub's answer to `body` at `kind`'s endpoint; `None` when the hub cannot be reached, answers an
    /// error, or takes longer than the hook may wait.
    async fn forward(&self, kind: Relayed, body: &[u8]) -> Option<Value> {
        let wait = match kind {
            Relayed::Permission => Duration::from_millis(clawmux_api::transport::BASH_TIMEOUT_MS),
            Relayed::ToolStatus | Relayed::Stop => HOOK_TIMEOUT,
        };
        let request = hyper::Request::post(kind.hub_path())
            .header(hyper::header::HOST, "localhost")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(clawmux_api::transport::SESSION_HEADER, &self.agent)
            .body(Full::new(Bytes::copy_from_slice(body)))
            .ok()?;
        tokio::time::timeout(wait, async {
            let mut sender = self.connection().await?;
            let answer = sender.send_request(request).await.ok()?;
            let ok = answer.status().is_success();
            let bytes = answer.into_body().collect().await.ok()?.to_bytes();
            self.give_back(sender);
            if ok {
                serde_json::from_slice(&bytes).ok()
            } else {
                None
            }
        })
        .await
        .ok()
        .flatten()
    }

    /// A free connection to the hub: a kept one still open, else a new one.
    async fn connection(&self) -> Option<SendRequest<Full<Bytes>>> {
        loop {
            let kept = self.idle.lock().ok()?.pop();
            let Some(mut sender) = kept else { break };
            if sender.ready().await.is_ok() {
                return Some(sender);
            }
        }
        let stream = tokio::net::UnixStream::connect(&self.socket).await.ok()?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .ok()?;
        tokio::spawn(connection);
        Some(sender)
    }

    fn give_back(&self, sender: SendRequest<Full<Bytes>>) {
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < MAX_CONNECTIONS && !sender.is_closed() {
                idle.push(sender);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hubs_answers_become_what_claude_code_reads() {
        let whole = Payload::new(b"{}".to_vec());
        let block = json!({ "block": true, "reason": "2 messages wait" });
        assert_eq!(
            claude_answer(Relayed::Stop, Some(block), &whole),
            json!({ "decision": "block", "reason": "2 messages wait" })
        );
        let free = json!({ "block": false, "reason": "" });
        assert_eq!(claude_answer(Relayed::Stop, Some(free), &whole), json!({}));
        let context = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": "mail" } });
        assert_eq!(
            claude_answer(Relayed::ToolStatus, Some(context.clone()), &whole),
            context
        );
        assert_eq!(
            claude_answer(Relayed::ToolStatus, Some(json!({ "ok": true })), &whole),
            json!({})
        );
        for kind in Relayed::ALL {
            assert_eq!(claude_answer(kind, None, &whole), json!({}), "{kind:?}");
        }
    }
}
