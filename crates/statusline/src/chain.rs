//! The user's own status-line command, chained: run with the payload, its line shown if it gives one in
//! time, else the whole of it killed.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

/// The most of a chained command's output shown.
const MAX_LINE: usize = 4096;

/// Runs `command` with the payload on its stdin, in a process group of its own; its output if it ended
/// well, with something to show, before `deadline`. Else the whole group is killed.
pub(crate) fn run(command: &str, payload: &[u8], deadline: Instant) -> Option<Vec<u8>> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let pid = child.id();
    let (mut stdin, mut stdout) = (child.stdin.take()?, child.stdout.take()?);
    let payload = payload.to_vec();
    // Written and read on threads: a command that reads nothing, or never ends, blocks only them.
    std::thread::spawn(move || {
        let _ = stdin.write_all(&payload);
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_LINE as u64).read_to_end(&mut out);
        let status = child.wait();
        let _ = tx.send((out, status.is_ok_and(|s| s.success())));
    });
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok((out, true)) if out.iter().any(|b| !b.is_ascii_whitespace()) => Some(out),
        Ok(_) => None,
        Err(_) => {
            // The whole group: a pipeline's commands with the shell that leads them (a signal, not a
            // `kill` process, which a loaded machine is slow to start).
            if let Some(group) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            None
        }
    }
}
