//! Watching and ending an agent's processes, without polling.
//!
//! A pidfd (Linux 5.3+) becomes readable when its process exits, whoever its parent is, so the hub learns
//! at once that an agent's process ended (a crash, `/exit`, a killed tmux) and costs nothing while it runs.
//! Ending an agent ends its whole tree: Claude Code's tools and servers are its descendants.

use std::collections::HashMap;
use std::time::Duration;

use rustix::process::{kill_process, pidfd_open, Pid, PidfdFlags, Signal};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// Waits until process `pid` has exited (returns at once if it is already gone).
pub async fn exited(pid: u32) -> std::io::Result<()> {
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return Ok(());
    };
    let fd = match pidfd_open(pid, PidfdFlags::NONBLOCK) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::SRCH) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    // Tokio deprecated the safe constructor because an `AsRawFd` type may close or swap its descriptor;
    // an `OwnedFd` moved into the `AsyncFd` can do neither, which is the guarantee `register` asks for.
    #[allow(deprecated)]
    let fd = AsyncFd::with_interest(fd, Interest::READABLE)?;
    let _ready = fd.readable().await?;
    Ok(())
}

/// Whether process `pid` still exists.
pub fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// `root` and all its descendants, parents first, read from `/proc`.
pub fn tree(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = parent_of(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while let Some(&pid) = out.get(i) {
        if let Some(kids) = children.get(&pid) {
            out.extend(kids);
        }
        i += 1;
    }
    out
}

/// The parent pid from `/proc/PID/stat` (the field after the command name, which may hold spaces or `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// The processes left from an agent after its main process died: its tools and `clawmux wait`, reparented
/// and out of its tree, recognised by the agent environment ClawMux gave them (its name and this hub's data
/// folder, so another hub's agent of the same name is never touched). Other users' processes are
/// unreadable and skipped.
pub fn leftovers(agent: &str, data_dir: &std::path::Path) -> Vec<u32> {
    let session = format!("CLAWMUX_SESSION_ID={agent}");
    let home = format!("CLAWMUX_HOME={}", data_dir.display());
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                let mut vars = env.split(|&b| b == 0);
                let (mut has_session, mut has_home) = (false, false);
                for v in &mut vars {
                    has_session |= v == session.as_bytes();
                    has_home |= v == home.as_bytes();
                }
                has_session && has_home
            })
        })
        .collect()
}

fn signal(pids: &[u32], sig: Signal) {
    for &pid in pids {
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            // Gone already, or not ours: nothing to do either way.
            let _ = kill_process(pid, sig);
        }
    }
}

/// Ends `root`'s whole tree (see [`end`]).
pub async fn end_tree(root: u32, grace: Duration) -> std::io::Result<()> {
    // Finding the tree reads /proc (every process's stat where the kernel keeps no children lists).
    let pids = tokio::task::spawn_blocking(move || tree(root))
        .await
        .unwrap_or_else(|_| vec![root]);
    end(pids, grace).await
}

/// Ends `pids`: SIGTERM to every one, then, after `grace`, SIGKILL to any still there. Returns once every
/// one of them has exited.
pub async fn end(pids: Vec<u32>, grace: Duration) -> std::io::Result<()> {
    signal(&pids, Signal::TERM);
    if tokio::time::timeout(grace, all_exited(&pids))
        .await
        .is_err()
    {
        tracing::warn!(?pids, "processes ignored SIGTERM; killing them");
        let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        signal(&left, Signal::KILL);
    }
    all_exited(&pids).await
}

async fn all_exited(pids: &[u32]) -> std::io::Result<()> {
    for &pid in pids {
        exited(pid).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_tree_ends_and_its_exit_is_seen() {
        // sh starts two sleeping children and says so; all three must end.
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & echo ready; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let root = child.id().unwrap();
        let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)
            .await
            .unwrap();
        let kids = tree(root);
        assert_eq!(kids.len(), 3, "{kids:?}");
        let reaper = tokio::spawn(async move { child.wait().await });
        tokio::time::timeout(
            Duration::from_secs(5),
            end_tree(root, Duration::from_secs(2)),
        )
        .await
        .unwrap()
        .unwrap();
        reaper.await.unwrap().unwrap();
        for pid in kids {
            // Zombies of the sleeps are reaped by init once sh is gone; they no longer run.
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            assert!(
                state.is_empty() || state.contains(") Z"),
                "{pid} still runs: {state}"
            );
        }
    }

    #[tokio::test]
    async fn a_gone_process_has_exited() {
        exited(u32::MAX).await.unwrap();
        assert!(!alive(u32::MAX));
    }
}
