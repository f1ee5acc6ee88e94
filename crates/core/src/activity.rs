//! The status_text a tool call shows, word for word as `docs/PROTOCOL.md` specifies it.

use serde_json::Value;

use crate::hook::ToolCall;

/// The longest command prefix shown for a Bash call without a description.
const COMMAND_CHARS: usize = 60;

/// The status_text of a compaction Claude Code began at its prompt (its idle compaction of a long
/// conversation, or the user's `/compact` there): the compaction ends back at the prompt, Idle, where one
/// begun mid-turn works on. The text is how the machine remembers which, and what the sidebar says meanwhile.
pub const IDLE_COMPACTION: &str = "Compacting the conversation while idle...";

/// Describes a skill's shell command for the sidebar: `Running check: npm test` (the skill's name and the
/// command's first characters, each on one printable line).
pub fn skill_shell(skill: &str, command: &str) -> String {
    format!(
        "Running {}: {}",
        crate::printable::one_line(skill.trim(), COMMAND_CHARS),
        crate::printable::one_line(command.trim(), COMMAND_CHARS)
    )
}

/// Describes a tool call for the sidebar: `Reading hub.py`, `Running git status`, `Searching for TODO`...
///
/// File paths are shown relative to the agent's folder (`cwd`) when they lie inside it.
pub fn describe(call: &ToolCall, cwd: Option<&str>) -> String {
    let input = &call.input;
    match call.name.as_str() {
        "Read" => format!("Reading {}", file(input, cwd)),
        "Write" => format!("Writing {}", file(input, cwd)),
        "Edit" => format!("Editing {}", file(input, cwd)),
        "Bash" => match text(input, "description") {
            Some(d) if !d.trim().is_empty() => format!("Running {}", d.trim()),
            Some(_) | None => {
                let command = text(input, "command").unwrap_or_default().trim();
                format!(
                    "Running {}",
                    command.chars().take(COMMAND_CHARS).collect::<String>()
                )
            }
        },
        "Grep" => format!(
            "Searching for {}",
            text(input, "pattern").unwrap_or_default()
        ),
        "Glob" => "Finding files".to_owned(),
        "WebFetch" => format!(
            "Fetching {}",
            domain(text(input, "url").unwrap_or_default())
        ),
        "WebSearch" => "Searching web".to_owned(),
        "Agent" | "Task" => "Spawning agent".to_owned(),
        other => other.to_owned(),
    }
}

fn text<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key)?.as_str()
}

fn file(input: &Value, cwd: Option<&str>) -> String {
    let path = text(input, "file_path").unwrap_or_default();
    let relative = cwd
        .map(|c| c.trim_end_matches('/'))
        .filter(|c| !c.is_empty())
        .and_then(|c| path.strip_prefix(c)?.strip_prefix('/'));
    relative.unwrap_or(path).to_owned()
}

fn domain(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    // Drop credentials and port: `user@host:8080` shows as `host`.
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    host.split(':').next().unwrap_or(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall {
            name: name.into(),
            input,
            id: None,
        }
    }

    #[test]
    fn every_rule_of_the_protocol() {
        let cwd = Some("/home/u/proj");
        let cases = [
            (
                call("Read", json!({"file_path":"/home/u/proj/hub.py"})),
                "Reading hub.py",
            ),
            (
                call("Write", json!({"file_path":"/etc/x.conf"})),
                "Writing /etc/x.conf",
            ),
            (
                call("Edit", json!({"file_path":"/home/u/proj/server/hub.py"})),
                "Editing server/hub.py",
            ),
            (
                call(
                    "Bash",
                    json!({"command":"git status","description":"git status"}),
                ),
                "Running git status",
            ),
            (call("Bash", json!({"command":"ls -la"})), "Running ls -la"),
            (
                call("Grep", json!({"pattern":"TODO"})),
                "Searching for TODO",
            ),
            (call("Glob", json!({"pattern":"**/*.rs"})), "Finding files"),
            (
                call("WebFetch", json!({"url":"https://docs.rs:443/axum?x=1"})),
                "Fetching docs.rs",
            ),
            (call("WebSearch", json!({"query":"q"})), "Searching web"),
            (call("Agent", json!({})), "Spawning agent"),
            (call("Task", json!({})), "Spawning agent"),
            (call("NotebookEdit", json!({})), "NotebookEdit"),
        ];
        for (c, want) in cases {
            assert_eq!(describe(&c, cwd), want, "{}", c.name);
        }
    }

    #[test]
    fn long_commands_are_cut_at_sixty_characters() {
        let long = "é".repeat(100);
        let got = describe(&call("Bash", json!({ "command": long })), None);
        assert_eq!(got.chars().count(), "Running ".len() + 60);
    }

    #[test]
    fn missing_inputs_do_not_panic() {
        for name in ["Read", "Bash", "Grep", "WebFetch"] {
            let _ = describe(&call(name, Value::Null), None);
            let _ = describe(
                &call(name, json!({"file_path": 3, "command": [1]})),
                Some(""),
            );
        }
    }
}
