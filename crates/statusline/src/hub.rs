//! Where the payload is reported: the hub of the agent's environment (`CLAWMUX_SESSION_ID`, its data
//! folder in `CLAWMUX_HOME`), else, for an observed session, the hub of the data folder named by the
//! payload's session id. Always at the hub's private socket, never a TCP port another user could bind
//! while the hub is down. One `POST /api/usage`, given 25 ms: loopback answers in well under one.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clawmux_core::http1::{may_be_complete, parse_answer};
use clawmux_core::layout;

/// The hub's share of the 50 ms.
const HUB_WAIT: Duration = Duration::from_millis(25);
/// The most of the hub's answer read (its figures for the agent).
const MAX_ANSWER: usize = 64 * 1024;

/// Where one refresh is reported, and where the chained command's last good line is kept.
pub(crate) struct Report {
    socket: PathBuf,
    /// The agent's name; `None` for an observed session (the payload's session id names it).
    session: Option<String>,
    /// The hub's token, only if the agent was given one (an older hub's agents were): agents need none.
    token: Option<String>,
    /// The chained command's last good line (in the hub's 0700 data folder).
    pub(crate) last_line: PathBuf,
}

impl Report {
    /// An agent ClawMux started is itself, whatever its settings say; else an observed session, if
    /// `observe` says so (with its data folder, if one was named), whose payload names a session id.
    pub(crate) fn find(observe: Option<Option<&Path>>, payload: &[u8]) -> Option<Report> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let data_dir = |named: Option<&Path>| {
            named.map_or_else(
                || layout::data_dir(std::env::var_os("CLAWMUX_HOME"), std::env::var_os("HOME")),
                Path::to_owned,
            )
        };
        if let Some(session) = var("CLAWMUX_SESSION_ID") {
            let data_dir = data_dir(None);
            return Some(Report {
                socket: layout::socket_path(&data_dir),
                last_line: layout::launch_dir(&data_dir, &session).join("statusline.last"),
                session: Some(session),
                token: var("CLAWMUX_TOKEN"),
            });
        }
        let data_dir = data_dir(observe?);
        let socket = layout::socket_path(&data_dir);
        if !socket.exists() {
            return None;
        }
        let value: serde_json::Value = serde_json::from_slice(payload).ok()?;
        let id = value.get("session_id")?.as_str()?;
        layout::session_id_ok(id).then(|| Report {
            socket,
            session: None,
            token: None,
            last_line: layout::observed_status_line(&data_dir, id),
        })
    }

    /// Posts the payload and waits for the hub's answer, for at most [`HUB_WAIT`]; what it says is not
    /// the line's business (the hub logs its own errors).
    pub(crate) fn send(self, payload: &[u8]) {
        let deadline = Instant::now() + HUB_WAIT;
        let Ok(mut stream) = UnixStream::connect(&self.socket) else {
            return;
        };
        let mut head = format!(
            "POST /api/usage HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            payload.len()
        );
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        if let Some(session) = &self.session {
            head.push_str(&format!("ClawMux-Session: {session}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(payload);
        if stream.set_write_timeout(Some(HUB_WAIT)).is_err() || stream.write_all(&request).is_err()
        {
            return;
        }
        // Read until the answer is whole: the hub has then taken the payload.
        let mut raw = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
                return;
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) if raw.len() + n <= MAX_ANSWER => raw.extend_from_slice(&chunk[..n]),
                Ok(_) => return,
            }
            if may_be_complete(&raw) && parse_answer(&raw).is_some_and(|a| a.complete) {
                return;
            }
        }
    }
}
