//! The old wait closing while the next one opens, in parallel: the agent must end IDLE every time, because
//! a wait is connected. (Without the per-agent wait lock, the old wait's disconnect could be recorded after
//! the new wait's connect, leaving the agent PROCESSING while it waits.)

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use clawmux_core::State;
use clawmux_hub::Hub;

#[test]
fn a_wait_closing_while_the_next_opens_leaves_the_agent_idle() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let hub = Hub::open(dir.path()).await.unwrap();
        hub.roster().add_agent("sky", None).await.unwrap();
        let mut current = hub.inbox().wait_open("sky").await.unwrap();
        for round in 0..300 {
            let opening = {
                let hub = hub.clone();
                tokio::spawn(async move { hub.inbox().wait_open("sky").await.unwrap() })
            };
            let closing = tokio::spawn(async move { current.close().await.unwrap() });
            closing.await.unwrap();
            current = opening.await.unwrap();
            let state = hub.roster().session("sky").await.unwrap().state;
            assert_eq!(
                state,
                State::Idle,
                "round {round}: a wait is connected but the agent shows {state:?}"
            );
        }
    });
}
