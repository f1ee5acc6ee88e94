//! A hook's body, parsed once, and the one rule for what cannot be used (see the module above): a body
//! that is not JSON or an event that lacks what its kind needs is an error for every endpoint alike, a kind
//! with no rule is nothing to do, and either way the event is still one to record.

use clawmux_core::{Event, Hook, HookError};
use serde_json::Value;

use crate::error::HubError;

/// A hook's body, parsed once.
pub(crate) struct Payload<'a> {
    /// The body as it came (what the store keeps).
    pub(crate) body: &'a [u8],
    /// The body as JSON; `None` when it is not JSON.
    pub(crate) value: Option<Value>,
    /// The event it is, or [`Event::Rejected`] with why not.
    pub(crate) event: Event,
    problem: Option<HookError>,
}

impl<'a> Payload<'a> {
    /// Parses `body`.
    pub(crate) fn parse(body: &'a [u8]) -> Payload<'a> {
        match serde_json::from_slice::<Value>(body) {
            Ok(value) => {
                let (event, problem) = Event::from_hook_value(&value);
                Payload {
                    body,
                    value: Some(value),
                    event,
                    problem,
                }
            }
            Err(_) => {
                let (event, problem) = Event::from_hook_payload(body);
                Payload {
                    body,
                    value: None,
                    event,
                    problem,
                }
            }
        }
    }

    /// The event, if the hub may act on it: `Ok(None)` for a kind it has no rule for, an error for a body it
    /// cannot use.
    pub(crate) fn usable(&self) -> Result<Option<&Hook>, HubError> {
        match (&self.problem, &self.event) {
            (None, Event::Hook(hook)) => Ok(Some(hook)),
            (Some(HookError::UnknownEvent(_)), _) => Ok(None),
            (Some(e), _) => Err(HubError::new(e.code(), e.to_string())),
            (None, _) => Ok(None),
        }
    }

    /// A field of the JSON body, as text.
    pub(crate) fn text(&self, field: &str) -> Option<&str> {
        self.value.as_ref()?.get(field)?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawmux_core::wire::Code;

    fn usable(body: &str) -> Result<Option<String>, Code> {
        let payload = Payload::parse(body.as_bytes());
        payload
            .usable()
            .map(|h| h.map(|h| h.name().to_owned()))
            .map_err(|e| e.code)
    }

    #[test]
    fn one_rule_for_what_cannot_be_used() {
        assert_eq!(usable("not json"), Err(Code::MalformedJson));
        assert_eq!(usable("[1, 2]"), Err(Code::MalformedEvent));
        assert_eq!(
            usable(r#"{"hook_event_name": "PreToolUse"}"#),
            Err(Code::MalformedEvent),
            "a PreToolUse without its tool"
        );
        assert_eq!(
            usable(r#"{"hook_event_name": "TeammateIdle"}"#),
            Ok(None),
            "a kind with no rule: nothing to do, and no error for Claude Code"
        );
        assert_eq!(
            usable(r#"{"hook_event_name": "Stop", "session_id": "c1"}"#),
            Ok(Some("Stop".to_owned()))
        );
    }

    #[test]
    fn what_cannot_be_used_is_still_an_event_to_record() {
        for body in ["not json", r#"{"hook_event_name": "PreToolUse"}"#] {
            let payload = Payload::parse(body.as_bytes());
            assert!(
                matches!(payload.event, Event::Rejected { .. }),
                "{body}: {:?}",
                payload.event
            );
            assert_eq!(payload.body, body.as_bytes());
        }
    }
}
