//! The ssh transport of the `clawmux` command: one `ssh ... clawmux dial-stdio` per call, which reaches
//! another machine's hub (`--machine NAME`). The hello line gives that hub's token, which is kept in this
//! process's memory for the call and never crosses a command line.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

use clawmux_core::http1::may_be_complete;
use clawmux_core::remote::{
    attach_args, dial_args, DialFailure, Hello, MachineName, SshTarget, DIAL_VERSION,
};
use clawmux_hub::machines::list::MachineList;

/// The longest hello line read.
const MAX_HELLO: usize = 4096;

/// The largest answer read.
const MAX_ANSWER: usize = 256 * 1024 * 1024;

/// One machine's hub, reached by running ssh once per call.
pub struct Dial {
    machine: MachineName,
    target: SshTarget,
}

/// The ssh config file named for ClawMux (`CLAWMUX_SSH_CONFIG`), if any.
fn ssh_config() -> Option<std::path::PathBuf> {
    std::env::var_os("CLAWMUX_SSH_CONFIG")
        .filter(|c| !c.is_empty())
        .map(std::path::PathBuf::from)
}

/// Why a dial failed, in words that say what to do.
#[derive(Debug)]
pub struct DialError(pub String);

impl Dial {
    /// A dial of `machine` at `target`.
    pub fn new(machine: MachineName, target: SshTarget) -> Dial {
        Dial { machine, target }
    }

    /// The machine `name` of the list in `data_dir`.
    pub fn to(data_dir: &Path, name: &str) -> Result<Dial, String> {
        let machines = MachineList::load(data_dir).map_err(|e| e.to_string())?;
        let (machine, target) = machines.get(name).map_err(|e| e.to_string())?;
        Ok(Dial {
            machine,
            target: target.clone(),
        })
    }

    /// The ssh command: the user's ssh, with `CLAWMUX_SSH_CONFIG` as its config file when set.
    fn command(&self) -> Command {
        let mut ssh = Command::new("ssh");
        ssh.args(dial_args(&self.target, ssh_config().as_deref()));
        ssh
    }

    /// Replaces this process with `ssh -t ... clawmux attach NAME` (returns only why it could not).
    pub fn attach(&self, name: &str) -> String {
        use std::os::unix::process::CommandExt;
        let args = match attach_args(&self.target, ssh_config().as_deref(), name) {
            Ok(args) => args,
            Err(e) => return e.to_string(),
        };
        let err = Command::new("ssh").args(args).exec();
        format!("cannot run ssh: {err}")
    }

    /// Runs one HTTP exchange: reads the hello, sends `request(bearer)`, and returns the hub's raw answer
    /// (the remote hub closes after it).
    pub fn call(
        &self,
        request: impl Fn(&str) -> Vec<u8>,
        deadline: Instant,
    ) -> Result<Vec<u8>, DialError> {
        let mut child = self
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| DialError(format!("cannot run ssh: {e}")))?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(DialError("ssh's pipes are missing".into()));
        };
        let chunks = pump(stdout);
        let said = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.take(64 * 1024).read_to_string(&mut text);
            text
        });
        let outcome = (|| {
            let mut raw = Vec::new();
            let hello = loop {
                if let Some(end) = raw.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = raw.drain(..=end).collect();
                    break line;
                }
                if raw.len() > MAX_HELLO || !next(&chunks, &mut raw, deadline)? {
                    return Ok(None);
                }
            };
            let hello: Hello = match serde_json::from_slice(&hello) {
                Ok(h) => h,
                Err(_) => return Err(self.fail(DialFailure::TooOld)),
            };
            if hello.dial != DIAL_VERSION {
                return Err(self.fail(DialFailure::TooOld));
            }
            let bytes = request(&format!("Bearer {}", hello.token));
            // The hub may answer a refusal before reading all of it; its answer is read below.
            let _ = stdin.write_all(&bytes).and_then(|()| stdin.flush());
            while !may_be_complete(&raw) {
                if raw.len() > MAX_ANSWER {
                    return Err(DialError("the answer is too large".into()));
                }
                if !next(&chunks, &mut raw, deadline)? {
                    break;
                }
            }
            Ok(Some(raw))
        })();
        drop(stdin);
        match outcome {
            Ok(Some(raw)) => {
                let _ = child.kill();
                let _ = child.wait();
                Ok(raw)
            }
            Ok(None) => {
                // ssh ended before a hello: why is in its exit status and what it said.
                let status = child.wait().ok().and_then(|s| s.code());
                let said = said.join().unwrap_or_default();
                Err(self.fail(DialFailure::of(status, &said)))
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    fn fail(&self, why: DialFailure) -> DialError {
        DialError(why.explain(&self.machine))
    }
}

/// Reads `from` on a thread of its own, chunk by chunk, so the caller can wait with a deadline.
fn pump(mut from: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(chunk[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// Appends the next chunk to `raw`; false at the end of the stream.
fn next(
    chunks: &mpsc::Receiver<Vec<u8>>,
    raw: &mut Vec<u8>,
    deadline: Instant,
) -> Result<bool, DialError> {
    let left = deadline.saturating_duration_since(Instant::now());
    match chunks.recv_timeout(left) {
        Ok(chunk) => {
            raw.extend_from_slice(&chunk);
            Ok(true)
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => Ok(false),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Err(DialError("no answer from the remote hub in time".into()))
        }
    }
}
