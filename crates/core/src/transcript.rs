//! Claude Code's transcript (`~/.claude/projects/<cwd>/<session>.jsonl`), one line at a time.
//!
//! The format is undocumented (`CLAUDE-CODE-HOOKS.md` collects what is known). Two things in it say what no
//! hook says: an interrupt (Esc fires no hook at all, the line `[Request interrupted by user` is the only
//! trace) and a rejected or answered tool call (a `tool_result` for the waiting tool_use_id). Those become
//! [`Entry`]s for the machine; every line also gets a one-line summary for `clawmux timeline`.
//!
//! The reader is total: any bytes give a [`Line`] or a [`TranscriptError`], never a panic.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::background::Background;
use crate::time::Millis;

/// What a transcript line tells the state machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    /// A tool call ended: its result was written.
    ToolResult {
        /// The tool call.
        tool_use_id: String,
        /// The user rejected the call ("The user doesn't want to proceed with this tool use").
        rejected: bool,
    },
    /// The user interrupted Claude (Esc): `[Request interrupted by user]`.
    Interrupted,
}

impl Entry {
    /// The event kind it is stored under: `transcript:tool_result`, `transcript:interrupted`.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::ToolResult { .. } => "transcript:tool_result",
            Entry::Interrupted => "transcript:interrupted",
        }
    }
}

/// One parsed transcript line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its `timestamp`, if it has a readable one.
    pub at: Option<Millis>,
    /// Written by a subagent (`isSidechain`): never the main agent's state.
    pub sidechain: bool,
    /// What the machine should hear, in order (a user line can carry several tool results).
    pub entries: Vec<Entry>,
    /// One line for people: `user: "fix the tests"`, `assistant: tool_use Bash toolu_1`, ...
    pub summary: String,
    /// What the model's answer used, on an assistant line that says (`message.usage`).
    pub usage: Option<crate::usage::Used>,
    /// Something Claude Code queued for the model's next turn (a `queue-operation` enqueue: a background
    /// task's end, a monitor's lines; not a wake-up, which it fires only at its prompt), in one printable line. Claude Code hands it over only
    /// when the tool call under way ends: an agent inside `clawmux wait` would never get it.
    pub queued: Option<String>,
    /// What it says of work in the background (a task started or ended: `background.rs`).
    pub background: Option<Background>,
}

/// Why a line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    /// Not JSON.
    #[error("the transcript line is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object with a `type`.
    #[error("the transcript line is not an object with a `type`")]
    NoType,
}

/// Splits a growing file into complete lines: bytes go in as they are read, whole lines come out, and a
/// half-written last line waits until its newline arrives.
///
/// A line longer than [`MAX_LINE`] (a huge tool output) is skipped whole, so memory stays bounded whatever
/// the file holds.
#[derive(Debug, Default)]
pub struct Lines {
    partial: Vec<u8>,
    skipping: bool,
}

/// The longest line kept; longer ones are skipped.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

impl Lines {
    /// Takes the next bytes of the file; returns the lines they complete (without their newlines).
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            let (head, rest) = bytes.split_at(end);
            if !self.skipping && self.partial.len() + head.len() <= MAX_LINE {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(head);
                if !line.is_empty() {
                    out.push(line);
                }
            }
            self.partial.clear();
            self.skipping = false;
            bytes = rest.get(1..).unwrap_or_default();
        }
        if !self.skipping {
            if self.partial.len() + bytes.len() > MAX_LINE {
                self.partial = Vec::new();
                self.skipping = true;
            } else {
                self.partial.extend_from_slice(bytes);
            }
        }
        out
    }

    /// Bytes held for an unfinished line.
    pub fn pending(&self) -> usize {
        self.partial.len()
    }
}

/// The longest quoted text in a summary.
const QUOTE_CHARS: usize = 80;
const INTERRUPTED: &str = "[Request interrupted by user";
const REJECTED: &str = "The user doesn't want to proceed with this tool use";

