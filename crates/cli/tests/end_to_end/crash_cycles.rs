//! Crash cycles: again and again (100 times; `CRASH_CYCLES=n` to change), three agents and two browsers
//! stream messages, the hub is killed with SIGKILL at a random moment and started again. After every
//! restart:
//! - every message whose send returned an id is stored exactly once (a send whose answer was lost is sent
//!   again with the same client_id, as the UI and `clawmux send` do, and must not be stored twice);
//! - every browser that reconnects with its cursor receives the gap exactly once: over all its connections
//!   it has seen every stored message, none twice;
//! - every agent's state (canonical, status_text, "needs you") is what replaying its recorded events gives.
//!
//! It prints the counts: messages sent, acknowledged, found, duplicated, lost.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::TestHub;
use serde_json::{json, Value};

const AGENTS: [&str; 3] = ["sky", "moon", "sun"];
const BROWSERS: usize = 2;

/// What one browser has seen over all its connections.
#[derive(Default)]
struct Seen {
    /// Message id -> how many times its event arrived.
    count: HashMap<String, u32>,
    /// The id of the newest message seen: the cursor it reconnects with.
    cursor: Option<(i64, String)>,
}

/// One sender's messages: text -> the id the hub returned, if it answered.
type Sent = Arc<Mutex<HashMap<String, Option<String>>>>;

fn post(hub: &(u16, String), path: &str, session: Option<&str>, body: &Value) -> Option<Value> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    let mut req = agent
        .post(format!("http://127.0.0.1:{}{path}", hub.0))
        .header("Authorization", format!("Bearer {}", hub.1))
        .header("Content-Type", "application/json");
    if let Some(s) = session {
        req = req.header("ClawMux-Session", s);
    }
    let mut resp = req.send(body.to_string()).ok()?;
    if resp.status().as_u16() != 200 {
        return None;
    }
    serde_json::from_str(&resp.body_mut().read_to_string().ok()?).ok()
}

/// Sends until told to stop: the user to `agent` (with a client_id) and `agent` to the user, with the
/// hooks of a working agent in between (a permission asked and granted), so its state keeps moving.
fn sender(
    hub: (u16, String),
    agent: &'static str,
    cycle: usize,
    sent: Sent,
    stop: Arc<AtomicBool>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut n = 0;
        while !stop.load(Ordering::SeqCst) {
            n += 1;
            let (text, path, session) = if n % 2 == 0 {
                (
                    format!("user to {agent} c{cycle} #{n}"),
                    format!("/api/sessions/{agent}/messages"),
                    None,
                )
            } else {
                (
                    format!("{agent} to user c{cycle} #{n}"),
                    "/api/send".to_owned(),
                    Some(agent),
                )
            };
            sent.lock().unwrap().insert(text.clone(), None);
            let body = json!({"text": text, "to": "user", "client_id": text});
            match post(&hub, &path, session, &body) {
                Some(v) => {
                    sent.lock()
                        .unwrap()
                        .insert(text, v["id"].as_str().map(str::to_owned));
                }
                None => return,
            }
            let id = format!("t{cycle}-{n}");
            let hooks = [
                json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": format!("make {n}")}, "tool_use_id": id}),
                json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "make"}}),
                json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id}),
            ];
            for h in hooks.iter().take(1 + n % 3) {
                if post(&hub, "/api/hooks/tool-status", Some(agent), h).is_none() {
                    return;
                }
            }
        }
    })
}

