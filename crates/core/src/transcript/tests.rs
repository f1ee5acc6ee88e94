//! Tests of `transcript.rs`.

use super::*;

fn line(s: &str) -> Line {
    parse_line(s.as_bytes()).unwrap()
}

#[test]
fn interrupts_and_rejections() {
    let esc = line(
        r#"{"type":"user","timestamp":"2026-11-22T05:53:13.123Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}"#,
    );
    assert_eq!(esc.entries, vec![Entry::Interrupted]);
    assert_eq!(esc.at, Some(Millis(1_795_326_793_123)));
    let typed = line(
        r#"{"type":"user","message":{"content":"[Request interrupted by user for tool use]"}}"#,
    );
    assert_eq!(typed.entries, vec![Entry::Interrupted]);
    let rejected = line(
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_9","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected"}]},"toolUseResult":"User rejected tool use"}"#,
    );
    assert_eq!(
        rejected.entries,
        vec![Entry::ToolResult {
            tool_use_id: "toolu_9".into(),
            rejected: true
        }]
    );
    let ok = line(
        r#"{"type":"user","isSidechain":true,"message":{"content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"fine"}]},{"type":"tool_result","tool_use_id":"b"}]}}"#,
    );
    assert!(ok.sidechain);
    assert_eq!(ok.entries.len(), 2);
    assert_eq!(ok.summary, "user: tool_result a, tool_result b");
}

/// As 2.1.330 writes them: a background command's end queued while the agent sat in a tool call.
#[test]
fn what_claude_code_queues_is_read_in_one_printable_line() {
    let ended = line(
        r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-28T00:26:59.921Z","sessionId":"32e","content":"<task-notification>\n<task-id>byj2bji0l</task-id>\n<status>completed</status>\n<summary>Background command \"bg job\" completed (exit code 0)</summary>\n</task-notification>"}"#,
    );
    assert_eq!(
        ended.queued.as_deref(),
        Some(r#"Background command "bg job" completed (exit code 0)"#)
    );
    assert!(ended.entries.is_empty() && ended.at.is_some());
    assert_eq!(
        ended.background,
        Some(Background::Ended("byj2bji0l".into()))
    );
    let typed = line(
        r#"{"type":"queue-operation","operation":"enqueue","content":"\u001b]0;evil\u0007\n  also look at the logs\nplease"}"#,
    );
    assert_eq!(typed.queued.as_deref(), Some("]0;evil"));
    for not_queued in [
        r#"{"type":"queue-operation","operation":"dequeue"}"#,
        r#"{"type":"queue-operation","operation":"remove","content":"x"}"#,
        r#"{"type":"user","message":{"content":"<task-notification>"}}"#,
    ] {
        assert_eq!(line(not_queued).queued, None, "{not_queued}");
    }
    let empty = line(r#"{"type":"queue-operation","operation":"enqueue"}"#);
    assert_eq!(
        empty.queued.as_deref(),
        Some("something Claude Code queued")
    );
}

#[test]
fn summaries_of_other_lines() {
    let a = line(
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"On it"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}}"#,
    );
    assert!(a.entries.is_empty());
    assert_eq!(a.summary, "assistant: \"On it\", tool_use Bash toolu_1");
    assert_eq!(
        line(r#"{"type":"system","subtype":"compact_boundary"}"#).summary,
        "system: compact_boundary"
    );
    assert_eq!(
        line(r#"{"type":"user","message":{"content":"fix\nit"}}"#).summary,
        "user: \"fix it\""
    );
}

#[test]
fn lines_wait_for_their_newline_and_huge_ones_are_skipped() {
    let mut l = Lines::default();
    assert!(l.feed(b"{\"a\":").is_empty());
    assert_eq!(l.pending(), 5);
    assert_eq!(
        l.feed(b"1}\n\n{\"b\"}\n{\"c"),
        vec![b"{\"a\":1}".to_vec(), b"{\"b\"}".to_vec()]
    );
    assert_eq!(l.feed(b"\"}\n"), vec![b"{\"c\"}".to_vec()]);
    let huge = vec![b'x'; MAX_LINE + 1];
    assert!(l.feed(&huge).is_empty());
    assert_eq!(l.pending(), 0);
    assert!(l.feed(b"yyy").is_empty());
    assert_eq!(l.feed(b"\nok\n"), vec![b"ok".to_vec()]);
}

#[test]
fn bad_lines_are_errors() {
    assert!(matches!(
        parse_line(b"{half"),
        Err(TranscriptError::NotJson(_))
    ));
    assert_eq!(parse_line(b"[1]"), Err(TranscriptError::NoType));
    assert_eq!(parse_line(br#"{"type":3}"#), Err(TranscriptError::NoType));
    assert_eq!(line(r#"{"type":"user","timestamp":"yesterday"}"#).at, None);
}

/// A command the model ran in the background, as 2.1.330 writes its tool result: the task it started.
#[test]
fn a_command_started_in_the_background_is_a_task_started() {
    let started = line(
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"Command running in background with ID: byj2bji0l. Output is being written to: /tmp/claude-0/tasks/byj2bji0l.output","is_error":false}]},"timestamp":"2026-11-28T00:26:57.000Z"}"#,
    );
    assert_eq!(
        started.background,
        Some(Background::Started("byj2bji0l".into()))
    );
    assert_eq!(
        started.entries,
        vec![Entry::ToolResult {
            tool_use_id: "toolu_01".into(),
            rejected: false
        }]
    );
}
