//! The canonical agent state of `docs/STATE-MACHINE.md`, and the snapshot the machine steps.

use serde::{Deserialize, Serialize};

use crate::attention::{Attention, ToolRef};
use crate::time::Millis;

/// The five canonical states. The sidebar shows exactly these (Starting yellow, Idle green, Working blue for
/// both Processing and Compacting, Offline gray for Dead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Spawned, Claude booting; stays here until the first `clawmux wait` connects.
    Starting,
    /// Blocked in `clawmux wait`, waiting for a message.
    Idle,
    /// Working: reading, running commands, thinking.
    Processing,
    /// Claude is compacting its context window.
    Compacting,
    /// The session has ended.
    Dead,
}

impl State {
    /// Every state, in the order of the table in docs/STATE-MACHINE.md.
    pub const ALL: [State; 5] = [
        State::Starting,
        State::Idle,
        State::Processing,
        State::Compacting,
        State::Dead,
    ];

    /// The wire name (`starting|idle|processing|compacting|dead`), as the API and the database spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Starting => "starting",
            State::Idle => "idle",
            State::Processing => "processing",
            State::Compacting => "compacting",
            State::Dead => "dead",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// The status_text a state shows when nothing more specific has been said (the defaults of
    /// docs/STATE-MACHINE.md).
    pub fn default_activity(self) -> &'static str {
        match self {
            State::Starting => "",
            State::Idle => "Waiting",
            State::Processing => "Processing...",
            State::Compacting => "Compacting context...",
            State::Dead => "",
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything the machine knows about one agent: its state, its status_text and when it entered the state.
///
/// A struct rather than a bare enum on purpose: the "needs you" overlay of `docs/STATE-MACHINE.md` (waiting
/// for permission, an answer, a plan approval) sits beside the canonical state as one more field, so the
/// five-state table, its tests and the sidebar colours stay exactly as they are when it arrives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The canonical state.
    pub state: State,
    /// The status_text: orthogonal to `state`, kept across transitions, overwritten only explicitly.
    pub activity: String,
    /// When `state` was entered (source time of the event that moved it).
    pub since: Millis,
    /// What the user is needed for, if anything ("Needs you").
    pub attention: Option<Attention>,
    /// The main agent's latest tool call, for the PermissionRequest that follows it.
    pub last_tool: Option<ToolRef>,
    /// A session ClawMux did not start, seen through `clawmux hooks install`: no `clawmux wait`, so its
    /// turns are read from UserPromptSubmit and Stop instead (the second table of `machine.rs`).
    pub observed: bool,
    /// The latest source time applied: a transcript line older than this came too late to decide anything.
    pub watermark: Millis,
}

impl Snapshot {
    /// A newly registered agent: STARTING, no status_text.
    pub fn new(at: Millis) -> Snapshot {
        Snapshot {
            state: State::Starting,
            activity: String::new(),
            since: at,
            attention: None,
            last_tool: None,
            observed: false,
            watermark: at,
        }
    }

    /// A session seen through the user's own hooks, first heard of at `at`.
    pub fn observed(at: Millis) -> Snapshot {
        Snapshot {
            observed: true,
            ..Snapshot::new(at)
        }
    }
}

/// The status_text to report for a snapshot: a turn held at the account's limit says so with Claude
/// Code's own words (its state stays `processing`: the turn did not end), else the tool's status_text.
pub fn activity(s: &Snapshot) -> String {
    match &s.attention {
        Some(a) if a.need == crate::Need::RateLimited => format!("Rate-limited: {}", a.reason),
        _ => s.activity.clone(),
    }
}

/// What the sidebar shows for a snapshot.
pub fn shown(s: &Snapshot) -> &'static str {
    match (&s.attention, s.state) {
        (Some(a), _) if a.need == crate::Need::RateLimited => "Rate-limited",
        (Some(_), _) => "Needs you",
        (None, State::Starting) => "Starting",
        (None, State::Idle) => "Idle",
        (None, State::Processing | State::Compacting) => "Working",
        (None, State::Dead) => "Offline",
    }
}
