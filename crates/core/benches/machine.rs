//! Prints the cost of one machine step (target: under 1 µs).
//!
//! Run: `cargo bench -p clawmux-core --bench machine`. A realistic cycle of events (wait connect and
//! disconnect, tool hooks, a compaction) is stepped in batches; the figure is the median per-step time
//! over the batches, and the 99th percentile batch beside it.

#![allow(clippy::unwrap_used, missing_docs)] // a benchmark: a failure should stop it loudly

use std::hint::black_box;
use std::time::Instant;

use clawmux_core::{step, Event, Millis, Snapshot, Source};

const BATCH: usize = 10_000;
const BATCHES: usize = 200;

fn cycle() -> Vec<(Event, Source)> {
    let hook = |body: &str| Event::from_hook_payload(body.as_bytes()).0;
    vec![
        (Event::WaitConnected, Source::Wait),
        (Event::WaitDisconnected, Source::Wait),
        (
            hook(
                r#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/w/src/hub.rs"},"tool_use_id":"t1"}"#,
            ),
            Source::Hook,
        ),
        (
            hook(r#"{"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t1"}"#),
            Source::Hook,
        ),
        (
            hook(
                r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test","description":"run the tests"},"tool_use_id":"t2"}"#,
            ),
            Source::Hook,
        ),
        (
            hook(r#"{"hook_event_name":"PreCompact","trigger":"auto"}"#),
            Source::Hook,
        ),
        (
            hook(
                r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"clawmux wait"},"tool_use_id":"t3"}"#,
            ),
            Source::Hook,
        ),
        (
            hook(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#),
            Source::Hook,
        ),
    ]
}

fn main() {
    let events = cycle();
    let mut snapshot = Snapshot::new(Millis(0));
    let mut per_step_ns = Vec::with_capacity(BATCHES);
    let mut t = 0;
    for _ in 0..BATCHES {
        let start = Instant::now();
        for i in 0..BATCH {
            let (event, source) = &events[i % events.len()];
            t += 1;
            snapshot = black_box(step(&snapshot, event, *source, Millis(t))).0;
        }
        per_step_ns.push(start.elapsed().as_nanos() as f64 / BATCH as f64);
    }
    per_step_ns.sort_by(f64::total_cmp);
    let p50 = per_step_ns[BATCHES / 2];
    let p99 = per_step_ns[BATCHES * 99 / 100];
    println!("machine step: p50 {p50:.0} ns, p99 {p99:.0} ns per step ({BATCHES} batches of {BATCH}; target < 1000 ns)");
}
