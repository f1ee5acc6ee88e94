//! Agents working together. Between agents: an agent's message to another agent whose `clawmux wait` is waiting (the hub's part:
//! `POST /api/send` to the first byte the wait prints; and the whole `clawmux send` process), a
//! `clawmux ask` answered by the other agent's `clawmux send --re` (both real processes), and the list of
//! threads and one thread's page once 10,000 messages passed between 10 agents. The board: 10,000 items
//! added, then listed (the window's page, the open ones, one agent's) and two agents taking items.

use std::io::Read;
use std::process::Stdio;
use std::time::Instant;

use serde_json::json;

use crate::support::{ms, next_event, pct, Hub};

pub fn together(hub: &Hub) {
    let http = hub.http();
    for agent in ["ba", "bb"] {
        hub.add(&http, agent);
    }
    let mut feed = hub.feed();
    let (mut api, mut process) = (Vec::new(), Vec::new());
    for i in 0..100 {
        for through_cli in [false, true] {
            let mut wait = hub
                .agent_cmd("bb")
                .arg("wait")
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            next_event(&mut feed, |v| {
                v["type"] == "session_status" && v["session_id"] == "bb" && v["state"] == "idle"
            });
            let mut out = wait.stdout.take().unwrap();
            let text = format!("hop {i} {through_cli}");
            let start = Instant::now();
            if through_cli {
                let sent = hub
                    .agent_cmd("ba")
                    .args(["send", "--to", "bb", &text])
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap();
                let mut buf = [0u8; 1];
                out.read_exact(&mut buf).unwrap();
                process.push(start.elapsed());
                drop(sent.wait_with_output());
            } else {
                hub.post(
                    &http,
                    "/api/send",
                    Some("ba"),
                    &json!({ "to": "bb", "text": text }).to_string(),
                );
                let mut buf = [0u8; 1];
                out.read_exact(&mut buf).unwrap();
                api.push(start.elapsed());
            }
            let mut rest = String::new();
            out.read_to_string(&mut rest).unwrap();
            wait.wait().unwrap();
            next_event(&mut feed, |v| {
                v["type"] == "session_status"
                    && v["session_id"] == "bb"
                    && v["state"] == "processing"
            });
        }
    }
    println!(
        "agent to agent, to the other's waiting clawmux wait: POST /api/send to first byte printed p50 {} \
         (target < 50 ms); the whole `clawmux send` process p50 {}",
        ms(pct(&mut api, 50)),
        ms(pct(&mut process, 50))
    );
    ask_round_trip(hub);
    threads_listed(hub);
    board_listed(hub);
}

/// `clawmux ask` from ba, answered by bb with `clawmux send --re` as soon as bb's wait prints the question.
fn ask_round_trip(hub: &Hub) {
    let mut samples = Vec::new();
    for i in 0..50 {
        let wait = hub
            .agent_cmd("bb")
            .arg("wait")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let ask = hub
            .agent_cmd("ba")
            .args(["ask", "bb", &format!("question {i}?"), "--timeout", "30"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let printed = String::from_utf8(wait.wait_with_output().unwrap().stdout).unwrap();
        let id = printed
            .split("[MSG id:")
            .nth(1)
            .and_then(|rest| rest.get(..12))
            .expect("the wait printed no question")
            .to_owned();
        let answered = hub
            .agent_cmd("bb")
            .args(["send", "--to", "ba", "--re", &id, &format!("answer {i}")])
            .output()
            .unwrap();
        assert!(answered.status.success());
        let out = ask.wait_with_output().unwrap();
        samples.push(start.elapsed());
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(line.contains(&format!("answer {i}")), "{line}");
    }
    println!(
        "`clawmux ask` answered by the other agent's `clawmux send --re` (four real processes, the hub between): \
         p50 {}",
        ms(pct(&mut samples, 50))
    );
}

/// 10,000 messages between 10 agents, then the threads listed and one thread's page read.
fn threads_listed(hub: &Hub) {
    let http = hub.http();
    let agents: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
    for a in &agents {
        hub.add(&http, a);
    }
    let fill = Instant::now();
    for i in 0..10_000usize {
        let (from, to) = (&agents[i % 10], &agents[(i * 7 + 3) % 10]);
        let to = if to == from {
            &agents[(i + 1) % 10]
        } else {
            to
        };
        hub.post(
            &http,
            "/api/send",
            Some(from),
            &json!({ "to": to, "text": format!("note {i}") }).to_string(),
        );
    }
    let fill = fill.elapsed();
    let (mut list, mut page) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        let start = Instant::now();
        let threads = hub.post(
            &http,
            "/api/command",
            None,
            &json!({"command": "threads"}).to_string(),
        );
        list.push(start.elapsed());
        assert!(threads.as_array().is_some_and(|t| t.len() >= 10));
        let start = Instant::now();
        hub.post(
            &http,
            "/api/command",
            None,
            &json!({"command": "thread", "a": "t0", "b": "t3", "limit": 100}).to_string(),
        );
        page.push(start.elapsed());
    }
    println!(
        "10,000 messages between 10 agents (sent in {:.1} s): the threads listed p50 {} p99 {}; a thread's last \
         100 with their delivery p50 {} p99 {}",
        fill.as_secs_f64(),
        ms(pct(&mut list, 50)),
        ms(pct(&mut list, 99)),
        ms(pct(&mut page, 50)),
        ms(pct(&mut page, 99)),
    );
}

/// 10,000 items on the board, then lists as the window and an agent ask for them.
fn board_listed(hub: &Hub) {
    let http = hub.http();
    let fill = Instant::now();
    for i in 0..10_000usize {
        let call = json!({"op": "add", "title": format!("item {i}"), "body": "what it asks"});
        hub.post(
            &http,
            "/api/task",
            Some(&format!("t{}", i % 10)),
            &call.to_string(),
        );
    }
    let fill = fill.elapsed();
    for i in 0..2_000usize {
        let call = json!({"op": "take", "id": i + 1});
        hub.post(
            &http,
            "/api/task",
            Some(&format!("t{}", i % 10)),
            &call.to_string(),
        );
    }
    let lists = [
        (
            "the window's page (500 newest)",
            json!({"command": "board"}),
        ),
        (
            "the open ones (500 newest)",
            json!({"command": "board", "state": "open"}),
        ),
        (
            "one agent's (200)",
            json!({"command": "board", "owner": "t3"}),
        ),
        (
            "20 with a word",
            json!({"command": "board", "text": "item 99", "limit": 20}),
        ),
    ];
    for (what, command) in lists {
        let mut samples = Vec::new();
        for _ in 0..200 {
            let start = Instant::now();
            hub.post(&http, "/api/command", None, &command.to_string());
            samples.push(start.elapsed());
        }
        println!(
            "the board with 10,000 items (added in {:.1} s), listed: {what} p50 {} p99 {} (target p99 < 5 ms)",
            fill.as_secs_f64(),
            ms(pct(&mut samples, 50)),
            ms(pct(&mut samples, 99)),
        );
    }
}
