//! Bringing in an original installation: the first ClawMux kept each agent's conversation in
//! `<data dir>/sessions/<agent>/history.json`, in the same data folder this hub uses. Started there, the
//! hub would show no agents; [`Hub::import_original`] stores each conversation (idempotently: messages
//! already imported are skipped), registers its agent, and reports agent by agent.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::hub::{now, Hub};
use crate::ui_event::{SessionInfo, UiEvent};

/// Where the original installation kept its conversations, inside the data folder.
const SESSIONS_DIR: &str = "sessions";
/// An agent's conversation in it.
const HISTORY_FILE: &str = "history.json";

/// What importing one agent's history did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct AgentImport {
    /// The agent (its folder's name).
    pub agent: String,
    /// Messages stored now.
    pub created: usize,
    /// Messages an earlier import had stored already.
    pub skipped: usize,
    /// Why this history could not be imported (nothing of it was stored), if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

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

/// Bringing the original hub's conversations into the store, once.
#[derive(Clone, Copy)]
pub struct Import<'h> {
    hub: &'h Hub,
}

impl<'h> Import<'h> {
    /// The feature as `hub` composes it.
    pub fn of(hub: &'h Hub) -> Import<'h> {
        Import { hub }
    }
}

impl Import<'_> {
    /// How many agents of an original installation in the data folder are not imported yet (the app
    /// offers the import when there are any).
    pub fn not_imported(&self) -> usize {
        histories(self.hub.data_dir())
            .iter()
            .filter(|(name, _)| self.hub.live(name).is_err())
            .count()
    }

    /// Imports every agent's history of an original installation in the data folder; a bad file is
    /// reported with why and changes nothing, and the others are imported all the same.
    pub async fn original(&self) -> Vec<AgentImport> {
        let mut report = Vec::new();
        for (agent, file) in histories(self.hub.data_dir()) {
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
        let new = self.hub.live(agent).is_err();
        let (work_dir, work_str) = crate::work_dir::resolve(self.hub.data_dir(), agent, None)
            .map_err(|e| e.message.clone())?;
        std::fs::create_dir_all(&work_dir)
            .map_err(|e| format!("cannot create {}: {e}", work_dir.display()))?;
        let done = self
            .hub
            .store()
            .import_history(agent, &work_str, &json, now())
            .await
            .map_err(|e| format!("{}: {e}", file.display()))?;
        if new {
            self.hub.insert_live(agent, work_dir);
            let row = self
                .hub
                .store()
                .agent(agent)
                .await
                .map_err(|e| e.to_string())?;
            let unread = self.hub.store().unread(agent).await.unwrap_or(0);
            self.hub.broadcast(UiEvent::SessionSpawned {
                session: SessionInfo::new(&row.name, &row.work_dir, &row.snapshot, unread),
            });
        }
        Ok((done.created, done.skipped))
    }
}
