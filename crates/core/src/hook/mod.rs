//! Claude Code hook payloads, parsed into the few shapes the machine has rules for.
//!
//! Parsing is strict about what a rule needs (a PreToolUse without `tool_name` is malformed) and lenient
//! about everything else (extra fields are ignored, they stay in the stored raw payload). An event name with
//! no rule is an [`HookError::UnknownEvent`]: the hub stores it and answers Claude with `{}`, never an error.

mod event;
pub mod preview;
pub mod relay;
pub mod version;

pub use event::HookEvent;

use serde_json::{Map, Value};

use crate::wire::Code;

/// A tool call as PreToolUse reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// `tool_name`, e.g. `Bash`, `Read`.
    pub name: String,
    /// `tool_input`, the tool's arguments as Claude sent them.
    pub input: Value,
    /// `tool_use_id`, which pairs a PreToolUse with its PostToolUse.
    pub id: Option<String>,
}

/// The hook events the machine has a rule for.
#[derive(Debug, Clone, PartialEq)]
pub enum HookKind {
    /// Claude started, resumed, cleared or compacted (`source`).
    SessionStart {
        /// `startup|resume|clear|compact|fork`.
        source: String,
    },
    /// A tool is about to run.
    PreToolUse(ToolCall),
    /// A tool finished.
    PostToolUse {
        /// `tool_name`.
        tool_name: String,
        /// `tool_use_id`.
        tool_use_id: Option<String>,
    },
    /// A tool failed.
    PostToolUseFailure {
        /// `tool_name`.
        tool_name: String,
        /// `tool_use_id`.
        tool_use_id: Option<String>,
    },
    /// Compaction is about to start (`manual|auto`).
    PreCompact {
        /// `manual|auto`.
        trigger: String,
    },
    /// Claude wants to end its turn.
    Stop {
        /// True when Claude is already continuing because a Stop hook blocked it.
        stop_hook_active: bool,
    },
    /// Claude Code shows a notification (permission prompt, idle prompt, ...).
    Notification {
        /// The notification text.
        message: String,
        /// Its `notification_type` (`permission_prompt`, `agent_needs_input`, `idle_prompt`, ...), if sent.
        kind: Option<String>,
    },
    /// A permission dialog is about to be shown for a tool call. It carries no `tool_use_id`.
    PermissionRequest(ToolCall),
    /// The user submitted a prompt (or Claude Code injected one: [`INJECTED`]).
    UserPromptSubmit {
        /// True for a prompt Claude Code injected (a background task's notice, a wake-up), which is not
        /// the user's.
        injected: bool,
    },
    /// The turn ended on an API error instead of a Stop.
    StopFailure {
        /// `rate_limit|overloaded|authentication_failed|...|unknown`.
        error: String,
        /// `error_details` or `last_assistant_message`, the error's text, if sent.
        details: Option<String>,
    },
    /// The session ended (`clear|logout|prompt_input_exit|other`).
    SessionEnd {
        /// Why.
        reason: String,
    },
    /// A skill (or a custom command) runs a shell command its text holds, as it loads (PreSkillShellCommand:
    /// no tool call of the transcript's, and no PostToolUse after it).
    SkillShell {
        /// `command_name`: the skill or command.
        skill: String,
        /// `tool_input.command`: the command as it runs.
        command: String,
    },
}

/// One parsed hook event with the fields every event shares.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// What happened.
    pub kind: HookKind,
    /// Claude Code's own session id (a UUID), not the agent's name.
    pub session_id: Option<String>,
    /// The folder Claude runs in; the hub's fallback for finding the agent.
    pub cwd: Option<String>,
    /// Where Claude writes its transcript.
    pub transcript_path: Option<String>,
    /// `agent_id`: set when a subagent fired the hook. Subagents share the session, but never move the
    /// main agent's state.
    pub subagent: Option<String>,
}

impl Hook {
    /// The event name as Claude Code spells it (`PreToolUse`, ...).
    pub fn name(&self) -> &'static str {
        self.event().name()
    }

    /// Which event it is.
    pub fn event(&self) -> HookEvent {
        match self.kind {
            HookKind::SessionStart { .. } => HookEvent::SessionStart,
            HookKind::PreToolUse(_) => HookEvent::PreToolUse,
            HookKind::PostToolUse { .. } => HookEvent::PostToolUse,
            HookKind::PostToolUseFailure { .. } => HookEvent::PostToolUseFailure,
            HookKind::PreCompact { .. } => HookEvent::PreCompact,
            HookKind::Stop { .. } => HookEvent::Stop,
            HookKind::Notification { .. } => HookEvent::Notification,
            HookKind::PermissionRequest(_) => HookEvent::PermissionRequest,
            HookKind::UserPromptSubmit { .. } => HookEvent::UserPromptSubmit,
            HookKind::StopFailure { .. } => HookEvent::StopFailure,
            HookKind::SessionEnd { .. } => HookEvent::SessionEnd,
            HookKind::SkillShell { .. } => HookEvent::PreSkillShellCommand,
        }
    }
}

/// Why a hook payload could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// The body is not JSON at all.
    #[error("the hook payload is not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("the hook payload must be a JSON object")]
    NotAnObject,
    /// A field a rule needs is absent.
    #[error("the hook payload has no `{0}`")]
    MissingField(&'static str),
    /// A field has the wrong JSON type.
    #[error("`{field}` must be {expected}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// What it should have been.
        expected: &'static str,
    },
    /// A well-formed event the machine has no rule for; stored, and harmless.
    #[error("no rule for hook event `{0}`")]
    UnknownEvent(String),
}

