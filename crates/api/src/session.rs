//! One agent as clients see it: its row in the sidebar, what it needs of the user, how it runs and why it
//! ended; and its status as every surface that tells the user reads it.

use clawmux_core::changes::Overlap;
use clawmux_core::status::AgentStatus;
use clawmux_core::usage::AgentUsage;
use clawmux_core::{Attention, Millis, Snapshot, State};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How an agent runs, as far as ClawMux is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchKind {
    /// ClawMux runs Claude Code for it.
    Claude,
    /// The built-in demo agent.
    Demo,
    /// It runs on its own; ClawMux cannot start or end it.
    External,
    /// A Claude Code session seen through the user's own hooks: its state only, no chat.
    Observed,
}

impl LaunchKind {
    /// Every launch kind.
    pub const ALL: [LaunchKind; 4] = [
        LaunchKind::Claude,
        LaunchKind::Demo,
        LaunchKind::External,
        LaunchKind::Observed,
    ];
}

/// Why an agent's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The user asked for it.
    Terminated,
    /// It ended by itself.
    Exited,
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 2] = [EndReason::Terminated, EndReason::Exited];
}

/// A request as clients see it, under the agent's `needs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Its id: an answer names it, so a click meant for an earlier request answers nothing.
    pub id: String,
    /// The tool that asks (`Bash`, `Edit`, `AskUserQuestion`, `ExitPlanMode`, ...).
    pub tool_name: String,
    /// What it will do: its input as Claude Code sent it (a question's options are in it).
    pub tool_input: Value,
    /// The rules Claude Code suggests for "always allow" (`permission_suggestions`), if any.
    pub suggestions: Vec<Value>,
}

/// One agent as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The agent's name.
    pub session_id: String,
    /// Its state.
    pub state: State,
    /// The status_text.
    pub activity: String,
    /// Messages from the agent the user has not read.
    pub unread_count: i64,
    /// The agent's work folder.
    pub work_dir: String,
    /// When it entered its state.
    pub since: Millis,
    /// `claude` (ClawMux runs Claude Code for it), `demo` (the built-in demo agent), `external` (it runs
    /// on its own; ClawMux cannot start or end it) or `observed` (a Claude Code session seen through the
    /// user's own hooks: its state only, no chat).
    pub launch: LaunchKind,
    /// What the user must know now (it did not start, it stopped by itself, it left the loop).
    pub problem: Option<String>,
    /// "Needs you": what the agent waits for the user for, if anything.
    pub needs: Option<Needs>,
    /// Its own branch (`clawmux/<name>`) when it works in a worktree of its own: the window offers its
    /// Changes panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The conflict forecast: what its work has in common with other agents' in the same repository.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlaps: Vec<Overlap>,
    /// What it costs and how full its context is, once its status line reported (`usage/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<AgentUsage>>,
    /// Its tasks running in the background (Claude Code's, from its transcript).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub background: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// "Needs you" as clients see it: what for, and the request the app can answer, if one is open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Needs {
    /// What for, and since when.
    #[serde(flatten)]
    pub attention: Attention,
    /// The open request (a permission, a question, a plan), if the app can answer it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Request>,
}

impl Needs {
    /// The overlay of a snapshot, with the agent's open request.
    pub fn of(attention: Option<&Attention>, request: Option<Request>) -> Option<Needs> {
        attention.map(|a| Needs {
            attention: a.clone(),
            request,
        })
    }

    /// An agent's status as the tray, the notices, the pushes and hands-free read it. A permission's
    /// request can be answered from a notification itself; a question or a plan needs the window.
    pub fn status(agent: &str, state: State, needs: Option<&Needs>) -> AgentStatus {
        AgentStatus {
            agent: agent.to_owned(),
            state,
            needs: needs.map(|n| n.attention.clone()),
            permission: needs
                .filter(|n| n.attention.need == clawmux_core::Need::Permission)
                .and_then(|n| n.request.as_ref())
                .map(|r| r.id.clone()),
        }
    }
}

impl SessionInfo {
    /// The agent's status, read by the same predicates wherever the user is told about it.
    pub fn status(&self) -> AgentStatus {
        Needs::status(&self.session_id, self.state, self.needs.as_ref())
    }

    /// Builds the row from a snapshot.
    pub fn new(name: &str, work_dir: &str, s: &Snapshot, unread_count: i64) -> SessionInfo {
        SessionInfo {
            session_id: name.to_owned(),
            state: s.state,
            activity: clawmux_core::state::activity(s),
            unread_count,
            work_dir: work_dir.to_owned(),
            since: s.since,
            launch: if s.observed {
                LaunchKind::Observed
            } else {
                LaunchKind::External
            },
            problem: None,
            needs: Needs::of(s.attention.as_ref(), None),
            branch: None,
            overlaps: Vec::new(),
            usage: None,
            background: 0,
        }
    }

    /// With how ClawMux starts the agent, if it does (`None`: it does not), and its current problem.
    pub fn with_launch(
        mut self,
        launch: Option<LaunchKind>,
        problem: Option<String>,
    ) -> SessionInfo {
        if let Some(kind) = launch {
            self.launch = kind;
        }
        self.problem = problem;
        self
    }
}
