//! The shared board against a real SQLite file: items added and listed, taking exclusive even when two
//! agents take at once, only the owner finishing, and who is told when an item is done.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::board::{Actor, Move, Refused, TaskState};
use clawmux_core::Millis;
use clawmux_store::{MoveError, NewTask, Store, TaskFilter};

#[allow(dead_code)]
mod common;
use common::fresh;

async fn board() -> (tempfile::TempDir, Store) {
    let (dir, store) = fresh().await;
    for name in ["rain", "moon"] {
        store.add_agent(name, "/w", Millis(1)).await.unwrap();
    }
    (dir, store)
}

fn new<'a>(title: &'a str, creator: &'a str) -> NewTask<'a> {
    NewTask {
        title,
        body: "",
        creator,
        at: Millis(10),
    }
}

fn all() -> TaskFilter {
    TaskFilter {
        limit: 100,
        ..TaskFilter::default()
    }
}

#[tokio::test]
async fn two_agents_taking_one_item_at_once_one_wins_and_the_other_is_told_who() {
    let (_dir, store) = board().await;
    let task = store.add_task(&new("write the docs", "sky")).await.unwrap();
    assert_eq!(task.state, TaskState::Open);
    let (a, b) = tokio::join!(
        store.move_task(
            task.id,
            Actor::Agent("rain"),
            &Move::Take,
            Some("clawmux/rain"),
            Millis(20)
        ),
        store.move_task(task.id, Actor::Agent("moon"), &Move::Take, None, Millis(20)),
    );
    let (won, lost, winner, loser) = match (a, b) {
        (Ok(t), Err(e)) => (t, e, "rain", "moon"),
        (Err(e), Ok(t)) => (t, e, "moon", "rain"),
        other => panic!("not one winner: {other:?}"),
    };
    assert_eq!(won.owner.as_deref(), Some(winner));
    assert!(
        matches!(&lost, MoveError::Refused(Refused::Held { owner, .. }) if owner == winner),
        "{loser}: {lost:?}"
    );
    if winner == "rain" {
        assert_eq!(won.branch.as_deref(), Some("clawmux/rain"));
    }
    // Only the owner finishes it; done is done.
    assert!(store
        .move_task(task.id, Actor::Agent(loser), &Move::Done, None, Millis(30))
        .await
        .is_err());
    let done = store
        .move_task(task.id, Actor::Agent(winner), &Move::Done, None, Millis(30))
        .await
        .unwrap();
    assert_eq!((done.state, done.updated_at), (TaskState::Done, Millis(30)));
    assert!(matches!(
        store
            .move_task(task.id, Actor::User, &Move::Drop, None, Millis(40))
            .await,
        Err(MoveError::Refused(Refused::Done(_)))
    ));
    assert!(matches!(
        store
            .move_task(999, Actor::User, &Move::Done, None, Millis(40))
            .await,
        Err(MoveError::Unknown(999))
    ));
    // The creator, an agent, is told; the user is no watcher row.
    assert_eq!(store.task_watchers(task.id).await.unwrap(), ["sky"]);
    assert!(store.watch_task(task.id, "moon").await.unwrap());
    assert!(!store.watch_task(task.id, "moon").await.unwrap());
    assert_eq!(store.task_watchers(task.id).await.unwrap(), ["moon", "sky"]);
}

#[tokio::test]
async fn a_list_filters_by_state_owner_and_words_the_newest_first() {
    let (_dir, store) = board().await;
    let docs = store
        .add_task(&new("write the docs", "user"))
        .await
        .unwrap();
    let tests = store
        .add_task(&new("fix 100% of the tests", "user"))
        .await
        .unwrap();
    store.add_task(&new("ship it", "rain")).await.unwrap();
    store
        .move_task(
            docs.id,
            Actor::User,
            &Move::Assign { to: "rain".into() },
            None,
            Millis(20),
        )
        .await
        .unwrap();
    let titles = |tasks: Vec<clawmux_core::board::Task>| -> Vec<String> {
        tasks.into_iter().map(|t| t.title).collect()
    };
    assert_eq!(
        titles(store.tasks(&all()).await.unwrap()),
        ["ship it", "fix 100% of the tests", "write the docs"]
    );
    let open = TaskFilter {
        state: Some(TaskState::Open),
        ..all()
    };
    assert_eq!(
        titles(store.tasks(&open).await.unwrap()),
        ["ship it", "fix 100% of the tests"]
    );
    let rains = TaskFilter {
        owner: Some("rain".into()),
        ..all()
    };
    assert_eq!(
        titles(store.tasks(&rains).await.unwrap()),
        ["write the docs"]
    );
    // The words are words, not a pattern: `%` matches a `%` only.
    let percent = TaskFilter {
        text: Some("100%".into()),
        ..all()
    };
    assert_eq!(
        titles(store.tasks(&percent).await.unwrap()),
        ["fix 100% of the tests"]
    );
    let wild = TaskFilter {
        text: Some("%".into()),
        ..all()
    };
    assert_eq!(store.tasks(&wild).await.unwrap().len(), 1);
    assert_eq!(
        store.task(tests.id).await.unwrap().unwrap().title,
        "fix 100% of the tests"
    );
    assert!(store.task(12345).await.unwrap().is_none());
}
