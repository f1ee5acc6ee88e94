//! Tests of `explain.rs`.

use super::*;
use crate::event::Event;
use crate::machine::step;

fn ctx(run: Run) -> Context {
    Context {
        run,
        start_deadline: Some(Millis(91_000)),
        request_open: false,
        claude_now: None,
    }
}

fn run(events: &[(Event, Source, i64)]) -> (Snapshot, Vec<Decision>) {
    let mut s = Snapshot::new(Millis(0));
    let mut ds = Vec::new();
    for (e, src, at) in events {
        let (next, d) = step(&s, e, *src, Millis(*at));
        s = next;
        ds.push(d);
    }
    (s, ds)
}

fn hook(json: &str) -> Event {
    Event::from_hook_payload(json.as_bytes()).0
}

#[test]
fn a_starting_agent_says_what_the_hub_waits_for_and_until_when() {
    let (s, ds) = run(&[]);
    let e = explain(&s, &ds, None, None, &ctx(Run::Managed));
    assert_eq!(e.shown, "Starting");
    assert_eq!(e.until, Some(Millis(91_000)));
    assert!(e.ends[0].contains("first clawmux wait"));
    assert!(e.set_by.is_none());
    let observed = explain(&s, &ds, None, None, &ctx(Run::Observed));
    assert!(observed.ends[0].contains("SessionStart"));
}

#[test]
fn the_event_that_set_the_state_and_the_need_in_words() {
    let (s, ds) = run(&[
        (Event::WaitConnected, Source::Wait, 10),
        (Event::WaitDisconnected, Source::Wait, 20),
        (
            hook(
                r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"git push"}}"#,
            ),
            Source::Hook,
            30,
        ),
        (
            hook(
                r#"{"hook_event_name":"PreToolUse","tool_name":"Read","agent_id":"sub","tool_input":{}}"#,
            ),
            Source::Hook,
            35,
        ),
        (
            hook(
                r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"git push"}}"#,
            ),
            Source::Hook,
            40,
        ),
    ]);
    let e = explain(&s, &ds, None, None, &ctx(Run::Managed));
    assert_eq!(e.shown, "Needs you");
    assert_eq!(e.since, Millis(20));
    let set_by = e.set_by.unwrap();
    assert_eq!(set_by.trigger, "wait:disconnect");
    assert_eq!(set_by.source_words, "the agent's clawmux wait");
    let needs = e.needs.unwrap();
    assert_eq!(needs.tool_use_id.as_deref(), Some("t1"));
    assert_eq!(needs.set_by.unwrap().trigger, "hook:PermissionRequest");
    assert!(
        needs.ends[0].contains("tool call t1 (Bash)"),
        "{:?}",
        needs.ends
    );
    assert!(!needs.dismissable);
    assert_eq!(e.recent.len(), 5);
    assert_eq!(e.recent[0].cause.trigger, "hook:PermissionRequest");
    let ignored = &e.recent[1];
    assert_eq!(ignored.outcome, LineOutcome::Suppressed);
    assert_eq!(ignored.result, "ignored: a subagent's event");
    assert_eq!(e.recent[3].result, "idle → processing");
}

#[test]
fn a_notice_alone_can_be_dismissed_and_that_is_recorded() {
    let (s, mut ds) = run(&[
        (Event::WaitConnected, Source::Wait, 10),
        (Event::WaitDisconnected, Source::Wait, 20),
        (
            hook(
                r#"{"hook_event_name":"Notification","message":"Claude needs your permission","notification_type":"permission_prompt"}"#,
            ),
            Source::Hook,
            30,
        ),
    ]);
    let e = explain(&s, &ds, None, None, &ctx(Run::Managed));
    let needs = e.needs.unwrap();
    assert!(needs.dismissable);
    assert!(needs.ends.last().unwrap().contains("dismissing"));
    let (after, d) = step(&s, &Event::Dismissed, Source::Ui, Millis(40));
    assert!(after.attention.is_none());
    ds.push(d);
    let e = explain(&after, &ds, None, None, &ctx(Run::Managed));
    assert_eq!(e.shown, "Working");
    assert_eq!(e.recent[0].cause.words, "the user dismissed the notice");
    assert!(e.recent[0].result.contains("no longer needs you"));
    // Nothing to dismiss: suppressed with a reason.
    let (_, d) = step(&after, &Event::Dismissed, Source::Ui, Millis(50));
    assert!(line(&d).result.contains("nothing a notice alone raised"));
}

#[test]
fn a_second_opinion_is_shown_and_changes_nothing() {
    let (s, mut ds) = run(&[(Event::WaitConnected, Source::Wait, 10)]);
    let opinion = crate::opinion::Opinion {
        status: ClaudeStatus::Idle,
        from: crate::opinion::OpinionSource::SessionFile,
        waiting_for: None,
        for_ms: 5000,
        why: "Claude Code is at its prompt".into(),
    };
    let (after, d) = step(
        &s,
        &Event::SecondOpinion(opinion),
        Source::Hub,
        Millis(9000),
    );
    assert_eq!(after, s, "not even the watermark moves");
    ds.push(d);
    let mut c = ctx(Run::Managed);
    c.claude_now = Some(ClaudeStatus::Idle);
    let e = explain(&after, &ds, None, None, &c);
    let dis = e.disagreement.unwrap();
    assert_eq!(
        dis.cause.detail.as_deref(),
        Some("Claude Code is at its prompt")
    );
    assert_eq!(e.claude_now, Some(ClaudeStatus::Idle));
    assert_eq!(e.set_by.unwrap().trigger, "wait:connect");
}

#[test]
fn older_causes_come_from_the_hub_when_the_window_is_short() {
    let (s, ds) = run(&[
        (Event::WaitConnected, Source::Wait, 10),
        (hook(r#"{"hook_event_name":"Stop"}"#), Source::Hook, 20),
    ]);
    let e = explain(&s, &ds[1..], Some(&ds[0]), None, &ctx(Run::External));
    assert_eq!(e.set_by.unwrap().trigger, "wait:connect");
    assert!(trigger_words("hook:Bogus").contains("no rule"));
}
