//! A small blocking client for the hub's API over its private socket (`<data dir>/hub.sock`), with the
//! token and the short timeouts hooks need.
//!
//! Never over TCP: while the hub is down, anyone on the machine can bind its port, and a client that kept
//! calling it would hand over its token and take the stand-in's answers for the hub's. The socket sits in
//! the 0700 data folder, where no other user can put one (`clawmux_core::layout::socket_path`).
//!
//! HTTP/1.1, one request per connection: the hub is a few microseconds away, and a hook makes one call.
//!
//! The hub of another machine (`--machine NAME`) is reached through the user's own `ssh`, which runs
//! `clawmux dial-stdio` there (`dial.rs`): the same requests, over the hub's link to that machine.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clawmux_api::commands::{Command, Request};
use clawmux_core::http1::{may_be_complete, parse_answer, Answer};
pub(crate) use clawmux_core::printable::printable;
use clawmux_core::wire::Code;
use serde_json::Value;

use crate::env::{HubAddr, HubArgs};

/// The most of an answer read (a page of history, an exported log), from this machine's hub or another's.
pub(crate) const MAX_ANSWER: usize = 256 * 1024 * 1024;

/// Why a call failed.
#[derive(Debug)]
pub enum CallError {
    /// The hub could not be reached (not running, timed out, or it broke off the answer).
    Unreachable(String),
    /// The hub's answer is not of the type its command answers (a hub of another version).
    Unreadable(String),
    /// The hub answered with an error.
    Api {
        /// HTTP status.
        status: u16,
        /// Its code; `None` when the answer carried none this command knows (a hub of another version).
        code: Option<Code>,
        /// Its message.
        message: String,
    },
}

impl From<CallError> for String {
    fn from(e: CallError) -> String {
        e.to_string()
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // What ssh said may come from the other machine (its shell, its banner).
            CallError::Unreachable(why) => {
                write!(f, "the hub is not reachable: {}", printable(why))
            }
            CallError::Unreadable(why) => f.write_str(why),
            CallError::Api {
                code: Some(code),
                message,
                ..
            } => write!(f, "{message} ({code})"),
            CallError::Api {
                code: None,
                message,
                status,
            } => write!(f, "{message} (HTTP {status})"),
        }
    }
}

/// How a client reaches its hub.
enum Transport {
    /// This machine's hub, at its private socket.
    Socket(PathBuf),
    /// Another machine's hub, through `ssh ... clawmux dial-stdio`.
    Ssh(Box<crate::dial::Dial>),
}

/// A client for one hub.
pub struct Client {
    transport: Transport,
    bearer: Option<String>,
    timeout: Duration,
}

impl Client {
    /// A client whose every call gives up after `timeout`.
    pub fn new(hub: &HubAddr, timeout: Duration) -> Client {
        Client {
            transport: Transport::Socket(hub.socket.clone()),
            bearer: hub.token.as_ref().map(|t| format!("Bearer {t}")),
            timeout,
        }
    }

    /// A client of the hub `args` name: this machine's, or with `--machine` another's over ssh.
    pub fn of(args: &HubArgs, timeout: Duration) -> Result<Client, String> {
        match &args.machine {
            Some(name) => Ok(Client::remote(
                crate::dial::Dial::to(&args.data_dir(), name, MAX_ANSWER)?,
                timeout,
            )),
            None => Ok(Client::new(&args.resolve()?, timeout)),
        }
    }

    /// A client of another machine's hub; its token comes with each dial's hello.
    pub fn remote(dial: crate::dial::Dial, timeout: Duration) -> Client {
        Client {
            transport: Transport::Ssh(Box::new(dial)),
            bearer: None,
            timeout,
        }
    }

    /// `POST path` with a JSON body, as `session` when given.
    pub fn post(&self, path: &str, session: Option<&str>, body: &[u8]) -> Result<Value, CallError> {
        let answer = self.exchange("POST", path, session, body)?;
        Self::json(answer)
    }

