//! Taking what people wrote out of a case file before it leaves the machine.
//!
//! A report of a wrong indicator (`clawmux report`, "This looks wrong") carries the agent's raw events and
//! transcript lines, and those hold message texts, tool inputs (commands, file contents) and paths. Unless
//! the user keeps them, every string is replaced, except under the few keys the state machine reads to
//! decide (event and tool names, call ids, the kinds of notices and errors) and the times: so a redacted
//! case still replays to the same states. A kept list rather than a removed one: a field Claude Code adds
//! tomorrow is redacted until someone decides it is safe.

use serde_json::{Map, Value};

/// What a redacted string becomes.
pub const REDACTED: &str = "‹redacted›";

/// The keys whose string values are names, ids, kinds or times, never what someone wrote.
const KEPT: &[&str] = &[
    "hook_event_name",
    "tool_name",
    "tool_use_id",
    "session_id",
    "sessionId",
    "agent_id",
    "agent_type",
    "source",
    "trigger",
    "notification_type",
    "error",
    "reason",
    "permission_mode",
    "prompt_id",
    "effort",
    "type",
    "role",
    "uuid",
    "parentUuid",
    "timestamp",
    "id",
    "name",
    "stop_reason",
    "model",
    "version",
    "userType",
    "subtype",
    "level",
    "status",
    "state",
    "need",
    "change",
    "outcome",
    "kind",
    "trigger_kind",
    "from",
    "to",
    "requestId",
];

/// A redacted copy of `value`, and how many strings were taken out.
pub fn redact(value: &Value) -> (Value, usize) {
    let mut count = 0;
    let out = walk(value, None, &mut count);
    (out, count)
}

/// A redacted string (what is left of it for the machine), counting it when something was taken.
pub fn redact_text(key: Option<&str>, text: &str, count: &mut usize) -> String {
    if key.is_some_and(|k| KEPT.contains(&k)) || text.is_empty() {
        return text.to_owned();
    }
    *count += 1;
    // The envelope of a prompt Claude Code injected stays: the machine reads it.
    if let Some(envelope) = key
        .filter(|k| *k == "prompt")
        .and_then(|_| crate::hook::injected_as(text))
    {
        return format!("{envelope}{REDACTED}");
    }
    REDACTED.to_owned()
}

fn walk(value: &Value, key: Option<&str>, count: &mut usize) -> Value {
    match value {
        Value::String(s) => Value::String(redact_text(key, s, count)),
        Value::Array(items) => Value::Array(items.iter().map(|v| walk(v, key, count)).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), walk(v, Some(k), count));
            }
            Value::Object(out)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    #[test]
    fn what_people_wrote_goes_and_what_the_machine_reads_stays() {
        let hook = serde_json::json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_use_id": "toolu_1",
            "cwd": "/home/ann/secret-project",
            "tool_input": {"command": "cat ~/.ssh/id_rsa", "description": "read my key"},
            "transcript_path": "/home/ann/.claude/projects/x.jsonl",
            "n": 3,
        });
        let (out, count) = redact(&hook);
        let text = out.to_string();
        for secret in ["ann", "ssh", "read my key", "secret-project"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(count, 4);
        assert_eq!(out["tool_use_id"], "toolu_1");
        assert_eq!(out["n"], 3);
        let (before, _) = Event::from_hook_value(&hook);
        let (after, _) = Event::from_hook_value(&out);
        assert_eq!(before.kind(), after.kind());
    }

    #[test]
    fn a_task_notification_stays_one() {
        let prompt = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": "<task-notification> done: x"});
        let (out, _) = redact(&prompt);
        let (e, _) = Event::from_hook_value(&out);
        assert_eq!(e, Event::from_hook_value(&prompt).0);
        let user =
            serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": "delete it all"});
        assert_eq!(redact(&user).0["prompt"], REDACTED);
    }

    #[test]
    fn transcript_lines_keep_their_shape() {
        let line = serde_json::json!({
            "type": "user", "timestamp": "2026-11-23T10:00:00Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "the file says hello"}]},
        });
        let (out, count) = redact(&line);
        assert_eq!(count, 1);
        assert_eq!(out["message"]["content"][0]["tool_use_id"], "t");
        assert_eq!(out["message"]["content"][0]["content"], REDACTED);
        assert_eq!(out["timestamp"], "2026-11-23T10:00:00Z");
    }
}
