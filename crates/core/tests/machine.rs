//! The tables of docs/STATE-MACHINE.md, row by row, and properties over random event sequences.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::hook::HookKind;
use clawmux_core::transcript::Entry;
use clawmux_core::{
    step, AttentionChange, Event, Hook, Millis, Outcome, Reason, Snapshot, Source, State,
};
use proptest::prelude::*;

use State::{Compacting, Dead, Idle, Processing, Starting};

fn hook(json: &str) -> Event {
    let (event, err) = Event::from_hook_payload(json.as_bytes());
    assert!(err.is_none(), "{json}: {err:?}");
    event
}

fn pre_tool(name: &str, input: &str) -> Event {
    hook(&format!(
        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"{name}","tool_input":{input},"tool_use_id":"t1"}}"#
    ))
}

fn at(state: State, activity: &str) -> Snapshot {
    Snapshot {
        state,
        activity: activity.to_owned(),
        ..Snapshot::new(Millis(100))
    }
}

fn run(from: &Snapshot, event: &Event) -> (Snapshot, clawmux_core::Decision) {
    step(from, event, Source::Hook, Millis(500))
}

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
        (
            Idle,
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

fn any_event() -> impl Strategy<Value = Event> {
    let tools = prop::sample::select(vec!["Read", "Bash", "Edit", "Grep", "WebFetch", "Zap", ""]);
    prop_oneof![
        Just(Event::WaitConnected),
        Just(Event::WaitDisconnected),
        Just(Event::Spawned),
        Just(Event::Terminated),
        (tools, ".{0,80}").prop_map(|(t, junk)| {
            let input = serde_json::json!({"file_path": junk, "command": junk, "url": junk, "pattern": junk});
            let body = serde_json::json!({"hook_event_name":"PreToolUse","tool_name":t,"tool_input":input});
            Event::from_hook_payload(body.to_string().as_bytes()).0
        }),
        (
            prop::sample::select(vec![
                "PostToolUse", "PostToolUseFailure", "PreCompact", "Stop", "SessionStart", "Notification",
                "PermissionRequest", "UserPromptSubmit", "StopFailure", "SessionEnd", "Nope",
            ]),
            prop::sample::select(vec!["X", "Bash", "ExitPlanMode", "AskUserQuestion"]),
            prop::option::of(prop::sample::select(vec!["t1", "t2"])),
            any::<bool>(),
        )
            .prop_map(|(n, tool, id, sub)| {
                let mut body = serde_json::json!({"hook_event_name": n, "tool_name": tool, "tool_use_id": id});
                if sub {
                    body["agent_id"] = "sub1".into();
                }
                Event::from_hook_payload(body.to_string().as_bytes()).0
            }),
        Just(Event::Interrupted),
        Just(Event::Dismissed),
        Just(Event::SecondOpinion(clawmux_core::opinion::Opinion {
            status: clawmux_core::opinion::ClaudeStatus::Busy,
            waiting_for: None,
            for_ms: 5000,
            why: "w".into(),
        })),
        Just(Event::Transcript(Entry::Interrupted)),
        (prop::sample::select(vec!["t1", "t2"]), any::<bool>()).prop_map(|(id, rejected)| {
            Event::Transcript(Entry::ToolResult { tool_use_id: id.to_owned(), rejected })
        }),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(|b| Event::from_hook_payload(&b).0),
    ]
}

proptest! {
    #[test]
    fn random_sequences_never_panic_and_keep_the_invariants(
        events in prop::collection::vec(any_event(), 0..200),
        observed in any::<bool>(),
    ) {
        let mut s = if observed { Snapshot::observed(Millis(0)) } else { Snapshot::new(Millis(0)) };
        for (i, e) in events.iter().enumerate() {
            let t = Millis(i64::try_from(i).unwrap());
            let source = if matches!(e, Event::Transcript(_)) { Source::Transcript } else { Source::Hook };
            let (next, d) = step(&s, e, source, t);
            prop_assert_eq!(d.from, s.state);
            prop_assert_eq!(d.to, next.state);
            match &d.outcome {
                Outcome::Moved => prop_assert_ne!(d.from, d.to),
                Outcome::Stayed => prop_assert_eq!(d.from, d.to),
                Outcome::Suppressed(_) => prop_assert_eq!(&next, &s),
            }
            // Claude Code's own view is recorded, never acted on; a dismissal ends only a notice's need.
            if matches!(e, Event::SecondOpinion(_)) {
                prop_assert_eq!(&next, &s);
            }
            if matches!(e, Event::Dismissed) && next.attention != s.attention {
                prop_assert!(s.attention.as_ref().is_some_and(|a| a.notice));
            }
            // A subagent never moves the main agent, nor its overlay.
            if let Event::Hook(Hook { subagent: Some(_), .. }) = e {
                prop_assert_eq!(&d.outcome, &Outcome::Suppressed(Reason::Subagent));
            }
            // Waiting is set only by a PermissionRequest, and it is sticky: a working signal never ends it.
            if let Some(AttentionChange::Set(a)) = &d.attention {
                let is_request = matches!(e, Event::Hook(Hook { kind: HookKind::PermissionRequest(_), .. }));
                prop_assert_eq!(a.need.is_waiting(), is_request);
            }
            if let (Some(AttentionChange::Cleared { need }), Event::Hook(h)) = (&d.attention, e) {
                if need.is_waiting() {
                    prop_assert!(!matches!(
                        h.kind,
                        HookKind::PreToolUse(_) | HookKind::PreCompact { .. } | HookKind::Notification { .. }
                            | HookKind::SessionStart { .. } | HookKind::UserPromptSubmit { task_notification: true }
                    ), "{} ended a wait", e.kind());
                }
            }
            if !observed {
                // IDLE <-> PROCESSING only through the wait socket.
                if matches!((d.from, d.to), (Idle, Processing) | (Processing, Idle)) {
                    prop_assert!(matches!(e, Event::WaitConnected | Event::WaitDisconnected));
                }
                // Nothing leaves DEAD but a spawn.
                if d.from == Dead && d.to != Dead {
                    prop_assert_eq!(e, &Event::Spawned);
                }
            }
            // Nobody alive needs the user after the process ended.
            if next.state == Dead && !observed {
                prop_assert!(next.attention.is_none() || d.outcome != Outcome::Moved);
            }
            s = next;
        }
    }

    /// The decision log is what people read to learn why an indicator showed what it did: each decision
    /// must say exactly what its step did to the snapshot.
    #[test]
    fn every_decision_tells_exactly_what_its_step_did(events in prop::collection::vec(any_event(), 0..100)) {
        let mut s = Snapshot::new(Millis(0));
        for (i, e) in events.iter().enumerate() {
            let (next, d) = step(&s, e, Source::Wait, Millis(i64::try_from(i).unwrap()));
            prop_assert_eq!((d.from, d.to), (s.state, next.state), "{}", e.kind());
            prop_assert_eq!(d.outcome == Outcome::Moved, s.state != next.state, "{}", e.kind());
            match &d.activity {
                Some(a) => prop_assert_eq!(a, &next.activity, "{}", e.kind()),
                None => prop_assert_eq!(&s.activity, &next.activity, "{}", e.kind()),
            }
            if matches!(d.outcome, Outcome::Suppressed(_)) {
                prop_assert_eq!(&s, &next, "a suppressed {} changed the snapshot", e.kind());
            }
            prop_assert_eq!(d.attention.is_some(), s.attention != next.attention, "{}", e.kind());
            s = next;
        }
    }
}

/// Some approval dialogs fire no PermissionRequest, only a Notification: the user is needed all the same.
#[test]
fn a_dialog_known_only_by_its_notification_needs_the_user_until_its_tool_ends() {
    let s = at(Processing, "Running rm -rf build");
    let (s, _) = run(&s, &pre_tool("Bash", r#"{"command":"rm -rf build"}"#));
    let notice = hook(
        r#"{"hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}"#,
    );
    let (needs, d) = run(&s, &notice);
    let a = needs.attention.clone().expect("needs you");
    assert_eq!(
        (a.need, a.reason.as_str()),
        (
            clawmux_core::Need::Permission,
            "Claude needs your permission to use Bash"
        )
    );
    assert!(d.attention.is_some());
    // The tool's end ends it.
    let id = a.tool_use_id.clone().expect("borrowed from the PreToolUse");
    let post = hook(&format!(
        r#"{{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"{id}"}}"#
    ));
    assert_eq!(run(&needs, &post).0.attention, None);
    // An idle notice needs nobody, and a notice never replaces a request already known.
    let idle = hook(
        r#"{"hook_event_name":"Notification","message":"waiting","notification_type":"idle_prompt"}"#,
    );
    assert_eq!(run(&s, &idle).0.attention, None);
    let asked = hook(
        r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#,
    );
    let (asking, _) = run(&s, &asked);
    assert_eq!(run(&asking, &notice).0.attention, asking.attention);
}

#[test]
fn a_turn_stopped_at_the_usage_limit_is_rate_limited_not_an_error() {
    use clawmux_core::Need;
    let s = at(Processing, "Thinking");
    let limit = hook(
        r#"{"hook_event_name":"StopFailure","error":"rate_limit","last_assistant_message":"You've hit your 5-hour limit · resets 3pm (UTC)"}"#,
    );
    let (limited, _) = run(&s, &limit);
    let a = limited.attention.clone().expect("rate-limited");
    assert_eq!(a.need, Need::RateLimited);
    assert_eq!(a.reason, "You've hit your 5-hour limit · resets 3pm (UTC)");
    let other = hook(r#"{"hook_event_name":"StopFailure","error":"server_error"}"#);
    assert_eq!(run(&s, &other).0.attention.unwrap().need, Need::Error);
    // Like an error, the next prompt ends it.
    let prompt = hook(r#"{"hook_event_name":"UserPromptSubmit","prompt":"continue"}"#);
    assert_eq!(run(&limited, &prompt).0.attention, None);
}
