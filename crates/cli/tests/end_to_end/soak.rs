//! The soak: 50 demo agents (`clawmux demo-agent`, which runs `clawmux wait`, `send` and the hooks as real
//! processes, and keeps a transcript as Claude Code does) and 3 agents that are the real Claude Code CLI
//! with a scripted local model (`tests/e2e/model-server.mjs`) cycle through the whole protocol while the
//! user writes to them and browsers connect and disconnect, for SOAK_MINUTES (`scripts/soak`; 5 in CI, 60
//! for the full run). Resident memory, open file descriptors, database size and hook latency are measured
//! after a warm-up and at the end, printed, and must not grow without bound; every message to a real agent
//! is answered.

use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::TestHub;
use serde_json::json;

const AGENTS: usize = 50;
/// Agents that are the real Claude Code CLI.
const REAL: usize = 3;

/// The scripted model (`tests/e2e/model-server.mjs`): its process, its port and the Claude Code executable it
/// installed.
struct Model {
    child: Child,
    port: u16,
    claude: String,
}

impl Model {
    /// Starts it with `home` as the agents' HOME, trusting `folders`.
    fn start(home: &std::path::Path, folders: &[std::path::PathBuf]) -> Model {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/e2e/model-server.mjs"
        );
        let mut child = std::process::Command::new("node")
            .arg(script)
            .arg(home)
            .args(folders)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        Model {
            child,
            port: u16::try_from(v["port"].as_u64().unwrap()).unwrap(),
            claude: v["claude"].as_str().unwrap().to_owned(),
        }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn real_names() -> Vec<String> {
    (0..REAL).map(|i| format!("real{i}")).collect()
}

struct Sample {
    rss_mb: f64,
    fds: usize,
    db_mb: f64,
    hook_p50_ms: f64,
    hook_p99_ms: f64,
    messages: i64,
}

fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024.0
}

