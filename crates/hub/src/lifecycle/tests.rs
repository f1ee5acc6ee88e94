//! The lifecycle's glue over a temporary store: what it refuses before it creates anything, and the
//! errands it carries out for other features. Starting real agents is tested end to end (`tests/`).

use std::sync::atomic::AtomicU16;
use std::sync::Arc;

use clawmux_core::wire::Code;

use super::{errands, Lifecycle, SpawnRequest};
use crate::states::fixture::{fixture, Fixture};
use crate::usage::Errand;

fn lifecycle(f: &Fixture, port: u16) -> Lifecycle {
    let options = crate::config::Options::from_env();
    Lifecycle::new(
        f.states.clone(),
        super::tmux::Tmux::new(options.tmux.clone(), f.dir.path()),
        Arc::new(options),
        f.dir.path().to_owned(),
        Arc::new(AtomicU16::new(port)),
        crate::tasks::Tasks::default(),
    )
}

#[tokio::test]
async fn a_spawn_before_the_hub_serves_is_refused_and_leaves_nothing() {
    let f = fixture().await;
    let lifecycle = lifecycle(&f, 0);
    let e = lifecycle
        .spawn(SpawnRequest {
            name: "new".into(),
            demo: true,
            ..SpawnRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::NotServing);
    assert!(f.states.live("new").is_err());
    assert!(f.states.store().agent("new").await.is_err());
    assert!(!f.dir.path().join("agents/new").exists());
    // A taken name is refused first, whatever else is wrong.
    let e = lifecycle
        .spawn(SpawnRequest {
            name: "sky".into(),
            demo: true,
            ..SpawnRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::AgentExists);
}

#[tokio::test]
async fn an_agent_clawmux_did_not_start_is_not_ended_restarted_or_interrupted() {
    let f = fixture().await;
    let lifecycle = lifecycle(&f, 1);
    for e in [
        lifecycle.terminate("sky").await.unwrap_err(),
        lifecycle.restart("sky").await.unwrap_err(),
        lifecycle.interrupt("sky").await.unwrap_err(),
    ] {
        assert_eq!(e.code, Code::NotManaged);
    }
    assert_eq!(
        lifecycle.terminate("nobody").await.unwrap_err().code,
        Code::UnknownAgent
    );
}

#[tokio::test]
async fn the_notes_other_features_ask_for_are_written_in_order_until_they_stop_asking() {
    let f = fixture().await;
    let (send, receive) = tokio::sync::mpsc::unbounded_channel();
    for text in ["first", "second"] {
        send.send(Errand::Note {
            agent: "sky".into(),
            text: text.into(),
        })
        .unwrap();
    }
    drop(send);
    // Returns once every sender is gone, having carried out all they sent.
    errands(lifecycle(&f, 1), receive).await;
    let notes: Vec<String> = f
        .states
        .store()
        .latest("sky", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(notes, ["first", "second"]);
}
