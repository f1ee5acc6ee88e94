//! What the state machine's tests share: events from hook payloads, a snapshot in a state, a step.

#![allow(clippy::unwrap_used)]

use clawmux_core::{step, Event, Millis, Snapshot, Source, State};

/// The event a hook payload makes (it must parse).
pub fn hook(json: &str) -> Event {
    let (event, err) = Event::from_hook_payload(json.as_bytes());
    assert!(err.is_none(), "{json}: {err:?}");
    event
}

/// A PreToolUse of `name` with `input`.
pub fn pre_tool(name: &str, input: &str) -> Event {
    hook(&format!(
        r#"{{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"{name}","tool_input":{input},"tool_use_id":"t1"}}"#
    ))
}

/// A snapshot in `state`, doing `activity`.
pub fn at(state: State, activity: &str) -> Snapshot {
    Snapshot {
        state,
        activity: activity.to_owned(),
        ..Snapshot::new(Millis(100))
    }
}

/// One step of the machine on a hook's event.
pub fn run(from: &Snapshot, event: &Event) -> (Snapshot, clawmux_core::Decision) {
    step(from, event, Source::Hook, Millis(500))
}