/// Reads a browser's feed until the connection ends.
fn browser(
    port: u16,
    token: String,
    seen: Arc<Mutex<Seen>>,
    connected: Arc<AtomicBool>,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let cursor = seen
            .lock()
            .unwrap()
            .cursor
            .as_ref()
            .map(|(_, id)| id.clone());
        let mut url = format!("ws://127.0.0.1:{port}/ws?token={token}");
        if let Some(c) = cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let Ok((mut ws, _)) = tungstenite::connect(url) else {
            return;
        };
        connected.store(true, Ordering::SeqCst);
        while let Ok(msg) = ws.read() {
            let tungstenite::Message::Text(t) = msg else {
                continue;
            };
            let v: Value = serde_json::from_str(&t).unwrap();
            assert_ne!(v["type"], "reset", "a known cursor never needs a reset");
            if let (Some(id), Some(seq)) = (v["id"].as_str(), v["seq"].as_i64()) {
                let mut s = seen.lock().unwrap();
                *s.count.entry(id.to_owned()).or_default() += 1;
                if s.cursor.as_ref().is_none_or(|(last, _)| seq > *last) {
                    s.cursor = Some((seq, id.to_owned()));
                }
            }
        }
    })
}

/// Every stored message of every agent: id -> text.
fn stored(hub: &TestHub) -> HashMap<String, String> {
    let mut all = HashMap::new();
    for agent in AGENTS {
        // From the latest page back to the first.
        let mut before = String::new();
        loop {
            let path = if before.is_empty() {
                format!("/api/history/{agent}?limit=1000")
            } else {
                format!("/api/history/{agent}?limit=1000&before={before}")
            };
            let (status, v) = hub.get(&path);
            assert_eq!(status, 200, "{v}");
            let page = v["messages"].as_array().unwrap();
            let Some(oldest) = page.first() else { break };
            before = oldest["id"].as_str().unwrap().to_owned();
            for m in page {
                all.insert(
                    m["id"].as_str().unwrap().to_owned(),
                    m["text"].as_str().unwrap().to_owned(),
                );
            }
        }
    }
    all
}

/// The state `agent`'s recorded events project to: an agent none was recorded for (the hub killed
/// before its first hook, as a loaded machine allows) is where every agent begins.
fn replayed_state(hub: &TestHub, agent: &str) -> (String, String, Value) {
    let text = hub.get_text(&format!("/api/sessions/{agent}/log/events"));
    let end = match clawmux_core::replay::replay(&text) {
        Ok(r) => r.end,
        Err(e) if e.why == "no event to replay" => {
            clawmux_core::Snapshot::new(clawmux_core::Millis(0))
        }
        Err(e) => panic!("{agent}'s events do not replay: {e:?}"),
    };
    (
        end.state.as_str().to_owned(),
        end.activity.clone(),
        end.attention
            .as_ref()
            .map_or(Value::Null, |a| json!(a.need.as_str())),
    )
}

