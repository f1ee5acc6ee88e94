//! Claude Code's work in the background, as its transcript tells it: a command the model ran with
//! `run_in_background` starts a task (its tool result says "running in background with ID: ..."), as does
//! a Monitor ("Monitor started (task ..."), and the task's end is queued for the model as a
//! `<task-notification>` naming the same id with the status it ended in (a `queue-operation` enqueue while
//! a tool call is under way, a prompt of its own otherwise). A notice with no status, or `running` (a
//! monitor's line, a task still checked on), is no end. An agent idle in `clawmux wait` with such a task
//! is idle with work running: the sidebar says so.
//!
//! Read from Claude Code 2.1.330's transcripts; an id is taken only as Claude Code makes them (letters,
//! digits, `-` and `_`, at most [`MAX_ID`] characters), so a line cannot smuggle anything else in.

use serde_json::Value;

/// The longest task id taken.
pub const MAX_ID: usize = 64;

/// What a line says of background work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Background {
    /// A task started: its id.
    Started(String),
    /// A task ended (done, failed or stopped): its id.
    Ended(String),
}

/// What the tool result of a command started in the background, or of a Monitor, says before its id.
const STARTED: [&str; 2] = ["running in background with ID: ", "Monitor started (task "];

/// The statuses of a task that has not ended.
const NOT_ENDED: [&str; 2] = ["running", "pending"];

/// What `line` (a transcript line, parsed) says of background work: on a user line, a tool result that
/// started a task, or a task's end given as a prompt; on a queued line, a task's end.
pub fn of_line(line: &Value, text: &str) -> Option<Background> {
    match line.get("type").and_then(Value::as_str)? {
        "user" | "queue-operation" if text.contains("<task-notification>") => {
            let id = text.split_once("<task-id>")?.1.split_once("</task-id>")?.0;
            let status = text.split_once("<status>")?.1.split_once("</status>")?.0;
            if NOT_ENDED.contains(&status.trim()) {
                return None;
            }
            task_id(id).map(Background::Ended)
        }
        "user" => {
            let rest = STARTED
                .iter()
                .find_map(|started| text.split_once(started))?
                .1;
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            task_id(&rest[..end]).map(Background::Started)
        }
        _ => None,
    }
}

fn task_id(id: &str) -> Option<String> {
    (!id.is_empty()
        && id.len() <= MAX_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str, text: &str) -> Option<Background> {
        of_line(&serde_json::from_str(line).unwrap(), text)
    }

    #[test]
    fn a_task_is_started_by_its_tool_result_and_ended_by_its_notice() {
        let user = r#"{"type":"user"}"#;
        assert_eq!(
            of(user, "Command running in background with ID: byj2bji0l. Output is being written to: /tmp/x"),
            Some(Background::Started("byj2bji0l".into()))
        );
        let queued = r#"{"type":"queue-operation","operation":"enqueue"}"#;
        let notice = "<task-notification>\n<task-id>byj2bji0l</task-id>\n<status>completed</status>\n<summary>Background command \"bg job\" completed (exit code 0)</summary>\n</task-notification>";
        assert_eq!(
            of(queued, notice),
            Some(Background::Ended("byj2bji0l".into()))
        );
        // Given as a prompt of its own (the agent at its prompt).
        assert_eq!(
            of(user, notice),
            Some(Background::Ended("byj2bji0l".into()))
        );
        // A Monitor, as 2.1.330 words its start; its lines are no end, its end is.
        assert_eq!(
            of(user, "Monitor started (task bm4x1, timeout 300000ms). You will be notified on each event."),
            Some(Background::Started("bm4x1".into()))
        );
        for line in [
            "<task-notification>\n<task-id>bm4x1</task-id>\n<event>[Monitor] build ok</event>\n</task-notification>",
            "<task-notification>\n<task-id>bm4x1</task-id>\n<status>running</status>\n</task-notification>",
        ] {
            assert_eq!(of(queued, line), None, "{line}");
        }
        let killed = "<task-notification>\n<task-id>bm4x1</task-id>\n<status>killed</status>\n</task-notification>";
        assert_eq!(of(queued, killed), Some(Background::Ended("bm4x1".into())));
    }

    #[test]
    fn nothing_else_is_background_work_and_an_id_is_only_an_id() {
        let user = r#"{"type":"user"}"#;
        for text in [
            "",
            "the tests pass",
            "Command running in background with ID: ",
            "<task-notification> no id </task-notification>",
            "<task-notification><task-id></task-id><status>completed</status></task-notification>",
            "<task-notification><task-id>a b</task-id><status>completed</status></task-notification>",
            "<task-notification><task-id>\u{1b}]0;x\u{7}</task-id><status>failed</status></task-notification>",
        ] {
            assert_eq!(of(user, text), None, "{text:?}");
        }
        let long = format!(
            "<task-notification><task-id>{}</task-id><status>completed</status>",
            "a".repeat(MAX_ID + 1)
        );
        assert_eq!(of(user, &long), None);
        // Only the id's characters are taken.
        assert_eq!(
            of(user, "Command running in background with ID: ab1\u{1b}[2J."),
            Some(Background::Started("ab1".into()))
        );
        // An assistant's words are not Claude Code's.
        let assistant = r#"{"type":"assistant"}"#;
        assert_eq!(
            of(assistant, "Command running in background with ID: x1"),
            None
        );
    }
}