    /// `POST path` with `body` as JSON, as `session` when given; the answer read as `R` (a field renamed on
    /// either side is an error, never a silent zero).
    pub fn post_as<R: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        session: Option<&str>,
        body: &impl serde::Serialize,
    ) -> Result<R, CallError> {
        self.post_typed(path, session, body, path)
    }

    /// Runs a command of the hub's surface (`POST /api/command`): its answer, read as the type that command
    /// is paired with (a field renamed on either side is an error, never a silent zero).
    pub fn call<R: Request>(&self, request: R) -> Result<R::Reply, CallError> {
        let name = format!("`{}`", <&str>::from(R::NAME));
        let command: Command = request.into();
        self.post_typed("/api/command", None, &command, &name)
    }

    /// `POST path` with `body` as JSON, its answer read as `R`; `what` names the request in an error.
    fn post_typed<R: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        session: Option<&str>,
        body: &impl serde::Serialize,
        what: &str,
    ) -> Result<R, CallError> {
        let body = serde_json::to_vec(body)
            .map_err(|e| CallError::Unreadable(format!("{what} does not write: {e}")))?;
        let answer = self.post(path, session, &body)?;
        serde_json::from_value(answer).map_err(|e| {
            CallError::Unreadable(format!("the hub's answer to {what} does not read: {e}"))
        })
    }

    /// `GET path`, for an answer that is text rather than one JSON value (JSON lines).
    pub fn get_text(&self, path: &str) -> Result<String, CallError> {
        let answer = self.exchange("GET", path, None, b"")?;
        if (200..300).contains(&answer.status) {
            return Ok(String::from_utf8_lossy(&answer.body).into_owned());
        }
        Err(Self::error(&answer))
    }

    fn json(answer: Answer) -> Result<Value, CallError> {
        if (200..300).contains(&answer.status) {
            return Ok(inert(
                serde_json::from_slice(&answer.body).unwrap_or(Value::Null),
            ));
        }
        Err(Self::error(&answer))
    }

    fn error(answer: &Answer) -> CallError {
        let value: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        let field = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        CallError::Api {
            status: answer.status,
            code: field("code").and_then(|c| c.parse().ok()),
            message: printable(
                &field("message").unwrap_or_else(|| format!("HTTP {}", answer.status)),
            ),
        }
    }

    fn exchange(
        &self,
        method: &str,
        path: &str,
        session: Option<&str>,
        body: &[u8],
    ) -> Result<Answer, CallError> {
        let deadline = Instant::now() + self.timeout;
        let socket = match &self.transport {
            Transport::Socket(socket) => socket,
            Transport::Ssh(dial) => {
                return dial
                    .call(method, path, body, deadline)
                    .map_err(CallError::Unreachable);
            }
        };
        let mut stream = UnixStream::connect(socket).map_err(|e| {
            CallError::Unreachable(format!("cannot connect to {}: {e}", socket.display()))
        })?;
        stream
            .set_write_timeout(Some(self.timeout))
            .map_err(unreachable)?;
        let request = self.request(method, path, session, body);
        match stream.write_all(&request) {
            Ok(()) => {}
            // The hub may answer, and close, before it has read a body it does not need (a refusal): its
            // answer is read below.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                ) => {}
            Err(e) => return Err(unreachable(e)),
        }
        self.read_answer(&mut stream, deadline)
    }

    /// The request's bytes: an HTTP/1.1 head and the body.
    fn request(&self, method: &str, path: &str, session: Option<&str>, body: &[u8]) -> Vec<u8> {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(bearer) = &self.bearer {
            head.push_str(&format!("Authorization: {bearer}\r\n"));
        }
        if let Some(s) = session {
            head.push_str(&format!("ClawMux-Session: {s}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        request
    }

    /// Reads the hub's answer until it is whole, the hub closes, or the deadline passes.
    fn read_answer(&self, stream: &mut UnixStream, deadline: Instant) -> Result<Answer, CallError> {
        let mut raw = Vec::new();
        let mut chunk = [0u8; 64 * 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(CallError::Unreachable(format!(
                    "no answer within {:?}",
                    self.timeout
                )));
            }
            stream.set_read_timeout(Some(left)).map_err(unreachable)?;
            match stream.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) if raw.len() + n <= MAX_ANSWER => raw.extend_from_slice(&chunk[..n]),
                Ok(_) => return Err(CallError::Unreachable("the answer is too large".into())),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // The hub may close the moment its answer is out (a body it did not read makes the close
                // a reset): what arrived is the answer if it is whole.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => return Err(unreachable(e)),
            }
            // The cheap look first; the whole parse only when it says the answer may be whole.
            if may_be_complete(&raw) && parse_answer(&raw).is_some_and(|a| a.complete) {
                break;
            }
        }
        match parse_answer(&raw) {
            Some(answer) if answer.complete => Ok(answer),
            Some(_) | None => Err(CallError::Unreachable(
                "the hub broke off its answer".into(),
            )),
        }
    }
}

/// A hub's answer with every string made safe to print: what the commands print comes from agents (a
/// hostile one, or a hostile hub on another machine), and a terminal obeys the control characters it is
/// given (escape sequences can set its title, write the clipboard, or redraw what the user sees).
pub(crate) fn inert(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(printable(&s)),
        Value::Array(items) => Value::Array(items.into_iter().map(inert).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (printable(&k), inert(v)))
                .collect(),
        ),
        other @ (Value::Null | Value::Bool(_) | Value::Number(_)) => other,
    }
}

fn unreachable(e: std::io::Error) -> CallError {
    CallError::Unreachable(e.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::inert;

    #[test]
    fn what_is_printed_holds_no_escape_sequence() {
        let hostile = json!({"name\u{1b}]0;owned\u{7}": ["\u{1b}[2J\u{1b}]52;c;ZWNobw==\u{7}line\none\ttab\u{9b}31m"], "n": 3});
        assert_eq!(
            inert(hostile),
            json!({"name]0;owned": ["[2J]52;c;ZWNobw==line\none\ttab31m"], "n": 3})
        );
    }
}
