//! The app's spoken sentences: what an agent needs, what it does, what a request asks. Short, with the
//! agent's name first, so the user knows who it is without looking; nothing an agent wrote is read out
//! but its own answer (a command is shortened, made printable by the speech engine's side).

use clawmux_core::{Need, State};
use serde_json::Value;

use crate::ui_event::{Request, SessionInfo};

/// The longest part of a command or question said aloud.
const SAID_AT_MOST: usize = 120;

/// What `request` asks, as words after "asks to": "run npm test", "edit main.rs".
pub(crate) fn request(request: &Request) -> String {
    let input = &request.tool_input;
    let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or_default();
    match request.tool_name.as_str() {
        "Bash" => format!("run {}", short(text("command"))),
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
            let file = text("file_path");
            let name = file.rsplit('/').next().unwrap_or(file);
            format!(
                "{} {}",
                if request.tool_name == "Write" {
                    "write"
                } else {
                    "edit"
                },
                short(name)
            )
        }
        "ExitPlanMode" => "carry out its plan".to_owned(),
        "WebFetch" => format!("fetch {}", short(text("url"))),
        other => format!("use {}", short(other)),
    }
}

/// Whether `info`'s agent waits for the answer to a question (AskUserQuestion), not a permission or a plan.
pub(crate) fn asks_a_question(info: &SessionInfo) -> bool {
    info.needs
        .as_ref()
        .is_some_and(|n| n.attention.need == Need::Answer)
}

/// The first question of an AskUserQuestion request, and its options' labels.
pub(crate) fn question(request: &Request) -> Option<(String, Vec<String>)> {
    let q = request.tool_input.get("questions")?.get(0)?;
    let text = q.get("question")?.as_str()?.to_owned();
    let labels = q
        .get("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| o.get("label").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Some((text, labels))
}

/// What an agent needs, in a sentence; `None` when it needs nothing.
pub(crate) fn need(info: &SessionInfo) -> Option<String> {
    let name = &info.session_id;
    let Some(needs) = &info.needs else {
        return (info.state == State::Idle && info.unread_count > 0)
            .then(|| format!("{name} finished, and has an answer for you."));
    };
    Some(match (needs.attention.need, &needs.request) {
        (Need::Answer, Some(r)) => match question(r) {
            Some((q, labels)) if !labels.is_empty() => {
                format!("{name} asks: {} {}?", short(&q), labels.join(", or "))
            }
            Some((q, _)) => format!("{name} asks: {}", short(&q)),
            None => format!("{name} has a question for you."),
        },
        (Need::Permission | Need::PlanApproval, Some(r)) => {
            format!("{name} asks to {}. Allow, or deny?", request(r))
        }
        (Need::Permission, None) => format!("{name} needs your permission, in its terminal."),
        (Need::Answer, None) => format!("{name} has a question for you, in its terminal."),
        (Need::PlanApproval, None) => format!("{name} has a plan for you to approve."),
        (Need::RateLimited, _) => format!("{name} is held by the usage limit."),
        (Need::Undelivered, _) => format!(
            "{name}'s message did not get through: {}.",
            short(&needs.attention.reason)
        ),
        (Need::Error, _) => format!(
            "{name} stopped on an error: {}.",
            short(&needs.attention.reason)
        ),
    })
}

/// What an agent does now.
pub(crate) fn doing(info: &SessionInfo) -> String {
    let name = &info.session_id;
    let activity = short(&info.activity);
    let state = match info.state {
        State::Starting => "starting",
        State::Idle => "idle, waiting for you",
        State::Processing => "working",
        State::Compacting => "compacting its context",
        State::Dead => "offline",
    };
    let mut said = if activity.is_empty() || info.state == State::Idle {
        format!("{name} is {state}.")
    } else {
        format!("{name} is {state}: {activity}.")
    };
    if let Some(need) = need(info) {
        said = format!("{said} {need}");
    }
    said
}

/// At most [`SAID_AT_MOST`] characters of `text`, on one line, cut at a word.
fn short(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= SAID_AT_MOST {
        return one_line.trim_end_matches('.').to_owned();
    }
    let cut: String = one_line.chars().take(SAID_AT_MOST).collect();
    let at_word = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    format!("{at_word}, and more")
}
