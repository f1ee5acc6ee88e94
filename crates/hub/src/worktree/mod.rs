//! A worktree per agent: several agents in one repository each edit a checkout of their own, on a branch of
//! their own (`clawmux/<agent>`), and the user sees what each changed.
//!
//! Git is the user's own `git` ([`git`]: their config, hooks and signing apply). The worktrees live in the
//! hub's data folder, `<data dir>/worktrees/<agent>` ([`spec::path_of`]). Where an agent's worktree came
//! from is kept with its launch ([`spec::WorktreeSpec`]), so a restart resumes in the same worktree. What
//! git does for a worktree ([`repo`]) needs no hub and is tested on real repositories; the feature here,
//! made once with the store, the agents' registry, the data folder and a UI sender, finds an agent's
//! worktree for the router and owns the conflict forecast.

pub mod cleanup;
mod diff;
pub mod forecast;
pub(crate) mod git;
pub mod merge;
pub(crate) mod repo;
pub mod spec;
#[cfg(test)]
mod testing;

use std::path::{Path, PathBuf};

use clawmux_core::changes::{may_change_files, merge_message, Commit, MergeMode, Overlap};
use clawmux_core::wire::{Code, Kind};

use std::sync::Arc;

use clawmux_store::Store;
use tokio::sync::broadcast;

use crate::agents::Agents;
use crate::error::HubError;
use crate::lifecycle::launch::Launch;
use crate::ui_event::UiEvent;
pub use clawmux_api::worktree::{ChangesReply, Listed, Repository};
use cleanup::Held;
use merge::Merged;
use spec::WorktreeSpec;

/// Where agent `row`'s worktree came from, if it has one (kept with its launch).
fn worktree_of(row: &clawmux_store::AgentRow) -> Option<WorktreeSpec> {
    row.launch
        .as_deref()
        .and_then(|l| serde_json::from_str::<Launch>(l).ok())
        .and_then(|l| l.worktree)
}

/// The agents' worktrees: a cheap-clone handle, made once when the hub opens.
#[derive(Clone)]
pub struct Worktrees {
    parts: Arc<Parts>,
}

struct Parts {
    store: Store,
    agents: Agents,
    data_dir: PathBuf,
    ui: broadcast::Sender<UiEvent>,
    /// The conflict forecast between agents working in one repository (`forecast.rs`).
    forecasts: forecast::Forecasts,
    /// The forecasts looked at again after a change are the hub's tasks.
    tasks: crate::tasks::Tasks,
}

impl Worktrees {
    pub(crate) fn new(
        store: Store,
        agents: Agents,
        data_dir: PathBuf,
        ui: broadcast::Sender<UiEvent>,
        tasks: crate::tasks::Tasks,
    ) -> Worktrees {
        Worktrees {
            parts: Arc::new(Parts {
                store,
                agents,
                data_dir,
                ui,
                forecasts: forecast::Forecasts::default(),
                tasks,
            }),
        }
    }

    /// What `agent`'s work has in common with the others' in its repository, as last forecast.
    pub(crate) fn overlaps(&self, agent: &str) -> Vec<Overlap> {
        self.parts.forecasts.of(agent)
    }

    fn tell(&self, event: UiEvent) {
        // No receiver means no window is open: not an error.
        let _ = self.parts.ui.send(event);
    }

    /// Agent `agent`'s worktree: where it came from and where it is.
    async fn of_agent(&self, agent: &str) -> Result<(WorktreeSpec, PathBuf), HubError> {
        let row = self.parts.store.agent(agent).await?;
        match worktree_of(&row) {
            Some(spec) => Ok((spec, PathBuf::from(row.work_dir))),
            None => Err(HubError::new(
                Code::NoWorktree,
                format!(
                    "`{agent}` has no worktree of its own: it works in {}",
                    row.work_dir
                ),
            )),
        }
    }

    /// The branch of `agent`'s own worktree, if it works in one.
    pub(crate) async fn branch_of(&self, agent: &str) -> Result<Option<String>, HubError> {
        let row = self.parts.store.agent(agent).await?;
        Ok(worktree_of(&row).map(|spec| spec.branch))
    }

    /// Agent `agent`'s changes against the point where its branch left its base.
    pub async fn changes(&self, agent: &str) -> Result<ChangesReply, HubError> {
        let (spec, path) = self.of_agent(agent).await?;
        let scratch = self.scratch().await?;
        let (changes, patches) = diff::changes(&spec, &path, &scratch).await?;
        let message = self.suggested_message(agent, &changes.commits).await?;
        Ok(ChangesReply {
            session_id: agent.to_owned(),
            changes,
            patches: patches.into_iter().collect(),
            message,
        })
    }

