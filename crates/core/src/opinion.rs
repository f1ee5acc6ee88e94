//! A second opinion: Claude Code's own view of a session, beside ours.
//!
//! Claude Code 2.1 keeps a small file per running process (`~/.claude/sessions/<pid>.json`) with a status
//! (`idle`, `busy`, `waiting` with what for) and removes it when the process ends. It is never a source of
//! our state: its statuses mean other things than ours (a spawned agent that is Idle for us is running
//! `clawmux wait`, a tool, so Claude Code says `busy`), it lags, and peers report that a pending question
//! reads `idle` there. But when it disagrees with ours for longer than a few seconds, the disagreement is
//! worth recording: it is the first thing to read when an indicator looks wrong. [`disagreement`] is the
//! rule, in words, for both kinds of session.
//!
//! An agent started in ClawMux's terminal bridge also reports its state itself (the Program Status
//! Protocol, [`crate::program_status`]): exact and at once, where the file lags. Once an agent has reported,
//! its reports are Claude Code's view of it and the file is not read for it; both are judged by the same
//! rule, through [`ClaudeStatus::reported`].

use serde::{Deserialize, Serialize};

use crate::program_status::{ReportState, StatusReport};
use crate::state::{Snapshot, State};

/// What Claude Code's session file says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaudeStatus {
    /// At its prompt, doing nothing.
    Idle,
    /// Working: the model or a tool is running.
    Busy,
    /// A dialog waits for the user (`waitingFor` says which).
    Waiting,
    /// No session file: the process has ended (or never wrote one).
    Gone,
    /// A status this version does not know.
    #[serde(other)]
    Unknown,
}

impl ClaudeStatus {
    /// The word Claude Code writes (`gone` for a missing file).
    pub fn as_str(self) -> &'static str {
        match self {
            ClaudeStatus::Idle => "idle",
            ClaudeStatus::Busy => "busy",
            ClaudeStatus::Waiting => "waiting",
            ClaudeStatus::Gone => "gone",
            ClaudeStatus::Unknown => "unknown",
        }
    }

    /// Parses the file's `status` field.
    pub fn parse(status: &str) -> ClaudeStatus {
        match status {
            "idle" => ClaudeStatus::Idle,
            "busy" => ClaudeStatus::Busy,
            "waiting" => ClaudeStatus::Waiting,
            _ => ClaudeStatus::Unknown,
        }
    }
}

impl ClaudeStatus {
    /// What a status report says in the file's words, with what a blocked program waits for; `None` for a
    /// child record's (a subagent's, a task's: not the session's own state).
    pub fn reported(report: &StatusReport) -> Option<(ClaudeStatus, Option<String>)> {
        if report.id.is_some() {
            return None;
        }
        let status = match report.state {
            ReportState::Idle | ReportState::Done | ReportState::Failed => ClaudeStatus::Idle,
            ReportState::Working => ClaudeStatus::Busy,
            ReportState::Blocked => ClaudeStatus::Waiting,
            ReportState::Clear => ClaudeStatus::Gone,
            ReportState::Unknown => ClaudeStatus::Unknown,
        };
        // Printable and short again: a report may come from anything that can post for the agent.
        let waiting_for = report
            .kind
            .as_deref()
            .filter(|_| status == ClaudeStatus::Waiting)
            .map(|k| crate::printable::one_line(k, 32));
        Some((status, waiting_for))
    }
}

/// Where Claude Code's view came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpinionSource {
    /// Its session file (`~/.claude/sessions/<pid>.json`).
    #[default]
    SessionFile,
    /// Its status reports to the terminal (OSC 7501).
    StatusReport,
}

impl OpinionSource {
    /// Which of its words, in words.
    pub fn words(self) -> &'static str {
        match self {
            OpinionSource::SessionFile => "its session file",
            OpinionSource::StatusReport => "its status report",
        }
    }
}

/// A recorded disagreement: what Claude Code said, and for how long it had disagreed with us.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opinion {
    /// Claude Code's status.
    pub status: ClaudeStatus,
    /// Where it said so (older records: the session file).
    #[serde(default)]
    pub from: OpinionSource,
    /// What it waits for, when it waits (`permission prompt`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
    /// How long the two views had disagreed when this was recorded.
    pub for_ms: u64,
    /// Why the two views disagree, in words.
    pub why: String,
}

