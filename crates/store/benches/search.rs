//! Prints the search figures of the search issue, through the public `Store` API on a real SQLite file:
//! - a two-word query over 1,000,000 stored messages, the newest 20 matches: p50 and p99 (goal p99 < 50 ms),
//!   for words of middling frequency and for the commonest words (the worst case);
//! - the index's size per message;
//! - message append throughput with the index against without it (goal: at most 10 % slower).
//!
//! The messages are made of a 6,000-word vocabulary drawn with Zipf's law (a few words very common, most
//! rare, as in prose), 8 to 30 words each, over 20 agents. Run: `cargo bench -p clawmux-store --bench
//! search` (or `scripts/bench`). Filling takes a minute or two.

#![allow(clippy::unwrap_used, missing_docs)] // a benchmark: a failure should stop it loudly

mod support;

use std::time::{Duration, Instant};

use clawmux_core::search::fts_query;
use clawmux_core::wire::Kind;
use clawmux_core::Millis;
use clawmux_store::{NewMessage, SearchQuery, Store};
use sqlx::Connection;
use support::percentile;

const MESSAGES: usize = 1_000_000;
const VOCABULARY: usize = 6_000;
const QUERIES: usize = 1_000;
const APPENDS: usize = 20_000;

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Words made of syllables, so the tokenizer sees word-like text: `tamoki`, `lereva`, ...
fn vocabulary() -> Vec<String> {
    const SYLLABLES: [&str; 24] = [
        "ta", "mo", "ki", "le", "re", "va", "sun", "di", "po", "ne", "ga", "lu", "shi", "ber",
        "co", "ran", "te", "fi", "dol", "mi", "an", "sa", "vo", "ril",
    ];
    let mut words = Vec::with_capacity(VOCABULARY);
    let mut rng = fastrand::Rng::with_seed(7);
    while words.len() < VOCABULARY {
        let n = rng.usize(2..=4);
        let w: String = (0..n)
            .map(|_| SYLLABLES[rng.usize(..SYLLABLES.len())])
            .collect();
        if !words.contains(&w) {
            words.push(w);
        }
    }
    words
}

/// Cumulative Zipf weights: word `i` is drawn with a chance proportional to 1 / (i + 1).
fn zipf() -> Vec<f64> {
    let mut total = 0.0;
    (0..VOCABULARY)
        .map(|i| {
            total += 1.0 / (i as f64 + 1.0);
            total
        })
        .collect()
}

fn draw(rng: &mut fastrand::Rng, cumulative: &[f64]) -> usize {
    let x = rng.f64() * cumulative[cumulative.len() - 1];
    cumulative
        .partition_point(|c| *c < x)
        .min(cumulative.len() - 1)
}