    /// The merge message `agent`'s work suggests: from its latest message to the user and its commits.
    async fn suggested_message(&self, agent: &str, commits: &[Commit]) -> Result<String, HubError> {
        let recent = self.parts.store.latest(agent, 50).await?;
        let summary = recent
            .iter()
            .rev()
            .find(|m| m.kind == Kind::Assistant && m.sender == agent)
            .map(|m| m.text.as_str());
        Ok(merge_message(agent, summary, commits))
    }

    /// Merges `agent`'s branch into its base by `mode`, with `message` (default: the suggested one).
    pub async fn merge(
        &self,
        agent: &str,
        mode: MergeMode,
        message: Option<String>,
    ) -> Result<Merged, HubError> {
        let (spec, path) = self.of_agent(agent).await?;
        let message = match message.filter(|m| !m.trim().is_empty()) {
            Some(m) => m,
            None => {
                let scratch = self.scratch().await?;
                let (changes, _) = diff::changes(&spec, &path, &scratch).await?;
                self.suggested_message(agent, &changes.commits).await?
            }
        };
        let scratch = self.scratch().await?;
        let merged = merge::merge(&spec, &path, &scratch, mode, &message).await?;
        self.changed(agent);
        tracing::info!(
            agent,
            base = merged.base,
            commit = merged.commit,
            ?mode,
            "merged"
        );
        Ok(merged)
    }

    /// Every agent's worktree, with what it holds.
    pub async fn list(&self) -> Result<Vec<Listed>, HubError> {
        let mut out = Vec::new();
        for row in self.parts.store.agents().await? {
            let Some(spec) = worktree_of(&row) else {
                continue;
            };
            let path = PathBuf::from(&row.work_dir);
            let held = cleanup::held(&spec, &path).await?;
            if !held.exists && held.unmerged == 0 {
                // Removed, with nothing left of it anywhere.
                continue;
            }
            out.push(Listed {
                running: self.runs(&row.name),
                session_id: row.name,
                path,
                spec,
                held,
            });
        }
        Ok(out)
    }

    /// Whether ClawMux runs `agent`'s process now.
    fn runs(&self, agent: &str) -> bool {
        self.parts
            .agents
            .live(agent)
            .is_ok_and(|live| live.run.process().is_some())
    }

    /// Removes `agent`'s worktree and branch: never while the agent runs in it, and never with work
    /// that is nowhere else unless `discard`. Returns what it held.
    pub async fn remove(&self, agent: &str, discard: bool) -> Result<Held, HubError> {
        let (spec, path) = self.of_agent(agent).await?;
        if self.runs(agent) {
            return Err(HubError::new(
                Code::AgentRunning,
                format!("`{agent}` still runs in its worktree: terminate it first"),
            ));
        }
        let held = cleanup::remove(agent, &spec, &path, discard).await?;
        let kept = diff::kept_index(&self.parts.data_dir.join("tmp"), &spec);
        let _ = tokio::fs::remove_file(kept).await;
        tracing::info!(agent, discarded = held.unsaved(), "worktree removed");
        self.changed_in(agent, Some(spec.repo));
        Ok(held)
    }

    /// The repository `folder` is in, with its checked-out branch and the agents already working in it.
    pub async fn repository(&self, folder: &Path) -> Result<Repository, HubError> {
        let top = repo::top_of(folder).await?;
        let branch = repo::current_branch(&top).await?;
        let mut agents = Vec::new();
        for row in self.parts.store.agents().await? {
            let repo = worktree_of(&row).map(|w| w.repo);
            if repo.as_deref() == Some(top.as_path()) || Path::new(&row.work_dir).starts_with(&top)
            {
                agents.push(row.name);
            }
        }
        Ok(Repository {
            top,
            branch,
            agents,
        })
    }

    /// One of `agent`'s tool calls (`tool`) ended: if it may have changed files in a worktree of the
    /// agent's own, a Changes panel showing it reads it again. No git runs here: the hook answers at once.
    pub fn tool_ended(&self, agent: &str, tool: &str) {
        let in_worktree = self.parts.agents.live(agent).is_ok_and(|live| {
            live.work_dir
                .starts_with(spec::path_of(&self.parts.data_dir, ""))
        });
        if in_worktree && may_change_files(tool) {
            self.changed(agent);
        }
    }

    /// Tells the UIs that `agent`'s worktree changed, and looks again, in the background, at what the
    /// work of the agents in its repository has in common.
    fn changed(&self, agent: &str) {
        self.changed_in(agent, None);
    }

