//! Search over a real SQLite file: what is found, in what order, with what snippet; the filters; a store of
//! an older version indexed after it opens; and the index whole after all of it.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::search::fts_query;
use clawmux_core::wire::Kind;
use clawmux_core::Millis;
use clawmux_store::{NewMessage, SearchQuery, Store};

fn message<'a>(agent: &'a str, kind: Kind, text: &'a str, at: i64) -> NewMessage<'a> {
    NewMessage {
        agent,
        kind,
        sender: if kind == Kind::User { "user" } else { agent },
        recipient: None,
        text,
        parent: None,
        voice: false,
        aloud: false,
        attachments: &[],
        idem_key: None,
        at: Millis(at),
    }
}

fn query(words: &str) -> SearchQuery {
    SearchQuery {
        fts: fts_query(words).unwrap(),
        limit: 20,
        ..SearchQuery::default()
    }
}

#[tokio::test]
async fn words_are_found_newest_first_with_their_snippet_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    let said = [
        ("sky", Kind::User, "Please deploy the staging build", 10),
        (
            "sky",
            Kind::Assistant,
            "The deploy failed: the build is red",
            20,
        ),
        (
            "moon",
            Kind::Assistant,
            "Déploiement fini; the DEPLOYMENT is done",
            30,
        ),
        (
            "moon",
            Kind::User,
            "what (NOT) to do: don't \"quote\" me",
            40,
        ),
        ("sky", Kind::Assistant, "東京の天気は晴れ", 50),
    ];
    for (agent, kind, text, at) in said {
        store.append(&message(agent, kind, text, at)).await.unwrap();
    }
    let found = store.search(&query("deploy build")).await.unwrap();
    let texts: Vec<(&str, i64)> = found.iter().map(|f| (f.agent.as_str(), f.at)).collect();
    assert_eq!(
        texts,
        [("sky", 20), ("sky", 10)],
        "every word, newest first"
    );
    assert_eq!(
        found[0].snippet,
        "The \u{2}deploy\u{3} failed: the \u{2}build\u{3} is red"
    );
    assert_eq!(found[0].kind, Kind::Assistant);
    // A prefix; case and accents do not matter.
    let prefix = store.search(&query("DEPLOY*")).await.unwrap();
    assert_eq!(prefix.len(), 3);
    assert_eq!(store.search(&query("deploiement")).await.unwrap().len(), 1);
    // FTS5's syntax in the user's words is only words.
    assert_eq!(
        store
            .search(&query("(NOT) don't \"quote"))
            .await
            .unwrap()
            .len(),
        1
    );
    // A phrase: the words in that order.
    assert_eq!(
        store
            .search(&query("\"build is red\""))
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        store
            .search(&query("\"red is build\""))
            .await
            .unwrap()
            .len(),
        0
    );
    // Filters: the agent, who spoke, the time, and the page before a result.
    let only = |f: fn(&mut SearchQuery)| {
        let mut q = query("deploy*");
        f(&mut q);
        q
    };
    let moon = store
        .search(&only(|q| q.agent = Some("moon".into())))
        .await
        .unwrap();
    assert_eq!(moon.len(), 1);
    let users = store
        .search(&only(|q| q.kinds = vec![Kind::User]))
        .await
        .unwrap();
    assert_eq!(users.iter().map(|f| f.at).collect::<Vec<_>>(), [10]);
    let recent = store
        .search(&only(|q| q.since = Some(Millis(15))))
        .await
        .unwrap();
    assert_eq!(recent.len(), 2);
    let first = store.search(&only(|q| q.limit = 1)).await.unwrap();
    let mut page = query("deploy*");
    page.before = Some(first[0].seq);
    let next = store.search(&page).await.unwrap();
    assert_eq!((first[0].at, next.len()), (30, 2));
    assert!(store.search_index_is_whole().await.unwrap());
}

