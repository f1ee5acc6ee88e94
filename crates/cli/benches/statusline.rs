//! The status-line bridge's cost per refresh: Claude Code runs `clawmux-statusline` at each refresh of an
//! agent's status line (about once per model answer) and waits for its line. Prints, with the real release
//! binaries against a real hub, start to exit:
//! - the bridge alone (hands the payload to the hub, prints ClawMux's line): p50 and p99, and the CPU one
//!   refresh costs, the bridge's own and the hub's; the same for `clawmux statusline` (settings written
//!   before the program), which starts the whole `clawmux` command;
//! - the bridge chaining the user's own status-line command (`--then`): p50 and p99;
//! - a chained command that hangs: the bridge still answers by its deadline (max);
//! - the hub's side, `POST /api/usage` on a kept connection: p50 and p99.
//!
//! Goal (issue: usage): the bridge answers within 50 ms whatever happens; it costs as little CPU as a
//! process can. Run: `cargo build --release -p clawmux-statusline && cargo bench -p clawmux --bench
//! statusline` (or `scripts/bench`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "hub/support.rs"]
#[allow(dead_code)]
mod support;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{children_cpu, ms, pct, Hub};

/// A payload as Claude Code 2.1 sends it, its figures moved by `n` so each one is kept.
fn payload(n: u64) -> String {
    json!({
        "session_id": "0b5e6a2e-bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "workspace": {"current_dir": "/tmp", "project_dir": "/tmp"}, "version": "2.1.330",
        "cost": {"total_cost_usd": 0.01 * n as f64, "total_duration_ms": 1000 * n, "total_api_duration_ms": 800 * n},
        "context_window": {"total_input_tokens": 1000 * n, "total_output_tokens": 100 * n, "context_window_size": 200_000,
            "current_usage": {"input_tokens": 1200, "output_tokens": 321, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 45_000},
            "used_percentage": 23, "remaining_percentage": 77},
        "rate_limits": {"five_hour": {"used_percentage": 42, "resets_at": 1_900_000_000},
            "seven_day": {"used_percentage": 17, "resets_at": 1_900_300_000}},
    })
    .to_string()
}

/// The release `clawmux-statusline` beside the `clawmux` measured.
fn program() -> std::path::PathBuf {
    let program = std::path::Path::new(&*support::BIN)
        .with_file_name(clawmux_core::layout::STATUS_LINE_PROGRAM);
    assert!(
        program.is_file(),
        "{} is not built: cargo build --release -p clawmux-statusline",
        program.display()
    );
    program
}

/// How the bridge is started: the program, or `clawmux statusline`.
#[derive(Clone, Copy)]
enum Bridge {
    Program,
    Subcommand,
}

/// Runs the bridge `runs` times with `args`; the time from start to exit of each.
fn bridge(hub: &Hub, how: Bridge, args: &[&str], runs: u64) -> Vec<Duration> {
    (0..runs)
        .map(|n| {
            let body = payload(n + 1);
            let start = Instant::now();
            let mut cmd = hub.agent_cmd("sky");
            let mut cmd = match how {
                Bridge::Program => {
                    let mut program = std::process::Command::new(program());
                    program.env_clear();
                    for (k, v) in cmd.get_envs() {
                        if let Some(v) = v {
                            program.env(k, v);
                        }
                    }
                    program
                }
                Bridge::Subcommand => {
                    cmd.arg("statusline");
                    cmd
                }
            };
            let mut child = cmd
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(body.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let took = start.elapsed();
            assert!(!out.stdout.is_empty(), "the bridge printed nothing");
            took
        })
        .collect()
}

fn main() {
    let hub = Hub::start(tempfile::tempdir().unwrap());
    let http = hub.http();
    hub.add(&http, "sky");
    std::fs::create_dir_all(hub.dir.path().join("data/agents/sky")).unwrap();

    for (how, name) in [
        (Bridge::Program, "`clawmux-statusline`"),
        (Bridge::Subcommand, "`clawmux statusline`"),
    ] {
        let runs = 300;
        let (own, hubs) = (children_cpu(), hub.cpu());
        let mut alone = bridge(&hub, how, &[], runs);
        let per = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0 / runs as f64);
        println!(
            "{name} (payload to the hub, ClawMux's line), start to exit: p50 {}, p99 {} (goal: within 50 ms); \
             CPU per refresh: the bridge {}, the hub {}",
            ms(pct(&mut alone, 50)),
            ms(pct(&mut alone, 99)),
            per(children_cpu() - own),
            per(hub.cpu() - hubs),
        );
    }
    let users = "cat >/dev/null; printf 'main  ~/src/app'";
    let mut chained = bridge(&hub, Bridge::Program, &["--then", users], 300);
    println!(
        "`clawmux-statusline --then <the user's command>`, start to exit: p50 {}, p99 {}",
        ms(pct(&mut chained, 50)),
        ms(pct(&mut chained, 99))
    );
    let mut hung = bridge(&hub, Bridge::Program, &["--then", "sleep 30"], 20);
    println!(
        "the same with a chained command that hangs (cut, its last line shown): max {}",
        ms(pct(&mut hung, 100))
    );
    let mut api = (0..1000u64)
        .map(|n| {
            let body = payload(1000 + n);
            let start = Instant::now();
            hub.post(&http, "/api/usage", Some("sky"), &body);
            start.elapsed()
        })
        .collect::<Vec<_>>();
    println!(
        "the hub's side, POST /api/usage (a sample kept each time): p50 {}, p99 {}",
        ms(pct(&mut api, 50)),
        ms(pct(&mut api, 99))
    );
}
