//! Why the indicator says what it says, in words: the explanation a click on it opens, and `clawmux
//! explain`.
//!
//! Every decision is recorded; this turns the latest of them and the rules of `docs/STATE-MACHINE.md` into
//! what a person asks when an indicator looks wrong: what it says and since when, which event (from which
//! source) set it, what will end it, and what happened lately, ignored events with their reasons. It is a
//! pure function of the snapshot and the decisions, so every sentence is a unit test.

use serde::{Deserialize, Serialize};

use crate::attention::Need;
use crate::decision::{Decision, Outcome};
use crate::event::Source;
use crate::opinion::ClaudeStatus;
pub use crate::state::shown;
use crate::state::{Snapshot, State};
use crate::time::Millis;

/// How the hub runs the agent, as far as what ends a state is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// The hub starts it (Claude Code or the demo agent) and watches its process.
    Managed,
    /// It runs on its own (`clawmux agent add`): the hub cannot start it.
    External,
    /// A Claude Code session seen through the user's hooks.
    Observed,
}

/// What the hub knows beside the decisions.
#[derive(Debug, Clone)]
pub struct Context {
    /// How the agent runs.
    pub run: Run,
    /// For a managed agent that is starting: when the hub gives up waiting for its first `clawmux wait`.
    pub start_deadline: Option<Millis>,
    /// Whether the app can answer the open request itself (a PermissionRequest hook waits for it).
    pub request_open: bool,
    /// Claude Code's own view now (its session file), if the hub reads one for this agent.
    pub claude_now: Option<ClaudeStatus>,
}

/// The event that set something, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cause {
    /// When it happened at its source.
    pub at: Millis,
    /// Who reported it.
    pub source: Source,
    /// The source in words.
    pub source_words: String,
    /// The event's stored kind (`hook:PreToolUse`).
    pub trigger: String,
    /// The event in words.
    pub words: String,
    /// The decision's note (a tool and its call id, a notice's text), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One recent decision, in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// What happened and who said so.
    #[serde(flatten)]
    pub cause: Cause,
    /// `moved`, `stayed` or `suppressed`.
    pub outcome: LineOutcome,
    /// What the machine did with it, in words (the reason, for an ignored event).
    pub result: String,
}

/// The "needs you" overlay, explained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeedsExplained {
    /// What for.
    pub need: Need,
    /// The line the sidebar shows.
    pub reason: String,
    /// Since when.
    pub since: Millis,
    /// The tool call it waits on, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// That call's id, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The event that raised it.
    pub set_by: Option<Cause>,
    /// What will close it.
    pub ends: Vec<String>,
    /// A notice alone raised it: the user may dismiss it.
    pub dismissable: bool,
}

/// What a decision did, as a line of the explanation says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineOutcome {
    /// The agent moved to another state.
    Moved,
    /// It stayed where it was.
    Stayed,
    /// The event was ignored, and why is in the line.
    Suppressed,
}

/// The whole explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The canonical state.
    pub state: State,
    /// What the sidebar shows (`Needs you`, `Working`, ...).
    pub shown: String,
    /// When the agent entered its state.
    pub since: Millis,
    /// The status text.
    pub activity: String,
    /// The event that moved the agent into its state, if it is still among the recorded decisions.
    pub set_by: Option<Cause>,
    /// What will end the state.
    pub ends: Vec<String>,
    /// For a starting agent the hub supervises: until when it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Millis>,
    /// "Needs you", if the agent needs the user.
    pub needs: Option<NeedsExplained>,
    /// Claude Code's own view now, when the hub reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_now: Option<ClaudeStatus>,
    /// The latest recorded disagreement with Claude Code's own view, since the agent entered its state.
    pub disagreement: Option<Line>,
    /// The latest decisions, newest first.
    pub recent: Vec<Line>,
}

