//! A link to another machine's hub, kept open: one `ssh ... clawmux dial-stdio` (the user's own ssh),
//! over which HTTP/1.1 requests go one after another on the same connection (keep-alive), so that a call
//! costs a round trip through the SSH channel rather than a new login.
//!
//! A link that breaks is dialled again on the next call, not sooner than its back-off allows
//! (`backoff.rs`). A call is made again by itself only when it surely never reached the other hub: the
//! kept connection's ssh had ended, or the request could not be written to it. Anything else is the
//! caller's to decide, with the same client id, so that a message sent twice is stored once.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use clawmux_core::http1::{may_be_complete, parse_answer, Answer};
use clawmux_core::remote::{dial_args, DialFailure, Hello, MachineName, SshTarget, DIAL_VERSION};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::backoff::Backoff;

/// The longest hello line read.
const MAX_HELLO: u64 = 4096;
/// The largest answer read, unless the link's owner says otherwise.
const MAX_ANSWER: usize = 64 * 1024 * 1024;
/// How long a dial may take, from ssh's start to the hello.
const DIAL_WITHIN: Duration = Duration::from_secs(20);

/// Why a call through a link failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The machine could not be dialled; what to do is in the words.
    #[error("{0}")]
    Dial(String),
    /// The link broke, or the machine did not answer in time; nothing says whether the remote hub
    /// acted on the request.
    #[error("the link to `{machine}` broke: {why}")]
    Down {
        /// The machine.
        machine: MachineName,
        /// What happened.
        why: String,
    },
    /// The last dial failed and the next is not due yet.
    #[error("`{machine}` is not reachable; trying again in {} s", .retry_in.as_secs_f32().ceil())]
    Waiting {
        /// The machine.
        machine: MachineName,
        /// When the next dial may be made.
        retry_in: Duration,
    },
}

/// How one call failed.
enum Failure {
    /// Before the whole request reached ssh: the other hub cannot have acted on it.
    NotSent(String),
    /// After: nothing says whether it acted.
    Broken(String),
    /// No connection could be had.
    Link(LinkError),
}

/// An open dial.
struct Conn {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    bearer: String,
}

/// What a link holds between calls.
#[derive(Default)]
struct State {
    conn: Option<Conn>,
    backoff: Backoff,
    /// No dial before then, after a failure.
    retry_at: Option<Instant>,
}

/// A link to one machine.
pub struct Link {
    machine: MachineName,
    target: SshTarget,
    ssh_config: Option<PathBuf>,
    /// The largest answer read.
    max_answer: usize,
    state: Mutex<State>,
}

impl Link {
    /// A link to `machine` at `target`, dialled on the first call; `ssh_config` replaces the user's ssh
    /// config when given.
    pub fn new(machine: MachineName, target: SshTarget, ssh_config: Option<PathBuf>) -> Link {
        Link {
            machine,
            target,
            ssh_config,
            max_answer: MAX_ANSWER,
            state: Mutex::new(State::default()),
        }
    }

    /// The same link, reading answers of up to `max` bytes.
    pub fn with_max_answer(self, max: usize) -> Link {
        Link {
            max_answer: max,
            ..self
        }
    }

    /// One request to the machine's hub (`body` as JSON), answered within `within`.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        within: Duration,
    ) -> Result<Answer, LinkError> {
        let mut state = self.state.lock().await;
        // A kept connection whose ssh ended (killed, its network gone) is no connection.
        if let Some(conn) = state.conn.as_mut() {
            if !matches!(conn.child.try_wait(), Ok(None)) {
                state.conn = None;
            }
        }
        let reused = state.conn.is_some();
        match self.call_on(&mut state, method, path, body, within).await {
            // It never left: a kept connection that broke while idle. Once more, on a new one.
            Err(Failure::NotSent(_)) if reused => {
                match self.call_on(&mut state, method, path, body, within).await {
                    Err(Failure::NotSent(why)) => Err(self.down(&why)),
                    other => other.map_err(|f| self.failed(f)),
                }
            }
            other => other.map_err(|f| self.failed(f)),
        }
    }

    fn failed(&self, failure: Failure) -> LinkError {
        match failure {
            Failure::Link(e) => e,
            Failure::NotSent(why) | Failure::Broken(why) => self.down(&why),
        }
    }

    /// One call, dialling first when no connection is kept.
    async fn call_on(
        &self,
        state: &mut State,
        method: &str,
        path: &str,
        body: &[u8],
        within: Duration,
    ) -> Result<Answer, Failure> {
        if state.conn.is_none() {
            if let Some(at) = state.retry_at.filter(|at| *at > Instant::now()) {
                return Err(Failure::Link(LinkError::Waiting {
                    machine: self.machine.clone(),
                    retry_in: at - Instant::now(),
                }));
            }
            match self.dial().await {
                Ok(conn) => {
                    state.backoff.reset();
                    state.retry_at = None;
                    state.conn = Some(conn);
                }
                Err(e) => {
                    let wait = state.backoff.after_failure(fastrand::f64());
                    state.retry_at = Some(Instant::now() + wait);
                    return Err(Failure::Link(e));
                }
            }
        }
        let Some(conn) = state.conn.as_mut() else {
            return Err(Failure::NotSent("no connection".into()));
        };
        let request = request(method, path, &conn.bearer, body);
        match tokio::time::timeout(within, exchange(conn, &request, self.max_answer)).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(failure)) => {
                state.conn = None;
                Err(failure)
            }
            Err(_) => {
                state.conn = None;
                Err(Failure::Broken(format!("no answer within {within:?}")))
            }
        }
    }

    /// Whether the link is open now.
    pub async fn is_open(&self) -> bool {
        self.state.lock().await.conn.is_some()
    }

    /// Closes the link (the next call dials again, at once).
    pub async fn close(&self) {
        let mut state = self.state.lock().await;
        state.conn = None;
        state.retry_at = None;
    }

    fn down(&self, why: &str) -> LinkError {
        LinkError::Down {
            machine: self.machine.clone(),
            why: why.to_owned(),
        }
    }

    /// Runs ssh and reads the hello.
    async fn dial(&self) -> Result<Conn, LinkError> {
        let d = dial(&self.machine, &self.target, self.ssh_config.as_deref()).await?;
        Ok(Conn {
            child: d.child,
            stdin: d.stdin,
            stdout: d.stdout,
            bearer: format!("Bearer {}", d.token),
        })
    }
}

