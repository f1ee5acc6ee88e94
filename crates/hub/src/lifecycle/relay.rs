//! An agent's hook relay, started with its process: `clawmux hook relay` (the CLI's `relay.rs`) holds a
//! loopback port for as long as the agent lives and forwards the hooks Claude Code posts there to the
//! hub's private socket. Here the hub starts it, hands it the agent's key, learns its port (for the
//! settings it writes), and, once tmux has started the agent, tells it the PID to live as long as.
//!
//! The key is made here, for this one process of the agent: a restart makes a new relay and a new key, and
//! the old relay ends with the old process, its key with it.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use clawmux_core::hook::relay::HookKey;
use clawmux_core::wire::Code;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use crate::error::HubError;

/// How long a relay may take to say its port.
const READY_WITHIN: Duration = Duration::from_secs(10);

/// A relay started for an agent that is not yet running.
pub(crate) struct Relay {
    /// The loopback port it holds.
    pub port: u16,
    /// The key the agent's hooks carry.
    pub key: HookKey,
    stdin: ChildStdin,
    /// Kept so that the relay is reaped when it ends; it is never killed from here.
    _child: Child,
}

impl Relay {
    /// Starts `clawmux hook relay NAME` for the hub of `data_dir` and waits for its port. Dropped without
    /// [`Relay::watch`] (the agent did not start), the relay ends by itself.
    pub(crate) async fn start(
        clawmux: &Path,
        data_dir: &Path,
        name: &str,
        idle: std::time::Duration,
    ) -> Result<Relay, HubError> {
        let failed = |why: String| {
            HubError::new(
                Code::Internal,
                format!("cannot start the hook relay of {name}: {why}"),
            )
        };
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| failed(e.to_string()))?;
        let key = HookKey::from_bytes(bytes);
        let mut child = Command::new(clawmux)
            .arg("hook")
            .arg("relay")
            .arg(name)
            .arg("--data-dir")
            .arg(data_dir)
            .arg("--idle-ms")
            .arg(idle.as_millis().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own process group: a Ctrl-C meant for the hub, or tmux ending the agent's session,
            // does not end it; the end of the agent's process does.
            .process_group(0)
            .spawn()
            .map_err(|e| failed(e.to_string()))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(failed("no pipes".to_owned()));
        };
        stdin
            .write_all(format!("{}\n", key.as_str()).as_bytes())
            .await
            .map_err(|e| failed(e.to_string()))?;
        let mut line = String::new();
        let said =
            tokio::time::timeout(READY_WITHIN, BufReader::new(stdout).read_line(&mut line)).await;
        let port = match said {
            Ok(Ok(_)) => line.trim().parse::<u16>().ok().filter(|p| *p != 0),
            Ok(Err(_)) | Err(_) => None,
        }
        .ok_or_else(|| failed(format!("it said {:?} for its port", line.trim())))?;
        Ok(Relay {
            port,
            key,
            stdin,
            _child: child,
        })
    }

    /// Tells the relay the agent's PID: it lives until that process ends.
    pub(crate) async fn watch(mut self, pid: u32) {
        let _ = self.stdin.write_all(format!("{pid}\n").as_bytes()).await;
        let _ = self.stdin.shutdown().await;
    }
}
