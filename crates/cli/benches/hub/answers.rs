//! Answering from the app: 20 agents' permission hooks (the real `clawmux hook permission` processes) held
//! open by the hub, what they cost it while nobody answers, and how long an answer takes from the click
//! (`POST /api/command`) to the decision the hook prints for Claude Code.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{ms, pct, Hub};

/// Agents with a request open at once.
const PENDING: usize = 20;

pub fn answers(hub: &Hub) {
    let http = hub.http();
    let mut hooks = Vec::new();
    for i in 0..PENDING {
        let agent = format!("asker{i}");
        hub.add(&http, &agent);
        let mut hook = hub
            .agent_cmd(&agent)
            .args(["hook", "permission"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let payload = json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": {"command": format!("touch /tmp/x{i}")}});
        let mut stdin = hook.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
        drop(stdin);
        hooks.push((agent, hook));
    }
    // Every request is open: the hub shows them all.
    let ids = loop {
        let sessions = hub.get(&http, "/api/sessions");
        let ids: Vec<(String, String)> = sessions
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| {
                let id = s["needs"]["request"]["id"].as_str()?;
                Some((s["session_id"].as_str()?.to_owned(), id.to_owned()))
            })
            .collect();
        if ids.len() == PENDING {
            break ids;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let before = hub.cpu();
    std::thread::sleep(Duration::from_secs(5));
    let share = (hub.cpu() - before).as_secs_f64() / 5.0 * 100.0;
    println!("idle hub with {PENDING} permission requests held open: {share:.2}% of one core over 5 s (target ~0)");
    let mut samples = Vec::new();
    for (agent, hook) in &mut hooks {
        let id = &ids.iter().find(|(a, _)| a == agent).unwrap().1;
        let mut out = BufReader::new(hook.stdout.take().unwrap());
        let start = Instant::now();
        hub.post(
            &http,
            "/api/command",
            None,
            &json!({"command": "answer", "session_id": agent, "request_id": id, "decision": "allow"})
                .to_string(),
        );
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        samples.push(start.elapsed());
        let decision: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            decision["hookSpecificOutput"]["decision"]["behavior"],
            "allow"
        );
    }
    for (_, mut hook) in hooks {
        hook.wait().unwrap();
    }
    println!(
        "click to the decision printed by the waiting hook: p50 {}, p99 {} (target p50 < 5 ms)",
        ms(pct(&mut samples, 50)),
        ms(pct(&mut samples, 99))
    );
}
