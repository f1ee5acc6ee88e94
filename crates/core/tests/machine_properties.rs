//! The state machine over any sequence of events (properties), and the needs a notification or a usage
//! limit raises.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_core::hook::HookKind;
use clawmux_core::transcript::Entry;
use clawmux_core::{
    step, AttentionChange, Event, Hook, Millis, Outcome, Reason, Snapshot, Source, State,
};
use proptest::prelude::*;
use State::{Dead, Idle, Processing};

#[allow(dead_code)]
mod common;
use common::{at, hook, pre_tool, run};

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
        Just(Event::Answered),
        Just(Event::Undelivered(clawmux_core::Undelivered {
            to: "moon".into(),
            reason: "moon is not running".into(),
        })),
        Just(Event::SecondOpinion(clawmux_core::opinion::Opinion {
            status: clawmux_core::opinion::ClaudeStatus::Busy,
            from: clawmux_core::opinion::OpinionSource::SessionFile,
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
            // An answer from the app ends a dialog's need and nothing else; it never moves the state.
            if matches!(e, Event::Answered) {
                prop_assert_eq!(next.state, s.state);
                if next.attention != s.attention {
                    prop_assert!(s.attention.as_ref().is_some_and(|a| a.need.is_waiting()));
                    prop_assert!(next.attention.is_none());
                }
            }
            // A message that did not get through never moves the sender, nor covers what it needs already.
            if matches!(e, Event::Undelivered(_)) {
                prop_assert_eq!(next.state, s.state);
                if let Some(a) = &s.attention {
                    if a.need != clawmux_core::Need::Undelivered {
                        prop_assert_eq!(&next.attention, &s.attention);
                    }
                }
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
                            | HookKind::SessionStart { .. } | HookKind::UserPromptSubmit { injected: true }
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