/// Reads one line (without its newline).
pub fn parse_line(line: &[u8]) -> Result<Line, TranscriptError> {
    let v: Value =
        serde_json::from_slice(line).map_err(|e| TranscriptError::NotJson(e.to_string()))?;
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or(TranscriptError::NoType)?;
    let at = v
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let sidechain = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
    let content = v.get("message").and_then(|m| m.get("content"));
    let (entries, summary) = match kind {
        "user" => user_line(&v, content),
        "assistant" => (Vec::new(), assistant_line(content)),
        "system" => {
            let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or("");
            (Vec::new(), format!("system: {subtype}"))
        }
        other => (Vec::new(), other.chars().take(QUOTE_CHARS).collect()),
    };
    let queued = (kind == "queue-operation"
        && v.get("operation").and_then(Value::as_str) == Some("enqueue"))
    .then(|| queued(&text_of(v.get("content"))));
    let background = match kind {
        "user" => crate::background::of_line(&v, &text_of(content)),
        "queue-operation" => crate::background::of_line(&v, &text_of(v.get("content"))),
        _ => None,
    };
    let usage = (kind == "assistant")
        .then(|| v.get("message").and_then(crate::usage::Used::of_message))
        .flatten();
    Ok(Line {
        at,
        sidechain,
        entries,
        summary: match &queued {
            Some(what) => format!("queued: {}", quote(what)),
            None => summary,
        },
        usage,
        queued,
        background,
    })
}

/// The longest account of something queued.
const QUEUED_CHARS: usize = 200;

/// What was queued, in one line: a task notification's own `<summary>`, else its first line of text.
fn queued(content: &str) -> String {
    let summary = content
        .split_once("<summary>")
        .and_then(|(_, rest)| Some(rest.split_once("</summary>")?.0));
    let first = || content.lines().map(str::trim).find(|l| !l.is_empty());
    match crate::printable::one_line(summary.or_else(first).unwrap_or(""), QUEUED_CHARS) {
        line if line.trim().is_empty() => "something Claude Code queued".to_owned(),
        line => line,
    }
}

fn user_line(v: &Value, content: Option<&Value>) -> (Vec<Entry>, String) {
    match content {
        Some(Value::String(text)) => {
            let entries = if text.starts_with(INTERRUPTED) {
                vec![Entry::Interrupted]
            } else {
                Vec::new()
            };
            (entries, format!("user: {}", quote(text)))
        }
        Some(Value::Array(blocks)) => {
            let denied = v.get("toolUseResult").and_then(Value::as_str)
                == Some("User rejected tool use")
                || v.get("toolDenialKind").and_then(Value::as_str) == Some("user-rejected");
            let mut entries = Vec::new();
            let mut parts = Vec::new();
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_result") => {
                        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                            continue;
                        };
                        let rejected = denied
                            || (block.get("is_error").and_then(Value::as_bool) == Some(true)
                                && text_of(block.get("content")).contains(REJECTED));
                        parts.push(format!(
                            "tool_result {id}{}",
                            if rejected { " (rejected)" } else { "" }
                        ));
                        entries.push(Entry::ToolResult {
                            tool_use_id: id.to_owned(),
                            rejected,
                        });
                    }
                    Some("text") => {
                        let text = text_of(Some(block));
                        if text.starts_with(INTERRUPTED) {
                            entries.push(Entry::Interrupted);
                        }
                        parts.push(quote(&text));
                    }
                    Some(other) => parts.push(other.to_owned()),
                    None => {}
                }
            }
            (entries, format!("user: {}", parts.join(", ")))
        }
        Some(_) | None => (Vec::new(), "user".to_owned()),
    }
}

fn assistant_line(content: Option<&Value>) -> String {
    let Some(Value::Array(blocks)) = content else {
        return "assistant".to_owned();
    };
    let parts: Vec<String> = blocks
        .iter()
        .filter_map(|b| match b.get("type").and_then(Value::as_str)? {
            "tool_use" => Some(format!(
                "tool_use {} {}",
                b.get("name").and_then(Value::as_str).unwrap_or("?"),
                b.get("id").and_then(Value::as_str).unwrap_or("?")
            )),
            "text" => Some(quote(&text_of(Some(b)))),
            other => Some(other.to_owned()),
        })
        .collect();
    format!("assistant: {}", parts.join(", "))
}

/// The text of a block: its `text`, or its `content` as a string or as text blocks.
fn text_of(block: Option<&Value>) -> String {
    match block {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(o)) => match (o.get("text"), o.get("content")) {
            (Some(Value::String(t)), _) => t.clone(),
            (_, Some(c)) => text_of(Some(c)),
            _ => String::new(),
        },
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| text_of(Some(i)))
            .collect::<Vec<_>>()
            .join(" "),
        Some(_) | None => String::new(),
    }
}

fn quote(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(QUOTE_CHARS)
        .collect();
    format!("\"{one_line}\"")
}

/// Parses an RFC 3339 time (`2026-11-22T05:53:13.123Z`) into [`Millis`].
pub fn parse_time(text: &str) -> Option<Millis> {
    let t = humantime::parse_rfc3339_weak(text).ok()?;
    let ms = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
    i64::try_from(ms).ok().map(Millis)
}

#[cfg(test)]
mod tests;