fn sample(hub: &TestHub) -> Sample {
    let pid = hub.child.id();
    let db: u64 = ["clawmux.db", "clawmux.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(hub.data().join(f)).ok())
        .map(|m| m.len())
        .sum();
    let http = hub.http();
    let mut lat = Vec::new();
    for i in 0..300 {
        let body = json!({"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_use_id": format!("p{i}")}).to_string();
        let start = Instant::now();
        let resp = http
            .post(hub.url("/api/hooks/tool-status"))
            .header("Authorization", format!("Bearer {}", hub.token))
            .header("ClawMux-Session", "probe")
            .header("Content-Type", "application/json")
            .send(body)
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        lat.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    lat.sort_by(f64::total_cmp);
    let messages = agent_names()
        .iter()
        .map(|a| {
            hub.get(&format!("/api/history/{a}?limit=1")).1["messages"][0]["seq"]
                .as_i64()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0);
    Sample {
        rss_mb: rss_mb(pid),
        fds: std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .count(),
        db_mb: db as f64 / 1e6,
        hook_p50_ms: lat[lat.len() / 2],
        hook_p99_ms: lat[lat.len() * 99 / 100],
        messages,
    }
}

fn agent_names() -> Vec<String> {
    (0..AGENTS).map(|i| format!("soak{i:02}")).collect()
}

fn print(label: &str, s: &Sample) {
    println!(
        "soak {label}: RSS {:.1} MB, {} open fds, database {:.1} MB ({} messages), hook p50 {:.2} ms p99 {:.2} ms",
        s.rss_mb, s.fds, s.db_mb, s.messages, s.hook_p50_ms, s.hook_p99_ms
    );
}

#[test]
#[ignore = "minutes long: scripts/soak runs it (SOAK_MINUTES)"]
fn soak() {
    let minutes: f64 = std::env::var("SOAK_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(5.0);
    let dir = tempfile::tempdir().unwrap();
    let real = real_names();
    let folders: Vec<_> = real
        .iter()
        .map(|n| dir.path().join("data/agents").join(n))
        .collect();
    let model = Model::start(dir.path(), &folders);
    let port = model.port.to_string();
    let path = std::env::var("PATH").unwrap_or_default();
    let options = [
        ("PATH", path.as_str()),
        ("CLAWMUX_CLAUDE", model.claude.as_str()),
        ("ANTHROPIC_BASE_URL", &format!("http://127.0.0.1:{port}")),
        (
            "ANTHROPIC_API_KEY",
            "sk-ant-api03-clawmux-tests-scripted-model-0000000000",
        ),
        ("DISABLE_AUTOUPDATER", "1"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_TELEMETRY", "1"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    let hub = TestHub::start_full(dir, "warn", options);
    hub.add_agent("probe");
    for name in &real {
        hub.run(None, &["spawn", name, "--", "--permission-mode", "default"]);
    }
    let all_idle = || real.iter().all(|n| hub.session(n)["state"] == "idle");
    crate::common::wait_until(Duration::from_secs(90), all_idle);
    let names = agent_names();
    let mut agents: Vec<Child> = names
        .iter()
        .map(|name| {
            let log = std::fs::File::create(hub.dir.path().join(format!("{name}.log"))).unwrap();
            hub.clawmux(None)
                .args(["demo-agent", name, "--pace", "40"])
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap()
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    // The user: a message to a random agent, ten a second.
    let user = {
        let (stop, sent, names, port, token, http) = (
            stop.clone(),
            sent.clone(),
            names.clone(),
            hub.port,
            hub.token.clone(),
            hub.http(),
        );
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let agent = &names[fastrand::usize(..names.len())];
                let n = sent.fetch_add(1, Ordering::SeqCst);
                let _ = http
                    .post(format!("http://127.0.0.1:{port}/api/sessions/{agent}/messages"))
                    .header("Authorization", format!("Bearer {token}"))
                    .header("Content-Type", "application/json")
                    .send(json!({"text": format!("soak message {n}"), "client_id": format!("soak-{n}")}).to_string());
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // The real agents: a message to one of them every 5 s, each answered by its model through the CLI.
    let to_real = {
        let (stop, real, port, token, http) = (
            stop.clone(),
            real.clone(),
            hub.port,
            hub.token.clone(),
            hub.http(),
        );
        std::thread::spawn(move || {
            let mut sent = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let agent = &real[sent.len() % real.len()];
                let text = format!("real message {}", sent.len());
                let resp = http
                    .post(format!(
                        "http://127.0.0.1:{port}/api/sessions/{agent}/messages"
                    ))
                    .header("Authorization", format!("Bearer {token}"))
                    .header("Content-Type", "application/json")
                    .send(json!({"text": text}).to_string());
                if resp.is_ok_and(|r| r.status().as_u16() == 200) {
                    sent.push((agent.clone(), text));
                }
                std::thread::sleep(Duration::from_secs(5));
            }
            sent
        })
    };
    // Browsers: connect, read for 1-5 s, leave; again, from where they were.
    let browsers: Vec<_> = (0..3)
        .map(|_| {
            let (stop, port, token) = (stop.clone(), hub.port, hub.token.clone());
            std::thread::spawn(move || {
                let mut connects = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    let Ok((mut ws, _)) =
                        tungstenite::connect(format!("ws://127.0.0.1:{port}/ws?token={token}"))
                    else {
                        continue;
                    };
                    connects += 1;
                    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
                        s.set_read_timeout(Some(Duration::from_millis(200)))
                            .unwrap();
                    }
                    let until = Instant::now() + Duration::from_millis(fastrand::u64(1000..5000));
                    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                        let _ = ws.read();
                    }
                    let _ = ws.close(None);
                }
                connects
            })
        })
        .collect();

    std::thread::sleep(Duration::from_secs(20));
    let start = sample(&hub);
    print("start (after 20 s)", &start);
    let end_at = Instant::now() + Duration::from_secs_f64((minutes * 60.0 - 20.0).max(10.0));
    let mut checkpoints = Vec::new();
    while Instant::now() < end_at {
        std::thread::sleep((end_at - Instant::now()).min(Duration::from_secs(60)));
        for (a, name) in agents.iter_mut().zip(&names) {
            if let Some(status) = a.try_wait().unwrap() {
                let log = std::fs::read_to_string(hub.dir.path().join(format!("{name}.log")))
                    .unwrap_or_default();
                panic!("demo agent {name} ended ({status}):\n{log}");
            }
        }
        checkpoints.push(sample(&hub));
    }
    let end = checkpoints.pop().unwrap();
    print("end", &end);
    stop.store(true, Ordering::SeqCst);
    user.join().unwrap();
    let to_real = to_real.join().unwrap();
    // Every message to a real agent is answered, once (the last ones within a minute).
    let answers = || -> std::collections::HashMap<(String, String), usize> {
        let mut seen = std::collections::HashMap::new();
        for agent in &real {
            for m in hub.history(agent) {
                if let Some(text) = m["text"].as_str().and_then(|t| t.strip_prefix("heard: ")) {
                    *seen.entry((agent.clone(), text.to_owned())).or_insert(0) += 1;
                }
            }
        }
        seen
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = answers();
    while to_real.iter().any(|k| !seen.contains_key(k)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
        seen = answers();
    }
    for key in &to_real {
        assert_eq!(seen.get(key), Some(&1), "{key:?} answered once");
    }
    println!(
        "soak: {} messages to {REAL} real Claude Code agents, each answered once",
        to_real.len()
    );
    for name in &real {
        hub.run(None, &["terminate", name]);
    }
    let connects: u64 = browsers.into_iter().map(|b| b.join().unwrap()).sum();
    for mut a in agents {
        let _ = a.kill();
        let _ = a.wait();
    }
    let retries: usize = names
        .iter()
        .map(|n| {
            std::fs::read_to_string(hub.dir.path().join(format!("{n}.log")))
                .unwrap_or_default()
                .matches(" again")
                .count()
        })
        .sum();
    println!("soak: commands the demo agents had to run again (the hub too slow to answer in time): {retries}");
    let stored = end.messages - start.messages;
    let per_message_kb = (end.db_mb - start.db_mb) * 1000.0 / stored.max(1) as f64;
    println!(
        "soak: {minutes} min, 50 demo agents, {} user messages, {stored} messages stored meanwhile, {connects} browser connections; \
         RSS {:+.1} MB, fds {:+}, database {:.2} KB per message stored, hook p50 {:.2} -> {:.2} ms",
        sent.load(Ordering::SeqCst),
        end.rss_mb - start.rss_mb,
        end.fds as i64 - start.fds as i64,
        per_message_kb,
        start.hook_p50_ms,
        end.hook_p50_ms
    );
    assert!(stored > 0, "the agents worked");
    assert!(
        end.rss_mb < start.rss_mb * 2.0 + 16.0,
        "memory grew: {:.1} -> {:.1} MB",
        start.rss_mb,
        end.rss_mb
    );
    assert!(
        end.fds <= start.fds + 16,
        "file descriptors leaked: {} -> {}",
        start.fds,
        end.fds
    );
    // Each message brings its hooks' events and decisions, and the WAL file keeps its high-water size:
    // tens of KB a message would still be linear; a leak (rows written again and again) goes far past it.
    assert!(
        per_message_kb < 64.0,
        "the database grew {per_message_kb:.1} KB per message"
    );
    assert!(
        end.hook_p50_ms < start.hook_p50_ms * 3.0 + 2.0,
        "hooks slowed down: {:.2} -> {:.2} ms",
        start.hook_p50_ms,
        end.hook_p50_ms
    );
}
