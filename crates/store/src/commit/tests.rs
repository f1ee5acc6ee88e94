//! Tests of `commit.rs`.

#![allow(clippy::unwrap_used)]

use clawmux_core::{Event, Millis, Source};

use super::Submitted;
use crate::{Incoming, Store};

fn waiting(agent: &str) -> Incoming<'_> {
    Incoming {
        agent,
        source: Source::Wait,
        event: &Event::WaitConnected,
        payload: b"",
        at: Millis(5),
        received_at: Millis(5),
    }
}

/// An event commits in its caller's call when nothing can share its commit, and is queued, to be
/// committed by the store's own task, when the writer is held or the agent's snapshot must be read.
#[tokio::test]
async fn an_event_commits_at_once_only_with_the_writer_free_and_its_agent_known() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).await.unwrap();
    store.add_agent("sky", "/w", Millis(0)).await.unwrap();
    // The first event since the store opened reads the agent's snapshot: queued.
    let Submitted::Queued(first) = store.submit(waiting("sky")) else {
        panic!("an uncached agent's event committed without reading its snapshot");
    };
    first.wait().await.unwrap();
    let Submitted::Done(at_once) = store.submit(waiting("sky")) else {
        panic!("a lone event with the writer free was queued");
    };
    assert_eq!(at_once.unwrap().event_id, 2);
    let held = store.writer.lock().await;
    let Submitted::Queued(later) = store.submit(waiting("sky")) else {
        panic!("an event committed while another held the writer");
    };
    drop(later); // nobody waits: committed all the same
    drop(held);
    let Submitted::Queued(unknown) = store.submit(waiting("ghost")) else {
        panic!("an unknown agent's event committed at once");
    };
    assert!(matches!(
        unknown.wait().await,
        Err(crate::StoreError::UnknownAgent(_))
    ));
    let ids: Vec<i64> = store
        .events("sky", 0, 10)
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(ids, [1, 2, 3], "the event nobody waited for is stored too");
}

/// Events committed at once, one after another, still let the other tasks of the runtime's one
/// thread run (the checkpointer, readers): each apply yields once the task's budget is spent.
#[tokio::test]
async fn a_loop_of_events_committed_at_once_lets_other_tasks_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).await.unwrap();
    store.add_agent("sky", "/w", Millis(0)).await.unwrap();
    store.apply(waiting("sky")).await.unwrap();
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let other = {
        let ran = ran.clone();
        tokio::spawn(async move { ran.store(true, std::sync::atomic::Ordering::Relaxed) })
    };
    for _ in 0..1_000 {
        store.apply(waiting("sky")).await.unwrap();
        if ran.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
    }
    assert!(
        ran.load(std::sync::atomic::Ordering::Relaxed),
        "1,000 events committed without the other task running once"
    );
    other.await.unwrap();
}