/// Whether Claude Code's view disagrees with ours, and why, in words; `None` when they agree (or when
/// either view says too little to tell).
///
/// `spawned` sessions run `clawmux wait` as a tool, so Claude Code says `busy` both while they work and
/// while they wait for the user's message; observed sessions are at Claude Code's own prompt when idle.
pub fn disagreement(ours: &Snapshot, theirs: ClaudeStatus) -> Option<String> {
    let needs_you = ours.attention.as_ref().is_some_and(|a| a.need.is_waiting());
    let spawned = !ours.observed;
    let shown = crate::state::shown(ours);
    let why = match (ours.state, theirs) {
        (_, ClaudeStatus::Unknown) => return None,
        (State::Dead, ClaudeStatus::Gone) => return None,
        (State::Dead, _) => format!(
            "Claude Code's session file says {}, so its process still runs, while the indicator says {shown}",
            theirs.as_str()
        ),
        (_, ClaudeStatus::Gone) => return None, // the file comes a moment after the process starts
        (_, ClaudeStatus::Waiting) if needs_you => return None,
        (_, ClaudeStatus::Waiting) => format!(
            "Claude Code waits for the user in its terminal, while the indicator says {shown}"
        ),
        // A pending question can read idle there; a dialog can read busy while it opens.
        (_, ClaudeStatus::Idle | ClaudeStatus::Busy) if needs_you => match theirs {
            ClaudeStatus::Busy => format!(
                "Claude Code says it is working, while the indicator says {shown}"
            ),
            ClaudeStatus::Idle
            | ClaudeStatus::Waiting
            | ClaudeStatus::Gone
            | ClaudeStatus::Unknown => return None,
        },
        (State::Starting, ClaudeStatus::Idle | ClaudeStatus::Busy) => return None,
        (State::Idle | State::Processing | State::Compacting, ClaudeStatus::Busy) if spawned => {
            return None
        }
        (State::Idle | State::Processing | State::Compacting, ClaudeStatus::Idle) if spawned => {
            format!(
                "Claude Code is at its prompt, neither working nor in `clawmux wait`, while the indicator says {shown}"
            )
        }
        (State::Idle, ClaudeStatus::Idle) => return None,
        (State::Idle, ClaudeStatus::Busy) => {
            format!("Claude Code says it is working, while the indicator says {shown}")
        }
        (State::Processing | State::Compacting, ClaudeStatus::Busy) => return None,
        (State::Processing | State::Compacting, ClaudeStatus::Idle) => format!(
            "Claude Code is at its prompt, doing nothing, while the indicator says {shown}"
        ),
    };
    Some(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{Attention, Need};
    use crate::time::Millis;

    fn snap(state: State, observed: bool, need: Option<Need>) -> Snapshot {
        let mut s = if observed {
            Snapshot::observed(Millis(0))
        } else {
            Snapshot::new(Millis(0))
        };
        s.state = state;
        s.attention = need.map(|need| Attention {
            need,
            reason: "r".into(),
            tool_use_id: None,
            tool_name: None,
            since: Millis(0),
            notice: false,
        });
        s
    }

    #[test]
    fn a_spawned_agent_in_its_wait_is_busy_for_claude_code() {
        let idle = snap(State::Idle, false, None);
        assert_eq!(disagreement(&idle, ClaudeStatus::Busy), None);
        let why = disagreement(&idle, ClaudeStatus::Idle).unwrap();
        assert!(
            why.contains("at its prompt") && why.contains("Idle"),
            "{why}"
        );
        let working = snap(State::Processing, false, None);
        assert_eq!(disagreement(&working, ClaudeStatus::Busy), None);
        assert!(disagreement(&working, ClaudeStatus::Idle).is_some());
    }

    #[test]
    fn an_observed_session_is_idle_at_its_prompt() {
        let idle = snap(State::Idle, true, None);
        assert_eq!(disagreement(&idle, ClaudeStatus::Idle), None);
        assert!(disagreement(&idle, ClaudeStatus::Busy).is_some());
        let working = snap(State::Processing, true, None);
        assert_eq!(disagreement(&working, ClaudeStatus::Busy), None);
        assert!(disagreement(&working, ClaudeStatus::Idle)
            .unwrap()
            .contains("Working"));
    }

    #[test]
    fn dialogs_and_needs() {
        let working = snap(State::Processing, false, None);
        assert!(disagreement(&working, ClaudeStatus::Waiting)
            .unwrap()
            .contains("waits for the user"));
        let needs = snap(State::Processing, false, Some(Need::Permission));
        assert_eq!(disagreement(&needs, ClaudeStatus::Waiting), None);
        assert_eq!(disagreement(&needs, ClaudeStatus::Idle), None);
        assert!(disagreement(&needs, ClaudeStatus::Busy)
            .unwrap()
            .contains("Needs you"));
        let failed = snap(State::Processing, true, Some(Need::Error));
        assert!(disagreement(&failed, ClaudeStatus::Busy).is_none());
    }

    #[test]
    fn the_dead_and_the_gone() {
        let dead = snap(State::Dead, false, None);
        assert_eq!(disagreement(&dead, ClaudeStatus::Gone), None);
        assert!(disagreement(&dead, ClaudeStatus::Idle)
            .unwrap()
            .contains("still runs"));
        assert_eq!(
            disagreement(&snap(State::Idle, false, None), ClaudeStatus::Gone),
            None
        );
        assert_eq!(
            disagreement(&snap(State::Starting, false, None), ClaudeStatus::Idle),
            None
        );
        assert_eq!(
            disagreement(&snap(State::Idle, false, None), ClaudeStatus::Unknown),
            None
        );
        assert_eq!(ClaudeStatus::parse("busy"), ClaudeStatus::Busy);
        assert_eq!(ClaudeStatus::parse("sleepy"), ClaudeStatus::Unknown);
    }

    #[test]
    fn reports_in_the_files_words() {
        let report = |body: &[u8]| crate::program_status::parse(body).unwrap();
        let said = |body: &[u8]| ClaudeStatus::reported(&report(body));
        assert_eq!(said(b"state=working"), Some((ClaudeStatus::Busy, None)));
        assert_eq!(said(b"state=done"), Some((ClaudeStatus::Idle, None)));
        assert_eq!(
            said(b"state=blocked:kind=permission"),
            Some((ClaudeStatus::Waiting, Some("permission".into())))
        );
        assert_eq!(said(b"state=clear"), Some((ClaudeStatus::Gone, None)));
        assert_eq!(said(b"state=working:id=task-1"), None, "a child's record");
    }
}
