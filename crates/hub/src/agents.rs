//! The agents this hub knows, by name, each with its live data: the one registry the hub and the features
//! that look an agent up share (a feature names it in its constructor instead of reaching through the hub).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use clawmux_core::State;

use crate::error::HubError;
use crate::live::Live;
use clawmux_core::sync::Locked;

/// A cheap-clone handle to the registry. A std mutex: held only to look up or insert, never across an await.
#[derive(Clone, Default)]
pub(crate) struct Agents(Arc<Mutex<HashMap<String, Arc<Live>>>>);

impl Agents {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Live>>> {
        self.0.locked()
    }

    /// `agent`'s live data, or `unknown_agent`.
    pub(crate) fn live(&self, agent: &str) -> Result<Arc<Live>, HubError> {
        self.lock()
            .get(agent)
            .cloned()
            .ok_or_else(|| HubError::unknown_agent(agent))
    }

    /// Every agent's live data.
    pub(crate) fn lives(&self) -> Vec<Arc<Live>> {
        self.lock().values().cloned().collect()
    }

    /// Registers `agent` working in `work_dir`, in `state` (replacing what was registered under its name).
    pub(crate) fn insert(&self, agent: &str, work_dir: PathBuf, state: State) {
        self.lock()
            .insert(agent.to_owned(), Arc::new(Live::new(work_dir, state)));
    }

    /// Forgets `agent`.
    pub(crate) fn remove(&self, agent: &str) {
        self.lock().remove(agent);
    }

    /// The agent whose work folder is `work_dir`.
    pub(crate) fn working_in(&self, work_dir: &Path) -> Option<String> {
        self.lock()
            .iter()
            .find(|(_, live)| live.work_dir == work_dir)
            .map(|(name, _)| name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_is_found_by_name_and_by_folder_until_it_is_forgotten() {
        let agents = Agents::default();
        agents.insert("sky", PathBuf::from("/w/sky"), State::Idle);
        let other = agents.clone();
        assert_eq!(other.live("sky").unwrap().work_dir, Path::new("/w/sky"));
        assert_eq!(
            other.working_in(Path::new("/w/sky")).as_deref(),
            Some("sky")
        );
        assert_eq!(other.lives().len(), 1);
        agents.remove("sky");
        let e = other.live("sky").err().unwrap();
        assert_eq!(e.code, clawmux_core::wire::Code::UnknownAgent);
        assert_eq!(other.working_in(Path::new("/w/sky")), None);
    }
}