impl HookError {
    /// A stable machine-readable code for the wire (`{code, message}`).
    pub fn code(&self) -> Code {
        match self {
            HookError::NotJson(_) => Code::MalformedJson,
            HookError::NotAnObject | HookError::MissingField(_) | HookError::WrongType { .. } => {
                Code::MalformedEvent
            }
            HookError::UnknownEvent(_) => Code::UnknownEvent,
        }
    }
}

/// Parses a hook payload as Claude Code sends it (stdin of a command hook, body of an HTTP hook).
pub fn parse(body: &[u8]) -> Result<Hook, HookError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| HookError::NotJson(e.to_string()))?;
    parse_value(&value)
}

/// Parses an already decoded payload.
pub fn parse_value(value: &Value) -> Result<Hook, HookError> {
    let obj = value.as_object().ok_or(HookError::NotAnObject)?;
    let name = required_str(obj, "hook_event_name")?;
    let Some(event) = HookEvent::from_name(name) else {
        return Err(HookError::UnknownEvent(name.to_owned()));
    };
    let kind = hook_kind(event, obj)?;
    Ok(Hook {
        kind,
        session_id: optional_str(obj, "session_id")?.map(str::to_owned),
        cwd: optional_str(obj, "cwd")?.map(str::to_owned),
        transcript_path: optional_str(obj, "transcript_path")?.map(str::to_owned),
        subagent: optional_str(obj, "agent_id")?.map(str::to_owned),
    })
}

/// The fields the rules need of a `event` payload.
fn hook_kind(event: HookEvent, obj: &Map<String, Value>) -> Result<HookKind, HookError> {
    Ok(match event {
        HookEvent::SessionStart => HookKind::SessionStart {
            source: optional_str(obj, "source")?.unwrap_or("startup").to_owned(),
        },
        HookEvent::PreToolUse => HookKind::PreToolUse(tool_call(obj)?),
        HookEvent::PermissionRequest => HookKind::PermissionRequest(tool_call(obj)?),
        HookEvent::UserPromptSubmit => HookKind::UserPromptSubmit {
            injected: optional_str(obj, "prompt")?.is_some_and(|p| injected_as(p).is_some()),
        },
        HookEvent::StopFailure => HookKind::StopFailure {
            error: optional_str(obj, "error")?.unwrap_or("unknown").to_owned(),
            details: match optional_str(obj, "error_details")? {
                Some(d) => Some(d.to_owned()),
                None => optional_str(obj, "last_assistant_message")?.map(str::to_owned),
            },
        },
        HookEvent::SessionEnd => HookKind::SessionEnd {
            reason: optional_str(obj, "reason")?.unwrap_or("other").to_owned(),
        },
        HookEvent::PostToolUse => HookKind::PostToolUse {
            tool_name: required_str(obj, "tool_name")?.to_owned(),
            tool_use_id: optional_str(obj, "tool_use_id")?.map(str::to_owned),
        },
        HookEvent::PostToolUseFailure => HookKind::PostToolUseFailure {
            tool_name: required_str(obj, "tool_name")?.to_owned(),
            tool_use_id: optional_str(obj, "tool_use_id")?.map(str::to_owned),
        },
        HookEvent::PreCompact => HookKind::PreCompact {
            trigger: optional_str(obj, "trigger")?.unwrap_or("auto").to_owned(),
        },
        HookEvent::Stop => HookKind::Stop {
            stop_hook_active: match obj.get("stop_hook_active") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(HookError::WrongType {
                        field: "stop_hook_active",
                        expected: "a boolean",
                    })
                }
            },
        },
        HookEvent::PreSkillShellCommand => skill_shell(obj)?,
        HookEvent::Notification => HookKind::Notification {
            message: optional_str(obj, "message")?.unwrap_or_default().to_owned(),
            kind: optional_str(obj, "notification_type")?.map(str::to_owned),
        },
    })
}

/// A skill's shell command: its skill (`command_name`) and the command (`tool_input.command`).
fn skill_shell(obj: &Map<String, Value>) -> Result<HookKind, HookError> {
    let command = match obj.get("tool_input") {
        Some(Value::Object(input)) => optional_str(input, "command")?.unwrap_or_default(),
        None | Some(Value::Null) => "",
        Some(_) => {
            return Err(HookError::WrongType {
                field: "tool_input",
                expected: "an object",
            })
        }
    };
    Ok(HookKind::SkillShell {
        skill: optional_str(obj, "command_name")?
            .unwrap_or("a skill")
            .to_owned(),
        command: command.to_owned(),
    })
}

fn tool_call(obj: &Map<String, Value>) -> Result<ToolCall, HookError> {
    Ok(ToolCall {
        name: required_str(obj, "tool_name")?.to_owned(),
        input: obj.get("tool_input").cloned().unwrap_or(Value::Null),
        id: optional_str(obj, "tool_use_id")?.map(str::to_owned),
    })
}

fn required_str<'a>(
    obj: &'a Map<String, Value>,
    field: &'static str,
) -> Result<&'a str, HookError> {
    optional_str(obj, field)?.ok_or(HookError::MissingField(field))
}

fn optional_str<'a>(
    obj: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'a str>, HookError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(HookError::WrongType {
            field,
            expected: "a string",
        }),
    }
}

/// The envelopes Claude Code wraps the prompts it injects in (read in its 2.1.330 binary): a background
/// task's notice, a wake-up (its `<wake>` envelope, with attributes or without), a skill watcher's.
pub const INJECTED: [&str; 4] = [
    "<task-notification>",
    "<wake>",
    "<wake ",
    "<skill-watcher-idle-wake>",
];

/// The envelope `prompt` starts with, if Claude Code injected it.
pub fn injected_as(prompt: &str) -> Option<&'static str> {
    let prompt = prompt.trim_start();
    INJECTED.into_iter().find(|e| prompt.starts_with(e))
}

#[cfg(test)]
mod tests;
