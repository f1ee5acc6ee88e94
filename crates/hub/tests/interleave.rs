//! Thousands of random interleavings of user messages, tool hooks, Stop and wait connect/disconnect
//! against the real hub (in-process, real SQLite file, a runtime of two threads), checking the inbox's two
//! promises: every message reaches Claude exactly once, and Claude is never allowed to stop while a message
//! it has not acted on exists.
//!
//! As in life, the user's messages arrive concurrently with what the agent does (a task of their own), and
//! the agent's parallel tool calls run their hooks at the same time; the agent's own steps (a hook, Stop, its
//! wait) otherwise follow one another, as Claude Code runs them.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use clawmux_hub::{Hub, Waiter};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy)]
enum Op {
    UserMessage,
    PreTool,
    PreToolWait,
    PostTool,
    ParallelTools,
    Stop,
    WaitConnect,
    WaitDeliver,
    WaitDies,
    WaitDisconnect,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::UserMessage),
        2 => Just(Op::PreTool),
        1 => Just(Op::PreToolWait),
        2 => Just(Op::PostTool),
        1 => Just(Op::ParallelTools),
        2 => Just(Op::Stop),
        2 => Just(Op::WaitConnect),
        2 => Just(Op::WaitDeliver),
        1 => Just(Op::WaitDies),
        1 => Just(Op::WaitDisconnect),
    ]
}

/// The message ids in lines such as `[MSG id:msg-0000000a from:user] text`.
fn ids_in(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("[MSG id:"))
        .filter_map(|l| l.split(' ').next())
        .map(str::to_owned)
        .collect()
}

/// What the simulated Claude has been handed, and whether it owes an answer to a hook hand-over.
#[derive(Default)]
struct Claude {
    received: HashMap<String, u32>,
    owes_answer: bool,
}

impl Claude {
    fn receive(&mut self, ids: Vec<String>) {
        for id in ids {
            *self.received.entry(id).or_default() += 1;
        }
    }
}

/// The waiter's offer, which must come at once when messages are pending.
async fn offered(w: &Waiter) -> Result<clawmux_hub::inbox::Offer, TestCaseError> {
    match tokio::time::timeout(std::time::Duration::from_secs(5), w.offer()).await {
        Ok(offer) => Ok(offer.unwrap()),
        Err(_) => Err(TestCaseError::fail(
            "messages were pending but the waiter was offered nothing",
        )),
    }
}

/// A tool hook's body.
fn hook_body(op: Op) -> String {
    let pre = |name: &str, input: Value| {
        json!({"hook_event_name":"PreToolUse","tool_name":name,"tool_input":input,"tool_use_id":"t"}).to_string()
    };
    match op {
        Op::PreToolWait => pre("Bash", json!({"command":"clawmux wait"})),
        Op::PostTool => {
            json!({"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t"})
                .to_string()
        }
        Op::UserMessage
        | Op::PreTool
        | Op::ParallelTools
        | Op::Stop
        | Op::WaitConnect
        | Op::WaitDeliver
        | Op::WaitDies
        | Op::WaitDisconnect => pre("Read", json!({"file_path":"/x"})),
    }
}

/// Runs one tool hook; the ids of the messages it handed over.
async fn tool_hook(hub: &Hub, agent: &str, op: Op) -> Vec<String> {
    let reply = hub
        .hooks()
        .tool(Some(agent), hook_body(op).as_bytes())
        .await
        .unwrap();
    ids_in(
        reply
            .pointer("/hookSpecificOutput/additionalContext")
            .and_then(Value::as_str)
            .unwrap_or(""),
    )
}

/// The user's side: each message after as many of the agent's steps as came before it in `ops`, give or
/// take what the scheduler does; the ids of those whose sending has finished.
fn user(
    hub: &Hub,
    agent: &str,
    ops: &[Op],
) -> (tokio::task::JoinHandle<()>, Arc<Mutex<Vec<String>>>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let mut gaps = Vec::new();
    let mut steps = 0;
    for op in ops {
        if matches!(op, Op::UserMessage) {
            gaps.push(std::mem::take(&mut steps));
        } else {
            steps += 1;
        }
    }
    let (hub, agent, done) = (hub.clone(), agent.to_owned(), sent.clone());
    let task = tokio::spawn(async move {
        for gap in gaps {
            for _ in 0..gap {
                tokio::task::yield_now().await;
            }
            let m = hub
                .messages()
                .user_message(&agent, "hi", clawmux_core::wire::Said::Typed, &[], None)
                .await
                .unwrap();
            done.lock().unwrap().push(m.id.to_string());
        }
    });
    (task, sent)
}

