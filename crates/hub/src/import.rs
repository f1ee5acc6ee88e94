//! Bringing in an original installation: the first ClawMux kept each agent's conversation in
//! `<data dir>/sessions/<agent>/history.json`, in the same data folder this hub uses. Started there, the
//! hub would show no agents; [`Import::original`] stores each conversation (idempotently: messages
//! already imported are skipped), registers its agent, and reports agent by agent.

use std::path::{Path, PathBuf};

use clawmux_core::State;
use clawmux_store::Store;
use tokio::sync::broadcast;

use crate::agents::Agents;
use crate::clock::now;
use crate::ui_event::{SessionInfo, UiEvent};
pub use clawmux_api::import::AgentImport;

/// Where the original installation kept its conversations, inside the data folder.
const SESSIONS_DIR: &str = "sessions";
/// An agent's conversation in it.
const HISTORY_FILE: &str = "history.json";

/// The agents' history files of an original installation in `data_dir`, by agent name, sorted.
fn histories(data_dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(data_dir.join(SESSIONS_DIR)) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.path().join(HISTORY_FILE);
            let name = e.file_name().to_str()?.to_owned();
            file.is_file().then_some((name, file))
        })
        .collect();
    found.sort();
    found
}

/// Bringing the original hub's conversations into the store, once: made when the hub opens with the data
/// folder it reads, the store it fills, the agents it registers and the window it tells.
pub struct Import {
    data_dir: PathBuf,
    store: Store,
    agents: Agents,
    ui: broadcast::Sender<UiEvent>,
}

impl Import {
    pub(crate) fn new(
        data_dir: PathBuf,
        store: Store,
        agents: Agents,
        ui: broadcast::Sender<UiEvent>,
    ) -> Import {
        Import {
            data_dir,
            store,
            agents,
            ui,
        }
    }

    /// How many agents of an original installation in the data folder are not imported yet (the app
    /// offers the import when there are any).
    pub fn not_imported(&self) -> usize {
        histories(&self.data_dir)
            .iter()
            .filter(|(name, _)| self.agents.live(name).is_err())
            .count()
    }

    /// Imports every agent's history of an original installation in the data folder; a bad file is
    /// reported with why and changes nothing, and the others are imported all the same.
    pub async fn original(&self) -> Vec<AgentImport> {
        let mut report = Vec::new();
        for (agent, file) in histories(&self.data_dir) {
            let outcome = self.import_one(&agent, &file).await;
            report.push(match outcome {
                Ok((created, skipped)) => AgentImport {
                    agent,
                    created,
                    skipped,
                    error: None,
                },
                Err(why) => AgentImport {
                    agent,
                    created: 0,
                    skipped: 0,
                    error: Some(why),
                },
            });
        }
        report
    }

    async fn import_one(&self, agent: &str, file: &Path) -> Result<(usize, usize), String> {
        let json = tokio::fs::read(file)
            .await
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let new = self.agents.live(agent).is_err();
        let (work_dir, work_str) =
            crate::work_dir::resolve(&self.data_dir, agent, None).map_err(|e| e.message.clone())?;
        std::fs::create_dir_all(&work_dir)
            .map_err(|e| format!("cannot create {}: {e}", work_dir.display()))?;
        let done = self
            .store
            .import_history(agent, &work_str, &json, now())
            .await
            .map_err(|e| format!("{}: {e}", file.display()))?;
        if new {
            self.agents.insert(agent, work_dir, State::Starting);
            let row = self.store.agent(agent).await.map_err(|e| e.to_string())?;
            let unread = self.store.unread(agent).await.unwrap_or(0);
            let _ = self.ui.send(UiEvent::SessionSpawned {
                session: SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread),
            });
        }
        Ok((done.created, done.skipped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_history_is_imported_once_and_a_bad_one_is_reported_and_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_owned();
        let store = Store::open(&data.join("db.sqlite")).await.unwrap();
        let write = |agent: &str, json: &str| {
            let folder = data.join(SESSIONS_DIR).join(agent);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join(HISTORY_FILE), json).unwrap();
        };
        write(
            "sky",
            r#"{"messages":[{"role":"user","text":"hi","ts":1760000000.5,"id":"msg-0000aaaa"},
                {"role":"assistant","text":"hello","ts":1760000001,"id":"msg-0000aaab"}]}"#,
        );
        write("moon", "[]");
        let agents = Agents::default();
        let ui = broadcast::channel(16).0;
        let mut events = ui.subscribe();
        let import = Import::new(data.clone(), store.clone(), agents.clone(), ui);
        assert_eq!(import.not_imported(), 2);

        let report = import.original().await;
        assert_eq!(report.len(), 2);
        assert_eq!(report[0].agent, "moon");
        assert!(report[0].error.is_some(), "{report:?}");
        assert_eq!((report[1].created, report[1].skipped), (2, 0));
        assert!(agents.live("sky").is_ok());
        assert!(agents.live("moon").is_err());
        assert!(
            store.agent("moon").await.is_err(),
            "a bad history stored nothing"
        );
        let told = events.try_recv().unwrap();
        assert!(
            matches!(&told, UiEvent::SessionSpawned { session } if session.session_id == "sky")
        );
        assert_eq!(import.not_imported(), 1);

        let again = import.original().await;
        assert_eq!((again[1].created, again[1].skipped), (0, 2));
        assert!(
            events.try_recv().is_err(),
            "an agent already there is not spawned again"
        );
    }
}
