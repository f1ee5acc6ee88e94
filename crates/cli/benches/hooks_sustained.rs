//! Hooks under sustained load, as several busy agents send them: each hook a new connection to the hub's
//! private socket (as every `clawmux hook` process makes one), from 6 agents at once, paced at about
//! 2,000 hooks a second, for 65 s (`BENCH_SECONDS`): enough to pass the store's WAL limit (8 MB) many
//! times. Prints the latency of a hook's request (p50, p99, p99.9 and the maximum; goals: max < 10 ms,
//! p99.9 < 2 ms), the slowest hooks' times (a checkpoint that holds the writer shows as slow hooks 1 s
//! apart), the WAL's largest size, and the hub's CPU per hook.
//!
//! Run: `cargo bench -p clawmux --bench hooks_sustained` (also in `scripts/bench`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "hub/support.rs"]
#[allow(dead_code)]
mod support;

use support::{ms, Hub};

const AGENTS: usize = 6;
/// Each agent's pause between two of its hooks (its model and tools at work).
const PACE: Duration = Duration::from_millis(3);

/// One hook over a new connection to the private socket; returns how long the request took.
fn hook(socket: &Path, agent: &str, body: &str) -> Duration {
    let start = Instant::now();
    let mut s = UnixStream::connect(socket).unwrap();
    let request = format!(
        "POST /api/hooks/tool-status HTTP/1.1\r\nHost: localhost\r\nClawMux-Session: {agent}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let took = start.elapsed();
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    took
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(65);
    let hub = Hub::start(tempfile::tempdir().unwrap());
    let http = hub.http();
    let data = hub.dir.path().join("data");
    let socket = data.join("hub.sock");
    // Each agent's transcript exists, as a running Claude Code's does: the hub watches it once.
    let transcripts: Vec<String> = (0..AGENTS)
        .map(|a| {
            hub.add(&http, &format!("busy{a}"));
            let folder = hub.dir.path().join(format!(".claude/projects/p{a}"));
            std::fs::create_dir_all(&folder).unwrap();
            let file = folder.join("s.jsonl");
            std::fs::write(&file, "").unwrap();
            file.to_str().unwrap().to_owned()
        })
        .collect();
    let wal = data.join("clawmux.db-wal");
    let stop = Arc::new(AtomicBool::new(false));
    let wal_max = Arc::new(AtomicU64::new(0));
    let watcher = {
        let (stop, wal_max, wal) = (stop.clone(), wal_max.clone(), wal.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let len = std::fs::metadata(&wal).map_or(0, |m| m.len());
                wal_max.fetch_max(len, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let started = Instant::now();
    let cpu_before = hub.cpu();
    let samples = Arc::new(Mutex::new(Vec::<(Duration, Duration)>::new()));
    let threads: Vec<_> = (0..AGENTS)
        .map(|a| {
            let (stop, samples, socket) = (stop.clone(), samples.clone(), socket.clone());
            let transcript = transcripts[a].clone();
            std::thread::spawn(move || {
                let agent = format!("busy{a}");
                let cwd = format!("/home/user/code/project-{a}");
                let mut mine = Vec::new();
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let body = if i.is_multiple_of(2) {
                        serde_json::json!({
                            "hook_event_name": "PreToolUse", "session_id": format!("c-{agent}"), "cwd": cwd,
                            "transcript_path": transcript,
                            "permission_mode": "default", "tool_name": "Edit", "tool_use_id": format!("toolu_{a}_{i}"),
                            "tool_input": {"file_path": format!("{cwd}/src/lib.rs"), "old_string": "fn old() {}", "new_string": "fn new() { println!(\"hello\"); }"},
                        })
                    } else {
                        serde_json::json!({
                            "hook_event_name": "PostToolUse", "session_id": format!("c-{agent}"), "cwd": cwd,
                            "tool_name": "Edit", "tool_use_id": format!("toolu_{a}_{}", i - 1), "duration_ms": 12,
                        })
                    }
                    .to_string();
                    let at = started.elapsed();
                    mine.push((at, hook(&socket, &agent, &body)));
                    i += 1;
                    std::thread::sleep(PACE);
                }
                samples.lock().unwrap().extend(mine);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    watcher.join().unwrap();
    let elapsed = started.elapsed();
    let cpu_used = hub.cpu() - cpu_before;
    let mut samples = std::mem::take(&mut *samples.lock().unwrap());
    // The first second warms up (the page cache, the first WAL).
    samples.retain(|(at, _)| *at > Duration::from_secs(1));
    let n = samples.len();
    let mut by_time = samples.clone();
    by_time.sort_by_key(|s| std::cmp::Reverse(s.1));
    let mut lat: Vec<Duration> = samples.iter().map(|s| s.1).collect();
    lat.sort();
    let at = |p: f64| lat[((n as f64 * p) as usize).min(n - 1)];
    println!(
        "sustained hooks from {AGENTS} agents, a new connection each, {:.0} s: {n} hooks, {:.0} per second",
        elapsed.as_secs_f64(),
        n as f64 / elapsed.as_secs_f64()
    );
    println!(
        "hook latency: p50 {}, p99 {}, p99.9 {}, max {} (goals: p99.9 < 2 ms, max < 10 ms)",
        ms(at(0.50)),
        ms(at(0.99)),
        ms(at(0.999)),
        ms(lat[n - 1])
    );
    let slow: Vec<String> = by_time
        .iter()
        .take(8)
        .map(|(at, took)| format!("{} at {:.2} s", ms(*took), at.as_secs_f64()))
        .collect();
    println!("the slowest hooks: {}", slow.join(", "));
    println!(
        "the WAL's largest size: {:.1} MB (limit 8 MB); the hub's CPU per hook: {:.3} ms",
        wal_max.load(Ordering::Relaxed) as f64 / 1e6,
        cpu_used.as_secs_f64() * 1e3 / n as f64
    );
}
