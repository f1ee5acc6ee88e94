//! Agents back after a restart. An agent that was running when the machine or the hub went down (its tmux
//! session is gone at the next start, and the user had not ended it) is resumed in its conversation and its
//! worktree when the hub starts again, told that what it was doing was cut off, one every few seconds so
//! that ten agents do not start at once, with a note in each conversation. The preference
//! `resume_agents` (on by default, `<data>/preferences.json`) turns it off; then the agents found
//! interrupted are kept for `clawmux resume --all`, which resumes them by hand.
//!
//! A conversation whose file Claude Code no longer has cannot be resumed: the agent starts a new one, and
//! its note says so.

use std::path::Path;
use std::time::Duration;

use clawmux_core::wire::{Code, MsgId};

use super::launch::Begin;
use super::Lifecycle;
use crate::error::HubError;
pub use clawmux_api::lifecycle::Preferences;
use clawmux_core::sync::Locked;

/// The preferences' file, in the data folder.
const PREFERENCES: &str = "preferences.json";
/// The time between two agents resumed.
pub const STAGGER: Duration = Duration::from_secs(2);

/// An agent found interrupted: whether it was working, and the last message it was handed then.
#[derive(Debug, Clone, Copy)]
pub(super) struct Interrupted<'a> {
    /// It was working (its turn was cut off), not waiting.
    pub working: bool,
    /// The last message handed to it (Claude Code may not have kept it).
    pub last: Option<&'a MsgId>,
}

/// Whether Claude Code still has conversation `session` (its file, in any project folder under
/// `claude_dir`).
pub fn conversation_exists(claude_dir: &Path, session: &str) -> bool {
    let Ok(projects) = std::fs::read_dir(claude_dir.join("projects")) else {
        return false;
    };
    let file = format!("{session}.jsonl");
    projects
        .flatten()
        .any(|project| project.path().join(&file).is_file())
}

/// The preferences saved in `data_dir` (the defaults when none were saved or the file cannot be read):
/// read once, when the hub opens; the hub keeps them after.
pub(super) fn load_preferences(data_dir: &Path) -> Preferences {
    match std::fs::read(data_dir.join(PREFERENCES)) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "{PREFERENCES} is unreadable: the defaults hold");
            Preferences::default()
        }),
        Err(_) => Preferences::default(),
    }
}

impl Lifecycle {
    /// The preferences, as saved.
    pub fn preferences(&self) -> Preferences {
        *self.preferences.locked()
    }

    /// Saves the preferences (0600, written off the async runtime), then keeps them.
    pub async fn set_preferences(&self, preferences: Preferences) -> Result<Preferences, HubError> {
        let bytes = serde_json::to_vec_pretty(&preferences)
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        let file = self.data_dir.join(PREFERENCES);
        tokio::task::spawn_blocking(move || crate::config::write_private(&file, &bytes))
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
            .map_err(|e| {
                HubError::new(Code::Internal, format!("cannot save {PREFERENCES}: {e}"))
            })?;
        *self.preferences.locked() = preferences;
        Ok(preferences)
    }

    /// After a start: the agents found interrupted (`was working` each) are resumed, one every
    /// [`STAGGER`], if the preference says so; else kept for [`Lifecycle::resume_interrupted`].
    pub(super) fn interrupted_at_start(&self, agents: Vec<(String, bool)>) {
        if agents.is_empty() {
            return;
        }
        if !self.preferences().resume_agents {
            self.interrupted.locked().extend(agents);
            return;
        }
        let lifecycle = self.clone();
        self.tasks
            .spawn(async move { lifecycle.resume_all(agents).await });
    }

    /// `clawmux resume --all`: resumes the agents found interrupted at this start and not resumed since,
    /// one every [`STAGGER`]; answers which.
    pub fn resume_interrupted(&self) -> Vec<String> {
        let agents: Vec<(String, bool)> = std::mem::take(&mut *self.interrupted.locked());
        let names = agents.iter().map(|(name, _)| name.clone()).collect();
        let lifecycle = self.clone();
        self.tasks
            .spawn(async move { lifecycle.resume_all(agents).await });
        names
    }

    async fn resume_all(&self, agents: Vec<(String, bool)>) {
        for (i, (name, working)) in agents.into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(STAGGER).await;
            }
            let last = if working {
                self.states.store().last_handed(&name).await.ok().flatten()
            } else {
                None
            };
            let interrupted = Interrupted {
                working,
                last: last.as_ref().map(|m| &m.id),
            };
            let note = match self.start_again(&name, Some(interrupted)).await {
                Ok(true) => match &last {
                    Some(m) => format!(
                        "`{name}` was resumed in its conversation after the interruption. It was working on \
                         {} (\"{}\"), which its conversation may have lost: if it asks, say it again.",
                        m.id,
                        excerpt(&m.text)
                    ),
                    None => format!(
                        "`{name}` was resumed in its conversation after the interruption."
                    ),
                },
                Ok(false) => format!(
                    "`{name}` was started again after the interruption, in a new conversation: Claude \
                     Code no longer has its earlier one."
                ),
                Err(e) => format!(
                    "`{name}` could not be resumed after the interruption: {}",
                    e.message
                ),
            };
            self.note(&name, &note).await;
        }
    }
}

/// The start of a message, for a note.
fn excerpt(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// How an agent starts again: `interrupted`, or restarted by the user (none); its conversation continues
/// if Claude Code still has it (`kept`, [`conversation_exists`]), else a new one begins under `fresh`.
pub(super) fn begin<'a>(
    session: Option<&'a str>,
    interrupted: Option<Interrupted<'a>>,
    kept: bool,
    fresh: &'a str,
) -> Begin<'a> {
    match (session, interrupted) {
        (Some(s), None) => Begin::Resumed(s),
        (Some(s), Some(i)) if kept => {
            if i.working {
                Begin::AfterInterruption(s, i.last)
            } else {
                Begin::Resumed(s)
            }
        }
        (Some(_) | None, _) => Begin::Fresh(fresh),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_continues_only_where_claude_code_still_has_it() {
        let claude = tempfile::tempdir().unwrap();
        let project = claude.path().join("projects/-work-sky");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("abc.jsonl"), "{}\n").unwrap();
        let dir = claude.path();
        let id = MsgId::from_u32(7);
        let working = Some(Interrupted {
            working: true,
            last: Some(&id),
        });
        let waiting = Some(Interrupted {
            working: false,
            last: None,
        });
        let (abc, gone) = (
            conversation_exists(dir, "abc"),
            conversation_exists(dir, "gone"),
        );
        assert!(abc && !gone);
        assert_eq!(begin(Some("abc"), None, abc, "new"), Begin::Resumed("abc"));
        assert_eq!(
            begin(Some("abc"), working, abc, "new"),
            Begin::AfterInterruption("abc", Some(&id))
        );
        assert_eq!(
            begin(Some("abc"), waiting, abc, "new"),
            Begin::Resumed("abc"),
            "waiting when it stopped: nothing was cut off"
        );
        assert_eq!(
            begin(Some("gone"), working, gone, "new"),
            Begin::Fresh("new")
        );
        assert_eq!(begin(None, working, false, "new"), Begin::Fresh("new"));
        assert_eq!(excerpt("build the docs\nand more"), "build the docs");
        assert_eq!(excerpt(&"x".repeat(100)).chars().count(), 81);
        assert!(!conversation_exists(Path::new("/nonexistent"), "abc"));
    }
}
