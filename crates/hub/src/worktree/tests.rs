//! Tests of `worktree/mod.rs`.

use super::testing::repo;
use super::*;
use clawmux_core::Millis;

/// The feature over a temporary store and a real repository, `agents` each in a worktree of it.
async fn worktrees(
    agents: &[&str],
) -> (
    Worktrees,
    broadcast::Receiver<UiEvent>,
    tempfile::TempDir,
    PathBuf,
) {
    let (tmp, top, data) = repo();
    let store = Store::open(&data.join("db.sqlite")).await.unwrap();
    let registry = Agents::default();
    for name in agents {
        let (spec, path) = repo::create(&data, name, &top, None).await.unwrap();
        let launch = Launch {
            program: "claude".into(),
            args: Vec::new(),
            model: None,
            effort: None,
            demo: false,
            permission_mode: None,
            worktree: Some(spec),
        };
        let launch = serde_json::to_string(&launch).unwrap();
        let work_dir = path.to_string_lossy();
        store
            .add_launched_agent(name, &work_dir, Some(&launch), Millis(1))
            .await
            .unwrap();
        registry.insert(name, path, clawmux_core::State::Idle);
    }
    let ui = broadcast::channel(64).0;
    let events = ui.subscribe();
    (
        Worktrees::new(store, registry, data, ui, crate::tasks::Tasks::default()),
        events,
        tmp,
        top,
    )
}

#[tokio::test]
async fn an_edit_is_seen_told_and_forecast_against_the_other_agents_work() {
    let (worktrees, mut events, _tmp, top) = worktrees(&["sky", "moon"]).await;
    let path = |agent: &str| worktrees.parts.agents.live(agent).unwrap().work_dir.clone();
    for agent in ["sky", "moon"] {
        std::fs::write(
            path(agent).join("src/a.rs"),
            format!("fn a() {{ {agent}() }}\n"),
        )
        .unwrap();
    }
    let changes = worktrees.changes("sky").await.unwrap();
    assert_eq!(changes.changes.files.len(), 1, "{changes:?}");
    assert!(changes.patches["src/a.rs"].contains("sky()"));

    // A tool call that may have written: the window hears it, and the forecast sees both agents'
    // edits of one file.
    worktrees.tool_ended("sky", "Edit");
    let forecast = async {
        loop {
            if let UiEvent::Forecast {
                session_id,
                overlaps,
            } = events.recv().await.unwrap()
            {
                if session_id == "sky" && !overlaps.is_empty() {
                    break overlaps;
                }
            }
        }
    };
    let overlaps = tokio::time::timeout(std::time::Duration::from_secs(30), forecast)
        .await
        .expect("no forecast of the two agents' work");
    assert_eq!(overlaps[0].other, "moon");
    assert_eq!(worktrees.overlaps("moon")[0].other, "sky");
    // A tool that writes nothing reads nothing again.
    worktrees.tool_ended("sky", "Read");
    while let Ok(event) = events.try_recv() {
        assert!(!matches!(event, UiEvent::Changes { .. }), "{event:?}");
    }

    let repository = worktrees.repository(&top).await.unwrap();
    assert_eq!(repository.branch.as_deref(), Some("main"));
    assert_eq!(repository.agents, ["moon", "sky"]);
    assert_eq!(
        worktrees.changes("nobody").await.unwrap_err().code,
        Code::UnknownAgent
    );
}

#[tokio::test]
async fn a_worktree_with_work_nowhere_else_is_kept_unless_discarded() {
    let (worktrees, _events, _tmp, _top) = worktrees(&["sky"]).await;
    let path = worktrees.parts.agents.live("sky").unwrap().work_dir.clone();
    std::fs::write(path.join("new.txt"), "mine\n").unwrap();
    let e = worktrees.remove("sky", false).await.unwrap_err();
    assert_eq!(e.code, Code::UnsavedWork, "{e:?}");
    assert!(path.is_dir());
    let held = worktrees.remove("sky", true).await.unwrap();
    assert!(held.unsaved());
    assert!(!path.exists());
    assert!(worktrees.list().await.unwrap().is_empty());
}