/// A dial's process and streams after its hello.
struct Dialled {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The machine's hub's token.
    token: String,
}

/// Runs `ssh ... clawmux dial-stdio` and reads its hello; why not, in words that say what to do.
async fn dial(
    machine: &MachineName,
    target: &SshTarget,
    ssh_config: Option<&std::path::Path>,
) -> Result<Dialled, LinkError> {
    let mut child = Command::new("ssh")
        .args(dial_args(target, ssh_config))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| LinkError::Dial(format!("cannot run ssh: {e}")))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(LinkError::Dial("ssh's pipes are missing".into()));
    };
    let mut stdout = BufReader::new(stdout);
    let mut line = Vec::new();
    let read = tokio::time::timeout(
        DIAL_WITHIN,
        (&mut stdout).take(MAX_HELLO).read_until(b'\n', &mut line),
    )
    .await;
    let fail = |why: DialFailure| LinkError::Dial(why.explain(machine));
    match read {
        Ok(Ok(n)) if n > 0 && line.ends_with(b"\n") => {}
        Ok(_) => {
            // ssh ended before a hello: why is in how it ended and what it said.
            let status = child.wait().await.ok().and_then(|s| s.code());
            let mut said = String::new();
            let _ = (&mut stderr)
                .take(64 * 1024)
                .read_to_string(&mut said)
                .await;
            return Err(fail(DialFailure::of(status, &said)));
        }
        Err(_) => {
            return Err(fail(DialFailure::Unreachable(format!(
                "no answer within {DIAL_WITHIN:?}"
            ))))
        }
    }
    let hello: Hello = serde_json::from_slice(&line).map_err(|_| fail(DialFailure::TooOld))?;
    if hello.dial != DIAL_VERSION {
        return Err(fail(DialFailure::TooOld));
    }
    // What ssh says later (the link dropping) is not read; a pipe it fills would stall it, so it goes.
    tokio::spawn(async move {
        let _ = tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await;
    });
    Ok(Dialled {
        child,
        stdin,
        stdout,
        token: hello.token,
    })
}

/// A dial's standard streams as one.
pub type DialStream = tokio::io::Join<BufReader<ChildStdout>, ChildStdin>;

/// Dials `machine` and opens a WebSocket to its hub over the dial: `request(token)` is the request, given
/// that hub's token. The ssh process comes with it: the WebSocket lives as long as it does.
pub(super) async fn websocket(
    machine: &MachineName,
    target: &SshTarget,
    ssh_config: Option<&std::path::Path>,
    request: impl FnOnce(
        &str,
    )
        -> Result<tokio_tungstenite::tungstenite::handshake::client::Request, String>,
) -> Result<(tokio_tungstenite::WebSocketStream<DialStream>, Child), String> {
    let d = dial(machine, target, ssh_config)
        .await
        .map_err(|e| e.to_string())?;
    let request = request(&d.token)?;
    let (ws, _) = tokio_tungstenite::client_async(request, tokio::io::join(d.stdout, d.stdin))
        .await
        .map_err(|e| format!("`{machine}`'s hub refused: {e}"))?;
    Ok((ws, d.child))
}

impl Drop for Conn {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The request's bytes: an HTTP/1.1 head (the connection kept open) and the body.
fn request(method: &str, path: &str, bearer: &str, body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Authorization: {bearer}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Sends a request and reads its whole answer; why not, when the link broke.
async fn exchange(conn: &mut Conn, request: &[u8], max: usize) -> Result<Answer, Failure> {
    // A request not handed whole to ssh never reached the other hub whole: it cannot have acted on it.
    conn.stdin
        .write_all(request)
        .await
        .map_err(|e| Failure::NotSent(e.to_string()))?;
    conn.stdin
        .flush()
        .await
        .map_err(|e| Failure::NotSent(e.to_string()))?;
    read_answer(conn, max).await.map_err(Failure::Broken)
}

/// Reads one whole answer.
async fn read_answer(conn: &mut Conn, max: usize) -> Result<Answer, String> {
    let mut raw = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    while !may_be_complete(&raw) {
        let n = conn
            .stdout
            .read(&mut chunk)
            .await
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection ended".into());
        }
        if raw.len() + n > max {
            return Err("the answer is too large".into());
        }
        raw.extend_from_slice(&chunk[..n]);
    }
    match parse_answer(&raw) {
        Some(answer) if answer.complete => Ok(answer),
        Some(_) | None => Err("the answer could not be read".into()),
    }
}
