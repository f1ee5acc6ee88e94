//! Prints the store's figures against the targets of the core issue:
//! - one message append, committed: p50 < 100 µs;
//! - one event applied (store + machine step + decision + snapshot, as a hook does): for reference;
//! - 100 messages after a cursor at 1,000,000 messages: p50 < 1 ms, and within 2x of the same at 10,000.
//!
//! Run: `cargo bench -p clawmux-store --bench store`. Databases are temporary files, filled in bulk by SQL
//! so that the fill itself takes seconds; each figure is measured through the public `Store` API.

#![allow(clippy::unwrap_used, missing_docs)] // a benchmark: a failure should stop it loudly

mod support;

use std::time::{Duration, Instant};

use clawmux_core::wire::{Kind, MsgId};
use clawmux_core::{Event, Millis, Source};
use clawmux_store::{Incoming, NewMessage, Store};
use sqlx::Connection;
use support::percentile;

const APPENDS: usize = 20_000;
const FETCHES: usize = 2_000;

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// Fills `agent`'s conversation with `n` messages in one statement, ids `msg-00000001` onwards.
async fn fill(path: &std::path::Path, agent: &str, n: i64) {
    let url = format!("sqlite://{}", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?2) \
         INSERT INTO messages (id, agent, kind, sender, recipient, text, at) \
         SELECT printf('msg-%08x', x), ?1, CASE x % 2 WHEN 0 THEN 'user' ELSE 'assistant' END, \
         CASE x % 2 WHEN 0 THEN 'user' ELSE ?1 END, CASE x % 2 WHEN 0 THEN NULL ELSE 'user' END, \
         'message number ' || x || ' with a realistic amount of text in it, about one sentence long.', x FROM c",
    )
    .bind(agent)
    .bind(n)
    .execute(&mut conn)
    .await
    .unwrap();
    conn.close().await.unwrap();
}

async fn fetch_p50(store: &Store, agent: &str, n: i64) -> (Duration, Duration) {
    let mut samples = Vec::with_capacity(FETCHES);
    for _ in 0..FETCHES {
        let cursor = MsgId::from_u32(fastrand::u32(1..=(n - 100) as u32));
        let start = Instant::now();
        let page = store.after(Some(agent), Some(&cursor), 100).await.unwrap();
        samples.push(start.elapsed());
        assert_eq!(page.len(), 100);
    }
    (percentile(&mut samples, 50), percentile(&mut samples, 99))
}

async fn run() {
    let dir = tempfile::tempdir().unwrap();

    // Append, committed.
    let store = Store::open(&dir.path().join("append.db")).await.unwrap();
    store.add_agent("sky", "/w", Millis(0)).await.unwrap();
    let mut samples = Vec::with_capacity(APPENDS);
    for i in 0..APPENDS {
        let text = format!("reply number {i}");
        let m = NewMessage {
            agent: "sky",
            kind: Kind::Assistant,
            sender: "sky",
            recipient: Some("user"),
            text: &text,
            parent: None,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: Millis(i as i64),
        };
        let start = Instant::now();
        store.append(&m).await.unwrap();
        samples.push(start.elapsed());
    }
    println!(
        "message append (committed): p50 {}, p99 {} over {APPENDS} appends (target p50 < 100 µs)",
        us(percentile(&mut samples, 50)),
        us(percentile(&mut samples, 99))
    );

    // A hook event applied: stored, stepped, decided, snapshot updated, in one transaction.
    let hook = br#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/w/a.rs"},"tool_use_id":"t"}"#;
    let (event, _) = Event::from_hook_payload(hook);
    let mut samples = Vec::with_capacity(APPENDS);
    for i in 0..APPENDS {
        let start = Instant::now();
        store
            .apply(Incoming {
                agent: "sky",
                source: Source::Hook,
                event: &event,
                payload: hook,
                at: Millis(i as i64),
                received_at: Millis(i as i64),
            })
            .await
            .unwrap();
        samples.push(start.elapsed());
    }
    println!(
        "hook event applied (event + decision + snapshot, committed): p50 {}, p99 {}",
        us(percentile(&mut samples, 50)),
        us(percentile(&mut samples, 99))
    );
    store.close().await;

    // 100 after a cursor, at two sizes.
    let mut figures = Vec::new();
    for n in [10_000_i64, 1_000_000] {
        let path = dir.path().join(format!("fetch-{n}.db"));
        let store = Store::open(&path).await.unwrap();
        store.add_agent("sky", "/w", Millis(0)).await.unwrap();
        store.close().await;
        let start = Instant::now();
        fill(&path, "sky", n).await;
        let filled = start.elapsed();
        let store = Store::open(&path).await.unwrap();
        let (p50, p99) = fetch_p50(&store, "sky", n).await;
        println!(
            "100 messages after a cursor, {n} messages: p50 {}, p99 {} (filled in {:.1} s)",
            us(p50),
            us(p99),
            filled.as_secs_f64()
        );
        figures.push(p50);
        store.close().await;
    }
    let ratio = figures[1].as_secs_f64() / figures[0].as_secs_f64();
    println!("fetch at 1,000,000 vs 10,000: {ratio:.2}x (target < 2x, p50 < 1 ms)");
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}