#[test]
fn crash_cycles_lose_and_duplicate_nothing() {
    let cycles: usize = std::env::var("CRASH_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    let started = Instant::now();
    let mut hub = TestHub::start();
    for a in AGENTS {
        hub.add_agent(a);
    }
    // A first message, so every browser has a cursor from the start (as the UI has once it loaded history).
    let first = hub.user_message("sky", "first");
    let first_seq = hub.history("sky")[0]["seq"].as_i64().unwrap();
    let seen: Vec<Arc<Mutex<Seen>>> = (0..BROWSERS)
        .map(|_| {
            Arc::new(Mutex::new(Seen {
                count: HashMap::new(),
                cursor: Some((first_seq, first.clone())),
            }))
        })
        .collect();
    let sent: Vec<Sent> = AGENTS.iter().map(|_| Sent::default()).collect();
    let (mut attempted, mut lost_replies) = (0usize, 0usize);
    for cycle in 0..cycles {
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = seen
            .iter()
            .map(|s| {
                let connected = Arc::new(AtomicBool::new(false));
                let h = browser(hub.port, hub.token.clone(), s.clone(), connected.clone());
                crate::common::wait_until(Duration::from_secs(5), || {
                    connected.load(Ordering::SeqCst)
                });
                h
            })
            .collect();
        let writers: Vec<_> = AGENTS
            .iter()
            .zip(&sent)
            .map(|(a, s)| {
                sender(
                    (hub.port, hub.token.clone()),
                    a,
                    cycle,
                    s.clone(),
                    stop.clone(),
                )
            })
            .collect();
        std::thread::sleep(Duration::from_millis(fastrand::u64(20..250)));
        hub.kill();
        stop.store(true, Ordering::SeqCst);
        for w in writers {
            w.join().unwrap();
        }
        for r in readers {
            r.join().unwrap();
        }
        hub.restart();

        // Sends whose answer died with the hub are sent again with the same client_id, as clients do.
        for (agent, s) in AGENTS.iter().zip(&sent) {
            let unanswered: Vec<String> = s
                .lock()
                .unwrap()
                .iter()
                .filter(|(_, id)| id.is_none())
                .map(|(t, _)| t.clone())
                .collect();
            for text in unanswered {
                lost_replies += 1;
                let (path, session) = if text.starts_with("user to") {
                    (format!("/api/sessions/{agent}/messages"), None)
                } else {
                    ("/api/send".to_owned(), Some(*agent))
                };
                let v = post(
                    &(hub.port, hub.token.clone()),
                    &path,
                    session,
                    &json!({"text": text, "to": "user", "client_id": text}),
                )
                .expect("the retry is answered");
                s.lock()
                    .unwrap()
                    .insert(text, v["id"].as_str().map(str::to_owned));
            }
        }
        // Every agent's state is the projection of its recorded events.
        let sessions = hub.get("/api/sessions").1;
        for agent in AGENTS {
            let row = sessions
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["session_id"] == agent)
                .unwrap();
            let got = (
                row["state"].as_str().unwrap().to_owned(),
                row["activity"].as_str().unwrap().to_owned(),
                row["needs"]["need"].clone(),
            );
            assert_eq!(got, replayed_state(&hub, agent), "cycle {cycle}: {agent}");
        }
        attempted = sent.iter().map(|s| s.lock().unwrap().len()).sum();
    }

    // Reconnect each browser once more: with the gap, it has seen every stored message exactly once.
    let all = stored(&hub);
    for s in &seen {
        let connected = Arc::new(AtomicBool::new(false));
        let h = browser(hub.port, hub.token.clone(), s.clone(), connected.clone());
        crate::common::wait_until(Duration::from_secs(10), || {
            let s = s.lock().unwrap();
            all.keys()
                .filter(|id| **id != first)
                .all(|id| s.count.contains_key(id))
        });
        hub.kill();
        h.join().unwrap();
        hub.restart();
    }
    let acked: Vec<(String, String)> = sent
        .iter()
        .flat_map(|s| {
            s.lock()
                .unwrap()
                .iter()
                .filter_map(|(t, id)| Some((t.clone(), id.clone()?)))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut by_text: HashMap<&str, u32> = HashMap::new();
    for text in all.values() {
        *by_text.entry(text.as_str()).or_default() += 1;
    }
    let duplicated = by_text.values().filter(|n| **n > 1).count();
    let lost = acked.iter().filter(|(_, id)| !all.contains_key(id)).count();
    let gap_twice: u32 = seen
        .iter()
        .map(|s| s.lock().unwrap().count.values().filter(|n| **n > 1).count() as u32)
        .sum();
    println!(
        "crash cycles: {cycles} SIGKILLs in {:.0} s; messages sent {attempted}, acknowledged {}, found {}, duplicated {duplicated}, lost {lost}; \
         replies lost with the hub and resent {lost_replies}; browser events seen twice {gap_twice}",
        started.elapsed().as_secs_f64(),
        acked.len(),
        all.len() - 1,
    );
    assert_eq!(
        acked.len(),
        attempted,
        "every send was answered, at last by its retry"
    );
    assert_eq!((duplicated, lost, gap_twice), (0, 0, 0));
    assert_eq!(all.len() - 1, attempted, "nothing stored that was not sent");
    // The search index holds every stored message once, none missing, across all those SIGKILLs
    // (FTS5's own check of the index against the messages).
    let whole = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let store = clawmux_store::Store::open(&hub.data().join("clawmux.db"))
                .await
                .unwrap();
            store.search_index_is_whole().await.unwrap()
        });
    assert!(whole, "the search index is the stored messages, exactly");
}