/// Explains `s`. `recent` are the agent's latest decisions, oldest first; `moved` the decision that moved
/// it into its state and `raised` the one that set its "needs you", when they are older than `recent`.
pub fn explain(
    s: &Snapshot,
    recent: &[Decision],
    moved: Option<&Decision>,
    raised: Option<&Decision>,
    ctx: &Context,
) -> Explanation {
    let set_by = recent
        .iter()
        .rev()
        .find(|d| d.outcome == Outcome::Moved && d.to == s.state)
        .or(moved)
        .map(cause);
    let needs = s.attention.as_ref().map(|a| {
        let set_by = recent
            .iter()
            .rev()
            .find(|d| matches!(&d.attention, Some(crate::AttentionChange::Set(x)) if x.since == a.since))
            .or(raised)
            .map(cause);
        NeedsExplained {
            need: a.need,
            reason: a.reason.clone(),
            since: a.since,
            tool_name: a.tool_name.clone(),
            tool_use_id: a.tool_use_id.clone(),
            set_by,
            ends: needs_end(a, ctx.request_open),
            dismissable: a.notice,
        }
    });
    let disagreement = recent
        .iter()
        .rev()
        .filter(|d| d.at >= s.since)
        .find(|d| d.trigger == "claude:status")
        .map(line);
    Explanation {
        state: s.state,
        shown: shown(s).to_owned(),
        since: s.since,
        activity: s.activity.clone(),
        set_by,
        ends: state_ends(s.state, ctx.run),
        until: ctx.start_deadline.filter(|_| s.state == State::Starting),
        needs,
        claude_now: ctx.claude_now,
        disagreement,
        recent: recent.iter().rev().map(line).collect(),
    }
}

/// A decision's event, in words.
pub fn cause(d: &Decision) -> Cause {
    Cause {
        at: d.at,
        source: d.source,
        source_words: source_words(d.source).to_owned(),
        trigger: d.trigger.clone(),
        words: trigger_words(&d.trigger),
        detail: d.detail.clone(),
    }
}

/// A decision, in words.
pub fn line(d: &Decision) -> Line {
    let (outcome, result) = match &d.outcome {
        Outcome::Moved => (LineOutcome::Moved, format!("{} → {}", d.from, d.to)),
        Outcome::Stayed if d.trigger == "claude:status" => (
            LineOutcome::Stayed,
            "recorded beside ours; never changes the indicator".to_owned(),
        ),
        Outcome::Stayed => (LineOutcome::Stayed, format!("stayed {}", d.from)),
        Outcome::Suppressed(why) => (LineOutcome::Suppressed, format!("ignored: {why}")),
    };
    let result = match &d.attention {
        Some(crate::AttentionChange::Set(a)) => format!("{result}; needs you: {}", a.reason),
        Some(crate::AttentionChange::Cleared { need }) => {
            format!("{result}; no longer needs you ({})", need.as_str())
        }
        None => result,
    };
    Line {
        cause: cause(d),
        outcome,
        result,
    }
}

/// Who reported an event, in words.
pub fn source_words(source: Source) -> &'static str {
    match source {
        Source::Hook => "a Claude Code hook",
        Source::Wait => "the agent's clawmux wait",
        Source::Hub => "the hub",
        Source::Cli => "the clawmux command",
        Source::Ui => "the window or a browser",
        Source::Transcript => "Claude Code's transcript",
    }
}

/// An event's stored kind, in words.
pub fn trigger_words(trigger: &str) -> String {
    let words = match trigger {
        "wait:connect" => "clawmux wait connected: the agent waits for a message",
        "wait:disconnect" => "clawmux wait ended: the agent took a message or left its wait",
        "agent:spawn" => "the hub started the agent's process",
        "agent:terminate" => "the agent's process ended",
        "agent:interrupt" => "an interrupt (Escape in its terminal)",
        "agent:dismiss" => "the user dismissed the notice",
        "agent:answer" => "the user answered the request from the app",
        "claude:status" => "Claude Code's own view of the session disagreed with ours",
        "transcript:interrupted" => "the transcript shows an interrupt",
        "transcript:tool_result" => "the transcript shows a tool call's result",
        "hook:SessionStart" => "the session started (SessionStart)",
        "hook:PreToolUse" => "Claude Code was about to run a tool (PreToolUse)",
        "hook:PostToolUse" => "a tool call ended (PostToolUse)",
        "hook:PostToolUseFailure" => "a tool call failed (PostToolUseFailure)",
        "hook:PermissionRequest" => "Claude Code opened a permission dialog (PermissionRequest)",
        "hook:Notification" => "Claude Code showed a notice (Notification)",
        "hook:UserPromptSubmit" => "a prompt was submitted (UserPromptSubmit)",
        "hook:Stop" => "Claude Code ended its turn (Stop)",
        "hook:StopFailure" => "the turn ended on an API error (StopFailure)",
        "hook:PreCompact" => "compaction began (PreCompact)",
        "hook:SessionEnd" => "the session ended (SessionEnd)",
        other => return format!("an event the machine has no rule for ({other})"),
    };
    words.to_owned()
}