#[tokio::test]
async fn results_are_newest_first_by_when_they_were_said_not_when_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    // Today's words first, then an older conversation brought in by `clawmux import`.
    for (text, at) in [
        ("otter today", 900),
        ("otter yesterday", 500),
        ("otter last week", 100),
        ("otter at noon", 700),
    ] {
        store
            .append(&message("sky", Kind::User, text, at))
            .await
            .unwrap();
    }
    let order =
        |found: &[clawmux_core::search::Found]| found.iter().map(|f| f.at).collect::<Vec<_>>();
    let all = store.search(&query("otter")).await.unwrap();
    assert_eq!(order(&all), [900, 700, 500, 100]);
    // A page goes on after its last result, in the same order.
    let mut first = query("otter");
    first.limit = 2;
    let first = store.search(&first).await.unwrap();
    let mut next = query("otter");
    next.before = Some(first[1].seq);
    assert_eq!(order(&store.search(&next).await.unwrap()), [500, 100]);
    // Several runs at once (a multi-row statement too), and only a page of each is read.
    for (text, at) in [("otter dawn", 50), ("otter late", 950), ("otter dusk", 60)] {
        store
            .append(&message("sky", Kind::User, text, at))
            .await
            .unwrap();
    }
    let mut three = query("otter");
    three.limit = 3;
    assert_eq!(order(&store.search(&three).await.unwrap()), [950, 900, 700]);
    let all = store.search(&query("otter")).await.unwrap();
    assert_eq!(order(&all), [950, 900, 700, 500, 100, 60, 50]);
}

#[tokio::test]
async fn a_store_from_before_search_is_indexed_after_it_opens_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawmux.db");
    // The store as the version before search left it: its migrations, and messages.
    {
        use sqlx::Connection;
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let mut before = sqlx::migrate!("./migrations");
        before.migrations = before
            .migrations
            .iter()
            .filter(|m| m.version < 20_261_125_100_000)
            .cloned()
            .collect::<Vec<_>>()
            .into();
        before.run(&mut conn).await.unwrap();
        sqlx::query("INSERT INTO agents (name, work_dir, created_at, state, state_since) VALUES ('sky', '/w', 1, 'idle', 1)")
            .execute(&mut conn)
            .await
            .unwrap();
        for i in 0..250 {
            sqlx::query("INSERT INTO messages (id, agent, kind, sender, text, at) VALUES (?1, 'sky', 'user', 'user', ?2, ?3)")
                .bind(format!("msg-{i:08x}"))
                .bind(format!("old message {i} about otters"))
                .bind(i64::from(i))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        conn.close().await.unwrap();
    }
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.search_backlog().await.unwrap().left, 250);
    assert!(
        !store.search_index_is_whole().await.unwrap(),
        "the check sees what is missing"
    );
    assert!(store.search(&query("otters")).await.unwrap().is_empty());
    // New messages are found at once, meanwhile.
    store
        .append(&message(
            "sky",
            Kind::Assistant,
            "otters are new here",
            1_000,
        ))
        .await
        .unwrap();
    assert_eq!(store.search(&query("otters")).await.unwrap().len(), 1);
    // A batch: the newest older messages first.
    assert_eq!(store.index_older(100).await.unwrap(), Some(100));
    assert_eq!(store.search_backlog().await.unwrap().left, 150);
    let mut all = query("otters");
    all.limit = 1_000;
    let found = store.search(&all).await.unwrap();
    assert_eq!(found.len(), 101);
    assert_eq!(found[1].snippet, "old message 249 about \u{2}otters\u{3}");
    assert_eq!(found[100].at, 150);
    // Stopped here (a crash), opened again: it goes on where it was.
    store.close().await;
    drop(store);
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.search_backlog().await.unwrap().left, 150);
    while store.index_older(100).await.unwrap().is_some() {}
    assert_eq!(store.search_backlog().await.unwrap().left, 0);
    assert_eq!(
        store.index_older(100).await.unwrap(),
        None,
        "nothing more, nothing twice"
    );
    assert_eq!(
        store.search(&query("otters")).await.unwrap().len().min(300),
        20
    );
    let mut all = query("otters");
    all.limit = 1_000;
    assert_eq!(store.search(&all).await.unwrap().len(), 251);
    assert!(store.search_index_is_whole().await.unwrap());
}
