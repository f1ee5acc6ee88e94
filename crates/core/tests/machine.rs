//! The tables of docs/STATE-MACHINE.md, row by row, and properties over random event sequences.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::{Event, Millis, Outcome, Reason, State};

use State::{Compacting, Dead, Idle, Processing, Starting};

#[allow(dead_code)]
mod common;
use common::{at, hook, pre_tool, run};

#[test]
fn transition_table_every_row() {
    // (from, event, to) for every row of docs/STATE-MACHINE.md's transition table.
    let read = pre_tool("Read", r#"{"file_path":"/w/a.rs"}"#);
    let compact = hook(r#"{"hook_event_name":"PreCompact","trigger":"auto"}"#);
    let rows: Vec<(State, Event, State)> = vec![
        (Starting, Event::WaitConnected, Idle),
        (Idle, Event::WaitDisconnected, Processing),
        (Processing, Event::WaitConnected, Idle),
        (Processing, compact, Compacting),
        (Compacting, Event::WaitConnected, Idle),
        (Compacting, read, Processing),
        (Starting, Event::Terminated, Dead),
        (Idle, Event::Terminated, Dead),
        (Processing, Event::Terminated, Dead),
        (Compacting, Event::Terminated, Dead),
        // Ours: the hub (re)starting a dead agent's process.
        (Dead, Event::Spawned, Starting),
    ];
    for (from, event, to) in rows {
        let (next, d) = run(&at(from, "x"), &event);
        assert_eq!(
            (d.from, d.to, next.state),
            (from, to, to),
            "{from} + {}",
            event.kind()
        );
        assert_eq!(d.outcome, Outcome::Moved);
        assert_eq!(next.since, Millis(500), "entering a state records when");
        assert_eq!(d.trigger, event.kind());
        assert_eq!(d.at, Millis(500));
    }
}

#[test]
fn only_the_wait_socket_moves_idle_and_processing() {
    let hooks = [
        hook(r#"{"hook_event_name":"SessionStart","source":"startup"}"#),
        pre_tool("Bash", r#"{"command":"ls"}"#),
        hook(r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1"}"#),
        hook(r#"{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t1"}"#),
        hook(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#),
        hook(r#"{"hook_event_name":"Notification","message":"hi"}"#),
    ];
    for state in [Idle, Processing] {
        for h in &hooks {
            let (next, d) = run(&at(state, "x"), h);
            assert_eq!(next.state, state, "{} moved {state}", h.kind());
            assert_eq!(d.outcome, Outcome::Stayed);
        }
    }
}

#[test]
fn hook_table_every_row() {
    // SessionStart: no state change (stays STARTING), text "Starting session...".
    let (s, d) = run(
        &at(Starting, ""),
        &hook(r#"{"hook_event_name":"SessionStart","source":"startup"}"#),
    );
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Starting, "Starting session...")
    );
    assert_eq!(d.activity.as_deref(), Some("Starting session..."));

    // PreToolUse: COMPACTING -> PROCESSING, text set to the tool description; elsewhere text only.
    let read = pre_tool("Read", r#"{"file_path":"/w/hub.py"}"#);
    let (s, _) = run(&at(Compacting, "Compacting context..."), &read);
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Processing, "Reading hub.py")
    );
    for state in [Starting, Idle, Processing] {
        let (s, d) = run(&at(state, "old"), &read);
        assert_eq!((s.state, s.activity.as_str()), (state, "Reading hub.py"));
        assert_eq!(d.outcome, Outcome::Stayed);
    }

    // PostToolUse and Stop: nothing changes, text preserved.
    for h in [
        hook(r#"{"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t1"}"#),
        hook(r#"{"hook_event_name":"Stop"}"#),
    ] {
        let (s, d) = run(&at(Processing, "Reading hub.py"), &h);
        assert_eq!(
            (s.state, s.activity.as_str()),
            (Processing, "Reading hub.py")
        );
        assert_eq!(d.activity, None);
    }

    // PreCompact: -> COMPACTING, "Compacting context...".
    let (s, _) = run(
        &at(Processing, "Reading hub.py"),
        &hook(r#"{"hook_event_name":"PreCompact"}"#),
    );
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Compacting, "Compacting context...")
    );
}

#[test]
fn status_text_persists_across_transitions_and_defaults_fill_only_an_empty_one() {
    // IDLE shows the last tool the agent ran ("Running clawmux wait").
    let (s, _) = run(
        &at(Processing, ""),
        &pre_tool("Bash", r#"{"command":"clawmux wait"}"#),
    );
    let (s, _) = run(&s, &Event::WaitConnected);
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Idle, "Running clawmux wait")
    );
    // ... and keeps it when the wait ends.
    let (s, d) = run(&s, &Event::WaitDisconnected);
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Processing, "Running clawmux wait")
    );
    assert_eq!(d.activity, None);

    // With nothing said yet, entering a state shows its default.
    let (s, _) = run(&at(Starting, ""), &Event::WaitConnected);
    assert_eq!(s.activity, "Waiting");
    let (s, _) = run(&at(Idle, ""), &Event::WaitDisconnected);
    assert_eq!(s.activity, "Processing...");

    // Termination clears it; a restart starts from nothing.
    let (s, _) = run(&at(Processing, "Running git status"), &Event::Terminated);
    assert_eq!(s.activity, "");
    let (s, _) = run(&s, &Event::Spawned);
    assert_eq!((s.state, s.activity.as_str()), (Starting, ""));

    // A compaction's SessionStart(compact) does not claim the session is starting: the compaction is over
    // and the agent works on (or sits at its prompt after the user's /compact, which the reminders see).
    let (s, _) = run(
        &at(Compacting, "Compacting context..."),
        &hook(r#"{"hook_event_name":"SessionStart","source":"compact"}"#),
    );
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Processing, "Processing...")
    );
    let (s, _) = run(
        &at(Processing, "Reading big.rs"),
        &hook(r#"{"hook_event_name":"SessionStart","source":"compact"}"#),
    );
    assert_eq!(
        (s.state, s.activity.as_str()),
        (Processing, "Reading big.rs")
    );
}

/// Claude Code compacts a long conversation left idle by itself (its idle compaction, on by default), and
/// the user may `/compact` at the prompt: the sidebar says Compacting meanwhile, and Idle after it, for an
/// agent ClawMux started and for a session it observes; a compaction begun mid-turn works on after it.
#[test]
fn a_compaction_begun_at_the_prompt_shows_compacting_and_ends_idle() {
    let pre = hook(r#"{"hook_event_name":"PreCompact","trigger":"auto"}"#);
    let post = hook(r#"{"hook_event_name":"SessionStart","source":"compact"}"#);
    for observed in [false, true] {
        let idle = clawmux_core::Snapshot {
            observed,
            ..at(Idle, "")
        };
        let (during, d) = run(&idle, &pre);
        assert_eq!(
            (d.outcome, during.state),
            (Outcome::Moved, Compacting),
            "observed: {observed}"
        );
        assert_eq!(during.activity, clawmux_core::activity::IDLE_COMPACTION);
        // A second PreCompact of the same compaction changes nothing it knows.
        let (again, _) = run(&during, &pre);
        assert_eq!(again.activity, during.activity);
        let (after, d) = run(&again, &post);
        assert_eq!(
            (d.outcome, after.state, after.activity.as_str()),
            (Outcome::Moved, Idle, "")
        );

        let working = clawmux_core::Snapshot {
            observed,
            ..at(Processing, "Reading big.rs")
        };
        let (during, _) = run(&working, &pre);
        let (after, _) = run(&during, &post);
        assert_eq!(after.state, Processing, "observed: {observed}");
    }
}

#[test]
fn suppressed_events_change_nothing_and_say_why() {
    let cases: Vec<(State, Event, Reason)> = vec![
        (Idle, Event::WaitConnected, Reason::AlreadyWaiting),
        (Starting, Event::WaitDisconnected, Reason::NotWaiting),
        (Processing, Event::WaitDisconnected, Reason::NotWaiting),
        (Compacting, Event::WaitDisconnected, Reason::NotWaiting),
        (
            Starting,
            hook(r#"{"hook_event_name":"PreCompact"}"#),
            Reason::NotInTable,
        ),
        (Idle, Event::Spawned, Reason::AlreadyAlive),
        (Dead, Event::Terminated, Reason::AgentDead),
        (Dead, Event::WaitConnected, Reason::AgentDead),
        (Dead, Event::WaitDisconnected, Reason::AgentDead),
        (Dead, pre_tool("Read", "{}"), Reason::AgentDead),
    ];
    for (state, event, reason) in cases {
        let before = at(state, "x");
        let (after, d) = run(&before, &event);
        assert_eq!(after, before, "{state} + {}", event.kind());
        assert_eq!(d.outcome, Outcome::Suppressed(reason));
        assert_eq!((d.from, d.to, d.activity), (state, state, None));
    }
}

#[test]
fn malformed_and_unknown_events_are_recorded_as_suppressed() {
    for body in [
        &b"not json"[..],
        br#"{"hook_event_name":"PreToolUse"}"#,
        br#"{"hook_event_name":"TeammateIdle"}"#,
        br#"{"hook_event_name":"PreCompact","trigger":5}"#,
    ] {
        let (event, err) = Event::from_hook_payload(body);
        assert!(err.is_some());
        for state in State::ALL {
            let before = at(state, "x");
            let (after, d) = run(&before, &event);
            assert_eq!(after, before);
            assert!(
                matches!(d.outcome, Outcome::Suppressed(Reason::Rejected(_))),
                "{d:?}"
            );
        }
    }
}

#[test]
fn an_answer_from_the_app_ends_the_dialogs_need_at_once_and_the_agent_works_on() {
    let asked = hook(
        r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"npm test"}}"#,
    );
    let (waiting, _) = run(&at(Processing, "Running npm test"), &asked);
    assert!(waiting
        .attention
        .as_ref()
        .is_some_and(|a| a.need.is_waiting()));
    // Allowed: the command runs for minutes, and no hook comes until it ends; the agent needs nothing.
    let (answered, d) = run(&waiting, &Event::Answered);
    assert_eq!((d.outcome, answered.state), (Outcome::Stayed, Processing));
    assert_eq!(answered.attention, None);
    // Nothing open: nothing to end.
    let (again, _) = run(&answered, &Event::Answered);
    assert_eq!(again.attention, None);
}