    /// [`Worktrees::changed`], looking in `repo` if given (a removed worktree's: its agent names none).
    fn changed_in(&self, agent: &str, repo: Option<PathBuf>) {
        self.tell(UiEvent::Changes {
            session_id: agent.to_owned(),
        });
        let worktrees = self.clone();
        let agent = agent.to_owned();
        self.parts.tasks.spawn(async move {
            let looked = match repo {
                Some(repo) => worktrees.forecast_in(&repo, &agent).await,
                None => worktrees.forecast(&agent).await,
            };
            if let Err(e) = looked {
                tracing::debug!(agent, error = %e.message, "no conflict forecast");
            }
        });
    }

    /// The agents with a worktree of repository `repo` that is still there, with where it came from.
    async fn in_repository(
        &self,
        repo: &Path,
    ) -> Result<Vec<(String, WorktreeSpec, PathBuf)>, HubError> {
        let mut out = Vec::new();
        for row in self.parts.store.agents().await? {
            if let Some(spec) = worktree_of(&row).filter(|s| s.repo == repo) {
                let path = PathBuf::from(row.work_dir);
                if path.is_dir() {
                    out.push((row.name, spec, path));
                }
            }
        }
        Ok(out)
    }

    /// The conflict forecast of the repository `agent` works in: every pair of its agents' work now,
    /// committed or not; each agent whose forecast changed is told (`forecast`). One look per repository
    /// at a time; a look asked for meanwhile runs once after it, even when this one failed (a look that
    /// met a worktree being removed fails, and the removal's own look, asked meanwhile, must still run).
    pub async fn forecast(&self, agent: &str) -> Result<(), HubError> {
        let (spec, _) = self.of_agent(agent).await?;
        self.forecast_in(&spec.repo, agent).await
    }

    /// [`Worktrees::forecast`] of `repo`, which `agent` works in (or worked in: its worktree removed).
    async fn forecast_in(&self, repo: &Path, agent: &str) -> Result<(), HubError> {
        let forecasts = &self.parts.forecasts;
        if !forecasts.begin(repo) {
            return Ok(());
        }
        loop {
            let looked = self.forecast_repository(repo, agent).await;
            if !forecasts.end(repo) {
                return looked;
            }
        }
    }

    /// The forecast of every agent in `repo`, `agent` (which asked) among them even if its worktree is
    /// gone: its forecast is then cleared.
    async fn forecast_repository(&self, repo: &Path, agent: &str) -> Result<(), HubError> {
        let agents = self.in_repository(repo).await?;
        let scratch = self.scratch().await?;
        let mut work = Vec::new();
        // One agent alone has nothing in common with anyone: no git runs.
        let alone = agents.len() < 2;
        for (name, spec, path) in agents.iter().filter(|_| !alone) {
            let now = forecast::work_now(spec, path, &scratch).await?;
            let base = forecast::base_now(repo, spec).await;
            // Work already on the base (merged) has nothing in common with anyone's.
            if let Some(landing) = forecast::on_base(repo, &base, &now).await? {
                work.push((name.clone(), landing));
            }
        }
        let mut overlaps: std::collections::HashMap<String, Vec<Overlap>> = agents
            .iter()
            .map(|(n, _, _)| (n.clone(), Vec::new()))
            .collect();
        overlaps.entry(agent.to_owned()).or_default();
        for (i, (a, a_work)) in work.iter().enumerate() {
            for (b, b_work) in &work[i + 1..] {
                if let Some(o) = forecast::between(repo, b, a_work, b_work).await? {
                    let mirrored = Overlap {
                        other: a.clone(),
                        ..o.clone()
                    };
                    overlaps.entry(a.clone()).or_default().push(o);
                    overlaps.entry(b.clone()).or_default().push(mirrored);
                }
            }
        }
        for (session_id, overlaps) in self.parts.forecasts.record(overlaps) {
            self.tell(UiEvent::Forecast {
                session_id,
                overlaps,
            });
        }
        Ok(())
    }

    /// The folder for scratch files (a scratch index, a temporary checkout), in the data folder.
    async fn scratch(&self) -> Result<PathBuf, HubError> {
        let scratch = self.parts.data_dir.join("tmp");
        tokio::fs::create_dir_all(&scratch).await.map_err(|e| {
            HubError::new(
                Code::GitFailed,
                format!("cannot create {}: {e}", scratch.display()),
            )
        })?;
        Ok(scratch)
    }
}

#[cfg(test)]
mod tests;