async fn run_case(hub: &Hub, agent: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    hub.roster().add_agent(agent, None).await.unwrap();
    let mut claude = Claude::default();
    let mut waiter: Option<Waiter> = None;
    let (user, sent) = user(hub, agent, ops);
    for &op in ops {
        match op {
            Op::UserMessage => {}
            Op::PreTool | Op::PostTool | Op::PreToolWait | Op::ParallelTools => {
                let ids = if matches!(op, Op::ParallelTools) {
                    // Two tool calls at once: their hooks race for the inbox.
                    let (a, b) = tokio::join!(
                        tool_hook(hub, agent, Op::PreTool),
                        tool_hook(hub, agent, Op::PostTool)
                    );
                    [a, b].concat()
                } else {
                    tool_hook(hub, agent, op).await
                };
                if matches!(op, Op::PreToolWait) {
                    prop_assert!(
                        ids.is_empty(),
                        "the PreToolUse of clawmux wait took the inbox"
                    );
                }
                if waiter.is_some() {
                    prop_assert!(
                        ids.is_empty(),
                        "a hook took the inbox while a waiter was connected"
                    );
                }
                if !ids.is_empty() {
                    claude.owes_answer = true;
                }
                claude.receive(ids);
            }
            Op::Stop => {
                // Whatever the user had finished sending before Claude tried to stop.
                let before = sent.lock().unwrap().clone();
                let verdict = hub
                    .hooks()
                    .stop(agent, br#"{"hook_event_name":"Stop"}"#)
                    .await
                    .unwrap();
                if verdict.block {
                    claude.receive(ids_in(&verdict.reason));
                    // Blocked: Claude answers what it had before it tries to stop again.
                    claude.owes_answer = false;
                } else {
                    prop_assert!(
                        !claude.owes_answer,
                        "Claude stopped owing an answer to a hook hand-over"
                    );
                    for id in &before {
                        prop_assert!(
                            claude.received.contains_key(id),
                            "Claude stopped with {} pending",
                            id
                        );
                    }
                }
            }
            Op::WaitConnect => {
                if waiter.is_none() {
                    waiter = Some(hub.inbox().wait_open(agent).await.unwrap());
                    claude.owes_answer = false;
                }
            }
            Op::WaitDeliver | Op::WaitDies => {
                // A connected waiter is offered whatever is pending, at once.
                if waiter.is_some() && hub.inbox().pending(agent).await.unwrap() > 0 {
                    let w = waiter.take().unwrap();
                    let offer = offered(&w).await?;
                    if matches!(op, Op::WaitDeliver) {
                        claude.receive(offer.messages.iter().map(|m| m.id.to_string()).collect());
                        w.confirm(offer).await.unwrap();
                    } else {
                        w.decline(offer);
                    }
                    w.close().await.unwrap();
                }
            }
            Op::WaitDisconnect => {
                if let Some(w) = waiter.take() {
                    w.close().await.unwrap();
                }
            }
        }
        for (id, n) in &claude.received {
            prop_assert_eq!(*n, 1, "{} handed over {} times", id, n);
        }
    }
    user.await.unwrap();
    // Drain: whatever is left reaches the next wait, once.
    if let Some(w) = waiter.take() {
        w.close().await.unwrap();
    }
    if hub.inbox().pending(agent).await.unwrap() > 0 {
        let w = hub.inbox().wait_open(agent).await.unwrap();
        let offer = offered(&w).await?;
        claude.receive(offer.messages.iter().map(|m| m.id.to_string()).collect());
        w.confirm(offer).await.unwrap();
        w.close().await.unwrap();
    }
    let sent = sent.lock().unwrap().clone();
    for id in &sent {
        prop_assert_eq!(
            claude.received.get(id),
            Some(&1),
            "{} was not handed over exactly once",
            id
        );
    }
    prop_assert_eq!(claude.received.len(), sent.len());
    Ok(())
}

#[test]
fn every_interleaving_hands_each_message_over_exactly_once() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hub = rt.block_on(Hub::open(dir.path())).unwrap();
    let cases: u32 = std::env::var("INTERLEAVINGS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let counter = std::sync::atomic::AtomicU32::new(0);
    runner
        .run(&prop::collection::vec(op(), 1..40), |ops| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            rt.block_on(run_case(&hub, &format!("a{n}"), &ops))
        })
        .unwrap();
    eprintln!("{} interleavings checked", counter.into_inner());
}