/// Fills the store at `path` with [`MESSAGES`] messages, through the `messages` table as the store writes
/// it (its trigger indexes each one).
async fn fill(path: &std::path::Path, words: &[String]) {
    let cumulative = zipf();
    let mut rng = fastrand::Rng::with_seed(42);
    let url = format!("sqlite://{}", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    const ROWS: usize = 100;
    let mut next = 0;
    while next < MESSAGES {
        let mut tx = conn.begin().await.unwrap();
        for _ in 0..(10_000 / ROWS) {
            let mut sql =
                String::from("INSERT INTO messages (id, agent, kind, sender, text, at) VALUES ");
            let mut texts = Vec::with_capacity(ROWS);
            for r in 0..ROWS {
                let n = rng.usize(8..=30);
                let text: Vec<&str> = (0..n)
                    .map(|_| words[draw(&mut rng, &cumulative)].as_str())
                    .collect();
                texts.push(text.join(" "));
                let i = next + r;
                let agent = format!("a{}", i % 20);
                sql.push_str(&format!(
                    "{}('msg-{i:08x}', '{agent}', '{}', '{}', ?, {i})",
                    if r == 0 { "" } else { "," },
                    if i % 2 == 0 { "user" } else { "assistant" },
                    if i % 2 == 0 {
                        "user".to_owned()
                    } else {
                        agent.clone()
                    },
                ));
            }
            let mut q = sqlx::query(&sql);
            for t in &texts {
                q = q.bind(t);
            }
            q.execute(&mut *tx).await.unwrap();
            next += ROWS;
        }
        tx.commit().await.unwrap();
    }
    conn.close().await.unwrap();
}

async fn queries(store: &Store, pairs: &[(String, String)]) -> (Duration, Duration, usize) {
    let mut samples = Vec::with_capacity(pairs.len());
    let mut found = 0;
    for (a, b) in pairs {
        let q = SearchQuery {
            fts: fts_query(&format!("{a} {b}")).unwrap(),
            limit: 20,
            ..SearchQuery::default()
        };
        let start = Instant::now();
        found += store.search(&q).await.unwrap().len();
        samples.push(start.elapsed());
    }
    (
        percentile(&mut samples, 50),
        percentile(&mut samples, 99),
        found / pairs.len(),
    )
}

/// Appends [`APPENDS`] messages from `senders` agents at once, each waiting for its append before the
/// next (as an agent's `clawmux send` does); messages per second.
async fn appends(store: &Store, senders: usize) -> f64 {
    let start = Instant::now();
    let tasks: Vec<_> = (0..senders)
        .map(|s| {
            let store = store.clone();
            tokio::spawn(async move {
                let agent = format!("a{s}");
                for i in 0..APPENDS / senders {
                    let text =
                        format!("reply number {i} about the tamoki lereva and the sunber plan");
                    store
                        .append(&NewMessage {
                            agent: &agent,
                            kind: Kind::Assistant,
                            sender: &agent,
                            recipient: Some("user"),
                            text: &text,
                            parent: None,
                            voice: false,
                            aloud: false,
                            attachments: &[],
                            idem_key: None,
                            at: Millis(i as i64),
                        })
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    APPENDS as f64 / start.elapsed().as_secs_f64()
}

async fn run() {
    let dir = tempfile::tempdir().unwrap();
    if std::env::var_os("SEARCH_BENCH_APPENDS_ONLY").is_none() {
        queries_and_size(&dir).await;
    }
    append_rates(&dir).await;
}

async fn queries_and_size(dir: &tempfile::TempDir) {
    let path = dir.path().join("search.db");
    let words = vocabulary();
    let store = Store::open(&path).await.unwrap();
    for a in 0..20 {
        store
            .add_agent(&format!("a{a}"), "/w", Millis(0))
            .await
            .unwrap();
    }
    store.close().await;
    drop(store);
    let start = Instant::now();
    fill(&path, &words).await;
    println!(
        "({MESSAGES} messages of 8-30 words from {VOCABULARY} drawn by Zipf's law, stored and indexed in {:.0} s)",
        start.elapsed().as_secs_f64()
    );
    let store = Store::open(&path).await.unwrap();
    let mut rng = fastrand::Rng::with_seed(9);
    // Words of middling frequency (ranks 50-1000), and the commonest (ranks 0-10).
    let pick = |rng: &mut fastrand::Rng, lo: usize, hi: usize| words[rng.usize(lo..hi)].clone();
    let middling: Vec<(String, String)> = (0..QUERIES)
        .map(|_| (pick(&mut rng, 50, 1000), pick(&mut rng, 50, 1000)))
        .collect();
    let common: Vec<(String, String)> = (0..QUERIES / 4)
        .map(|_| (pick(&mut rng, 0, 10), pick(&mut rng, 0, 10)))
        .collect();
    let (p50, p99, n) = queries(&store, &middling).await;
    println!(
        "two-word query over {MESSAGES} messages, words of middling frequency, newest 20: p50 {}, p99 {} ({n} found per query on average; goal p99 < 50 ms)",
        ms(p50),
        ms(p99)
    );
    let (p50, p99, n) = queries(&store, &common).await;
    println!(
        "the same with the ten commonest words (the worst case): p50 {}, p99 {} ({n} found per query)",
        ms(p50),
        ms(p99)
    );
    let url = format!("sqlite://{}?mode=ro", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let index: i64 =
        sqlx::query_scalar("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'messages_fts%'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    let text: i64 = sqlx::query_scalar("SELECT SUM(length(CAST(text AS BLOB))) FROM messages")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    println!(
        "the index: {:.0} bytes per message ({:.0} MB for {MESSAGES}; the messages' text itself {:.0} bytes each)",
        index as f64 / MESSAGES as f64,
        index as f64 / 1e6,
        text as f64 / MESSAGES as f64
    );
    store.close().await;
}

/// How many agents send at once in the second measure.
const SENDERS: usize = 8;

/// Appends with the index, then without it (its trigger dropped), on fresh stores: three rounds each,
/// alternating, and the median of each (this machine's speed drifts between runs); one sender, then
/// [`SENDERS`] at once.
async fn append_rates(dir: &tempfile::TempDir) {
    let mut stores = Vec::new();
    for indexed in [true, false] {
        let path = dir.path().join(format!("append-{indexed}.db"));
        let store = Store::open(&path).await.unwrap();
        for a in 0..SENDERS {
            store
                .add_agent(&format!("a{a}"), "/w", Millis(0))
                .await
                .unwrap();
        }
        if !indexed {
            let url = format!("sqlite://{}", path.display());
            let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
            sqlx::query("DROP TRIGGER messages_fts_insert")
                .execute(&mut conn)
                .await
                .unwrap();
            conn.close().await.unwrap();
        }
        appends(&store, 1).await; // warm
        stores.push(store);
    }
    let median = |r: &mut Vec<f64>| {
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    for senders in [1, SENDERS] {
        let mut rates = [Vec::new(), Vec::new()];
        for _ in 0..3 {
            for (i, store) in stores.iter().enumerate() {
                rates[i].push(appends(store, senders).await);
            }
        }
        let (with, without) = (median(&mut rates[0]), median(&mut rates[1]));
        let who = if senders == 1 {
            "one sender, each append committed before the next".to_owned()
        } else {
            format!("{senders} agents sending at once, each waiting for its own")
        };
        println!(
            "message appends, {who} (median of 3 rounds): {with:.0}/s with the index, {without:.0}/s without ({:+.1} %; goal at most 10 % slower)",
            (with / without - 1.0) * 100.0
        );
    }
    for store in stores {
        store.close().await;
    }
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}