/// What ends a state, by how the agent runs.
fn state_ends(state: State, run: Run) -> Vec<String> {
    let observed = run == Run::Observed;
    let lines: &[&str] = match (state, run) {
        (State::Starting, Run::Observed) => {
            &["its SessionStart or first prompt (then Idle or Working)"]
        }
        (State::Starting, Run::Managed | Run::External) => &[
            "its first clawmux wait connecting (then Idle)",
            "its process ending (then Offline)",
        ],
        (State::Idle, _) if observed => &[
            "a prompt or a tool call (then Working)",
            "PreCompact: Claude Code compacting the idle conversation (then Compacting)",
            "SessionEnd (then Offline)",
        ],
        (State::Idle, _) => &[
            "a message: its clawmux wait takes it and ends (then Working)",
            "its process ending (then Offline)",
        ],
        (State::Processing, _) if observed => &[
            "Stop, StopFailure or an interrupt (then Idle)",
            "PreCompact (then Compacting)",
            "SessionEnd (then Offline)",
        ],
        (State::Processing, _) => &[
            "its next clawmux wait connecting (then Idle)",
            "PreCompact (then Compacting)",
            "its process ending (then Offline)",
        ],
        (State::Compacting, _) if observed => &[
            "PreToolUse or SessionStart `compact` (then Working; Idle when it began at the prompt)",
            "Stop (then Idle)",
            "SessionEnd (then Offline)",
        ],
        (State::Compacting, _) => &[
            "a clawmux wait connecting (then Idle)",
            "the next PreToolUse (then Working)",
            "SessionStart `compact` (then Working; Idle when it began at the prompt)",
            "its process ending (then Offline)",
        ],
        (State::Dead, Run::Managed) => &["a restart (then Starting)"],
        (State::Dead, Run::Observed) => &["a SessionStart of the same session (then Idle)"],
        (State::Dead, Run::External) => &["nothing ClawMux can do: the agent runs on its own"],
    };
    let mut ends: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    if state == State::Starting && run == Run::Managed {
        ends.push(
            "if no clawmux wait connects in time, the hub reports it did not start".to_owned(),
        );
    }
    ends
}

/// What closes a "needs you".
fn needs_end(a: &crate::Attention, request_open: bool) -> Vec<String> {
    if a.need.is_failure() {
        return vec!["the next prompt, tool call or clawmux wait".to_owned()];
    }
    if a.need == Need::Undelivered {
        return vec![
            "the other agent taking the messages it was raised for, your dismissing it, a prompt from \
             you, an interrupt, or the session or process ending"
                .to_owned(),
        ];
    }
    let mut ends = Vec::new();
    if request_open {
        ends.push("your answer here, in the window".to_owned());
    }
    let tool = a.tool_name.as_deref().unwrap_or("the tool");
    ends.push(match &a.tool_use_id {
        Some(id) => format!(
            "the end of tool call {id} ({tool}): its PostToolUse or PostToolUseFailure, or its tool_result in the transcript"
        ),
        None => format!("the next PostToolUse or PostToolUseFailure of {tool}"),
    });
    if a.need == Need::PlanApproval {
        ends.push(
            "(a plan approval fires no PostToolUse: the transcript's tool_result ends it)"
                .to_owned(),
        );
    }
    ends.push(
        "a prompt from the user, an interrupt, the end of the turn (Stop) or of the session, a clawmux wait connecting, or the process ending"
            .to_owned(),
    );
    if a.notice {
        ends.push(
            "dismissing it: a notice alone raised it, and no later hook closes it".to_owned(),
        );
    }
    ends
}

#[cfg(test)]
mod tests;
