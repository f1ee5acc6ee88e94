//! Tests of `append.rs`.

use clawmux_core::search::fts_query;
use clawmux_core::wire::Kind;
use clawmux_core::Millis;

use crate::{NewMessage, SearchQuery, Store, StoreError};

fn to_sky<'a>(agent: &'a str, text: &'a str, key: Option<&'a str>) -> NewMessage<'a> {
    NewMessage {
        agent,
        kind: Kind::User,
        sender: "user",
        recipient: Some(agent),
        text,
        parent: None,
        voice: false,
        aloud: false,
        attachments: &[],
        idem_key: key,
        at: Millis(1),
    }
}

/// Appends queued while the writer is held are stored by one statement when they all can be, and
/// each alone when one cannot: every caller hears its own outcome, and the index holds exactly what was
/// stored.
#[tokio::test]
async fn a_batch_stores_each_message_once_and_a_bad_one_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).await.unwrap();
    store.add_agent("sky", "/w", Millis(0)).await.unwrap();
    for bad in [false, true] {
        let held = store.writer.lock().await;
        let texts: Vec<String> = (0..4).map(|i| format!("otter {bad} {i}")).collect();
        let mut sends = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let (store, text) = (store.clone(), text.clone());
            let key = format!("k-{bad}-{}", i % 3); // the fourth repeats the first's key
            let agent = if bad && i == 2 { "ghost" } else { "sky" };
            let text = if i == 3 { texts[0].clone() } else { text };
            sends.push(tokio::spawn(async move {
                store.append(&to_sky(agent, &text, Some(&key))).await
            }));
        }
        while store.messages.len() < 4 {
            tokio::task::yield_now().await;
        }
        drop(held);
        let mut outcomes = Vec::new();
        for s in sends {
            outcomes.push(s.await.unwrap());
        }
        let first = outcomes[0].as_ref().unwrap().clone();
        assert!(first.created);
        assert!(outcomes[1].as_ref().unwrap().created);
        if bad {
            assert!(matches!(outcomes[2], Err(StoreError::UnknownAgent(_))));
        } else {
            assert!(outcomes[2].as_ref().unwrap().created);
        }
        let again = outcomes[3].as_ref().unwrap();
        assert!(
            !again.created,
            "the same key and content: the first message"
        );
        assert_eq!(again.message, first.message);
    }
    let found = store
        .search(&SearchQuery {
            fts: fts_query("otter").unwrap(),
            limit: 50,
            ..SearchQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        found.len(),
        5,
        "three stored in the batch, two beside the bad one"
    );
    assert!(store.search_index_is_whole().await.unwrap());
}
