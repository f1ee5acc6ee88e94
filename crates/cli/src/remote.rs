//! Other machines: `clawmux remote add|list|remove`, and the dial that reaches a machine's hub through the
//! user's own `ssh` (`--machine NAME` of the commands that talk to a hub).
//!
//! Why through ssh and `dial-stdio`: no port is opened on either machine and nothing of ours listens on a
//! network; the user's ssh brings its config, keys, agent, known hosts and jump hosts, and refuses a host
//! whose key changed. The remote `clawmux dial-stdio` connects its standard input and output to that
//! machine's hub, starting it if it does not run, after one line of hello (its version and the hub's
//! token, which never crosses a command line and is kept only in this process's memory).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use std::path::Path;

use clawmux_core::remote::{dial_args, DialFailure, Hello, MachineName, SshTarget, DIAL_VERSION};
use clawmux_hub::machines::Machines;

use clawmux_core::http1::may_be_complete;

use crate::client::{CallError, Client, MAX_ANSWER};
use crate::env::HubArgs;

/// The longest hello line read.
const MAX_HELLO: usize = 4096;

/// One machine's hub, reached by running ssh once per call.
pub struct Dial {
    machine: MachineName,
    target: SshTarget,
}

impl Dial {
    /// The machine `name` of the list in `data_dir`.
    pub fn to(data_dir: &std::path::Path, name: &str) -> Result<Dial, String> {
        let machines = Machines::load(data_dir).map_err(|e| e.to_string())?;
        let (machine, target) = machines.get(name).map_err(|e| e.to_string())?;
        Ok(Dial {
            machine,
            target: target.clone(),
        })
    }

    /// The ssh command: the user's ssh, with `CLAWMUX_SSH_CONFIG` as its config file when set.
    fn command(&self) -> Command {
        let config = std::env::var_os("CLAWMUX_SSH_CONFIG").filter(|c| !c.is_empty());
        let mut ssh = Command::new("ssh");
        ssh.args(dial_args(&self.target, config.as_deref().map(Path::new)));
        ssh
    }

    /// Runs one HTTP exchange: reads the hello, sends `request(bearer)`, and returns the hub's raw answer
    /// (the remote hub closes after it).
    pub fn call(
        &self,
        request: impl Fn(&str) -> Vec<u8>,
        deadline: Instant,
    ) -> Result<Vec<u8>, CallError> {
        let mut child = self
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| CallError::Unreachable(format!("cannot run ssh: {e}")))?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(CallError::Unreachable("ssh's pipes are missing".into()));
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
                    return Err(CallError::Unreachable("the answer is too large".into()));
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

    fn fail(&self, why: DialFailure) -> CallError {
        CallError::Unreachable(why.explain(&self.machine))
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
) -> Result<bool, CallError> {
    let left = deadline.saturating_duration_since(Instant::now());
    match chunks.recv_timeout(left) {
        Ok(chunk) => {
            raw.extend_from_slice(&chunk);
            Ok(true)
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => Ok(false),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(CallError::Unreachable(
            "no answer from the remote hub in time".into(),
        )),
    }
}

/// `clawmux remote add NAME ssh://...`: keeps the machine, then tries it and says what it found.
pub fn add(args: &HubArgs, name: &str, url: &str) -> Result<(), String> {
    let machine = MachineName::parse(name).map_err(|e| e.to_string())?;
    let target = SshTarget::parse(url).map_err(|e| e.to_string())?;
    let mut machines = Machines::load(&args.data_dir()).map_err(|e| e.to_string())?;
    machines
        .add(machine.clone(), target.clone())
        .map_err(|e| e.to_string())?;
    println!("added {machine} ({target})");
    let dial = Dial { machine, target };
    match Client::remote(dial, Duration::from_secs(30)).get("/api/sessions") {
        Ok(sessions) => println!(
            "reached: its hub runs, with {} agent(s)",
            sessions.as_array().map_or(0, Vec::len)
        ),
        Err(e) => println!("not reached yet: {e}"),
    }
    Ok(())
}

/// `clawmux remote list`.
pub fn list(args: &HubArgs) -> Result<(), String> {
    let machines = Machines::load(&args.data_dir()).map_err(|e| e.to_string())?;
    let mut any = false;
    for (name, at) in machines.iter() {
        println!("{name:<16} {at}");
        any = true;
    }
    if !any {
        println!("no other machine yet: clawmux remote add NAME ssh://[user@]host[:port]");
    }
    Ok(())
}

/// `clawmux remote remove NAME`: forgets the machine (its hub and agents go on there).
pub fn remove(args: &HubArgs, name: &str) -> Result<(), String> {
    let mut machines = Machines::load(&args.data_dir()).map_err(|e| e.to_string())?;
    let at = machines.remove(name).map_err(|e| e.to_string())?;
    println!("removed {name} ({at}); its hub and agents go on there");
    Ok(())
}
