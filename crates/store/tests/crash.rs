//! A write that returned survives `kill -9`: a child process appends messages and applies events, printing
//! each id as soon as the call returns; the test kills it at a random moment with SIGKILL, reopens the file
//! and finds every printed message exactly once and the agent's snapshot equal to the replay of its events.
//!
//! The child is this same test binary, re-run with one ignored test selected.

#![allow(clippy::unwrap_used, missing_docs)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use clawmux_core::wire::{Kind, MsgId};
use clawmux_core::{Event, Millis, Source};
use clawmux_store::{Incoming, NewMessage, Store};

const DB_ENV: &str = "CLAWMUX_CRASH_TEST_DB";

#[tokio::test]
#[ignore = "the child half of kill_9_loses_no_acknowledged_write; run by it"]
async fn crash_child_writer() {
    let Ok(path) = std::env::var(DB_ENV) else {
        return;
    };
    let store = Store::open(path.as_ref()).await.unwrap();
    let _ = store.add_agent("sky", "/w", Millis(0)).await;
    let mut out = std::io::stdout().lock();
    for i in 0_i64.. {
        let text = format!("message {i}");
        let key = format!("k{i}");
        let m = store
            .append(&NewMessage {
                agent: "sky",
                kind: Kind::User,
                sender: "user",
                recipient: Some("sky"),
                text: &text,
                parent: None,
                voice: false,
                aloud: false,
                attachments: &[],
                idem_key: Some(&key),
                at: Millis(i),
            })
            .await
            .unwrap();
        writeln!(out, "acked {}", m.message.id).unwrap();
        let event = [Event::WaitConnected, Event::WaitDisconnected]
            [usize::try_from(i % 2).unwrap()]
        .clone();
        store
            .apply(Incoming {
                agent: "sky",
                source: Source::Wait,
                event: &event,
                payload: b"",
                at: Millis(i),
                received_at: Millis(i),
            })
            .await
            .unwrap();
        out.flush().unwrap();
    }
}

#[tokio::test]
async fn kill_9_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.db");
    for round in 0..3 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash_child_writer",
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(DB_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stop_after = 50 + fastrand::usize(..400);
        let mut acked = Vec::new();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        while acked.len() < stop_after {
            let line = lines.next().expect("the child stopped early").unwrap();
            if let Some(id) = line.strip_prefix("acked ") {
                acked.push(MsgId::parse(id).unwrap());
            }
        }
        // SIGKILL, in the middle of whatever the child is doing.
        child.kill().unwrap();
        child.wait().unwrap();
        // Lines already in the pipe were acknowledged too.
        for line in lines.map_while(Result::ok) {
            if let Some(id) = line.strip_prefix("acked ") {
                acked.push(MsgId::parse(id).unwrap());
            }
        }

        let store = Store::open(&path).await.unwrap();
        let stored = store.after(Some("sky"), None, 1_000_000).await.unwrap();
        let mut stored_ids: Vec<&MsgId> = stored.iter().map(|m| &m.id).collect();
        for id in &acked {
            assert_eq!(
                stored_ids.iter().filter(|s| **s == id).count(),
                1,
                "round {round}: {id}"
            );
        }
        stored_ids.sort();
        stored_ids.dedup();
        assert_eq!(
            stored_ids.len(),
            stored.len(),
            "round {round}: a duplicate id"
        );
        assert_eq!(
            store.replay("sky").await.unwrap(),
            store.agent("sky").await.unwrap().snapshot
        );
        store.close().await;
    }
}
