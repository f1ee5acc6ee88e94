//! Ten agents send each other 1,000 messages (`TOGETHER_MESSAGES=n` to change) with the real `clawmux
//! send`, and read them with the real `clawmux wait`, while their waits are killed at random moments and the
//! hub is killed (SIGKILL) and started again between batches, with hand-overs under way. At the end every
//! message whose send returned an id was handed to its recipient's wait exactly once (a wait killed before
//! it confirmed what it printed does not count: its Bash call never returned to its model), and no message
//! between agents is left queued. It prints the figures.
//!
//! A send never races a hub kill here: a send whose answer is lost is retried by `clawmux send` within its
//! turn (stored once), and `crash_cycles.rs` covers lost answers with client ids.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{TestHub, BIN};

const AGENTS: usize = 10;

/// `clawmux` as `agent`, in the environment a spawned agent has.
fn as_agent(port: u16, home: &PathBuf, agent: &str) -> Command {
    let mut cmd = Command::new(BIN);
    let work = home.join("agents").join(agent);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CLAWMUX_HOME", home.join("data"))
        .env("CLAWMUX_PORT", port.to_string())
        .env("CLAWMUX_SESSION_ID", agent)
        .env("CLAWMUX_WORK_DIR", &work)
        .current_dir(&work);
    cmd
}

/// The message ids a wait printed.
fn ids_in(printed: &str) -> Vec<String> {
    printed
        .split("[MSG id:")
        .skip(1)
        .filter_map(|rest| rest.get(..12).map(str::to_owned))
        .collect()
}

/// Runs `agent`'s waits one after another until `stop`, killing one now and then at a random moment;
/// counts what each wait that ended by itself printed.
fn reader(
    port: u16,
    home: PathBuf,
    agent: String,
    received: Arc<Mutex<HashMap<String, (u32, u32)>>>,
    killed: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::SeqCst) {
        let mut wait = as_agent(port, &home, &agent)
            .arg("wait")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = wait.stdout.take().unwrap();
        let kill = fastrand::u32(0..6) == 0;
        if kill {
            // An agent killed at a random moment: before, while or after its wait is handed messages.
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..40)));
            let _ = wait.kill();
        }
        let mut printed = String::new();
        let _ = out.read_to_string(&mut printed);
        let status = wait.wait().unwrap();
        let mut received = received.lock().unwrap();
        if status.success() {
            // It ended by itself (before the kill, if one came): what it printed reached its model.
            for id in ids_in(&printed) {
                received.entry(id).or_default().0 += 1;
            }
        } else if kill {
            // Killed: what it printed counts only if the hub recorded it as handed over (it confirmed
            // before the kill); else the message is offered again.
            killed.fetch_add(1, Ordering::SeqCst);
            for id in ids_in(&printed) {
                received.entry(id).or_default().1 += 1;
            }
        }
    }
}

#[test]
fn ten_agents_send_each_other_messages_through_kills_of_agents_and_of_the_hub_and_lose_none() {
    let total: usize = std::env::var("TOGETHER_MESSAGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let mut hub = TestHub::start_with_options(&[("CLAWMUX_TURNS_PER_HOUR", "1000000")]);
    let agents: Vec<String> = (0..AGENTS).map(|i| format!("t{i}")).collect();
    for a in &agents {
        hub.add_agent(a);
    }
    let home = hub.dir.path().to_owned();
    let received = Arc::new(Mutex::new(HashMap::<String, (u32, u32)>::new()));
    let (killed, stop) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let readers: Vec<_> = agents
        .iter()
        .map(|a| {
            let (port, home, agent) = (hub.port, home.clone(), a.clone());
            let (received, killed, stop) = (received.clone(), killed.clone(), stop.clone());
            std::thread::spawn(move || reader(port, home, agent, received, killed, stop))
        })
        .collect();

    let start = Instant::now();
    let (mut sent, mut hub_kills) = (Vec::new(), 0);
    let batch = (total / 10).max(1);
    for i in 0..total {
        let from = fastrand::usize(0..AGENTS);
        let to = (from + fastrand::usize(1..AGENTS)) % AGENTS;
        let out = as_agent(hub.port, &home, &agents[from])
            .args(["send", "--to", &agents[to], &format!("m{i}")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        sent.push(String::from_utf8(out.stdout).unwrap().trim().to_owned());
        if i % batch == batch - 1 && (i / batch).is_multiple_of(2) {
            // The hub killed while the waits take what was sent.
            std::thread::sleep(Duration::from_millis(fastrand::u64(0..30)));
            hub.crash_and_restart();
            hub_kills += 1;
        }
    }
    // Every message is handed over: no thread has one queued.
    let queued = || -> i64 {
        let threads = hub
            .post(
                "/api/command",
                None,
                &json!({"command": "threads"}).to_string(),
            )
            .1;
        threads
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["queued"].as_i64().unwrap())
            .sum()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while queued() > 0 && Instant::now() < deadline {
        // No event says "the last one was handed over" to this test; the waits are busy meanwhile.
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = start.elapsed();
    let queued_at_end = queued();
    stop.store(true, Ordering::SeqCst);
    // Each reader's last wait ends with a message of its own.
    for (i, a) in agents.iter().enumerate() {
        as_agent(hub.port, &home, &agents[(i + 1) % AGENTS])
            .args(["send", "--to", a, "bye"])
            .output()
            .unwrap();
    }
    for r in readers {
        r.join().unwrap();
    }
    let received = received.lock().unwrap();
    // Lost: printed by no wait at all. Twice: printed by two waits that ended by themselves.
    let lost: Vec<&String> = sent
        .iter()
        .filter(|id| !received.contains_key(*id))
        .collect();
    let twice = sent
        .iter()
        .filter(|id| received.get(*id).is_some_and(|c| c.0 > 1))
        .count();
    let queued = queued_at_end;
    for id in lost.iter().take(5) {
        eprintln!("lost {id}: {:?}", received.get(*id));
    }
    let lost = lost.len();
    println!(
        "{AGENTS} agents, {} messages between them with the real clawmux send and wait, {} waits killed and \
         the hub killed {hub_kills} times: lost {lost}, handed over twice {twice}, queued at the end {queued} \
         (in {:.1} s)",
        sent.len(),
        killed.load(Ordering::SeqCst),
        took.as_secs_f64()
    );
    assert_eq!((lost, twice, queued), (0, 0, 0));
}
