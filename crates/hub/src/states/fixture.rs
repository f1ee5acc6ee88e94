//! The test fixture of the states: a store, the agents and a UI sender, as the hub makes them.

use super::*;

/// The states, the window's events, and the folder that holds the store.
pub(crate) struct Fixture {
    pub(crate) states: States,
    pub(crate) events: broadcast::Receiver<UiEvent>,
    pub(crate) usage: crate::usage::Usage,
    pub(crate) finds: crate::found::Finds,
    pub(crate) dir: tempfile::TempDir,
}

pub(crate) async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    let agents = Agents::default();
    agents.insert("sky", "/w/sky".into(), State::Starting);
    let ui = broadcast::channel(256).0;
    let events = ui.subscribe();
    let options = crate::config::Options::from_env();
    let usage = crate::usage::Usage::new(
        store.clone(),
        agents.clone(),
        ui.clone(),
        crate::usage::figures::Figures::restore(&store)
            .await
            .unwrap(),
        tokio::sync::mpsc::unbounded_channel().0,
        &options,
        crate::tasks::Tasks::default(),
    );
    let (finds, _found) = crate::found::Finds::channel();
    let opinion = crate::opinion::SecondOpinion::new(
        store.clone(),
        ui.clone(),
        Arc::new(Mutex::new(crate::opinion::judge::Judge::new(
            options.second_opinion_after,
        ))),
        finds.clone(),
    );
    let states = States::new(
        store,
        agents,
        ui,
        Observers::default(),
        usage.clone(),
        opinion,
    );
    Fixture {
        states,
        events,
        usage,
        finds,
        dir,
    }
}

/// The fixture with more agents beside `sky`, each registered and live (in `/w`).
pub(crate) async fn fixture_with(agents: &[&str]) -> Fixture {
    let f = fixture().await;
    for name in agents {
        f.states
            .store()
            .add_agent(name, "/w", Millis(1))
            .await
            .unwrap();
        f.states.insert_live(name, "/w".into());
    }
    f
}

/// The events told so far.
pub(crate) fn told(events: &mut broadcast::Receiver<UiEvent>) -> Vec<UiEvent> {
    std::iter::from_fn(|| events.try_recv().ok()).collect()
}
