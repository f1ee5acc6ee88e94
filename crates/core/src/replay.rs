//! Recorded event sequences, replayed against the machine: the regression corpus and `clawmux replay`.
//!
//! A sequence is JSON lines, one object per line, in the order the hub received them:
//! - `{"case": "...", "seen": "...", "right": "...", "observed": false}`: an optional header naming the case,
//!   what a person saw on the indicator and what was right; `observed` replays an observed session;
//! - `{"at": 1000, "source": "hook", "kind": "hook:PreToolUse", "payload": {...}}`: an event, exactly as
//!   `GET /api/sessions/{id}/events` exports it (`kind` may be left out for a hook; `payload` may be a JSON
//!   value or the raw text; other fields, like `id`, are ignored);
//! - `{"expect": {"state": "processing", "needs": "permission", "activity": "Reading a.rs"}}`: what must
//!   hold after the events above it (`needs: null` means nothing; a field left out is not checked).
//!
//! A report of a wrong indicator (`clawmux report`) adds three kinds of line, so that a span taken from the
//! middle of an agent's life replays alone and says whether it reproduces what the user saw:
//! - `{"start": {snapshot}}`: the agent's snapshot before the span's first event (before any event);
//! - an event's `"decision": {...}`: the decision recorded for it when it happened, compared with the
//!   replayed one;
//! - `{"shown": {"state": ..., "needs": ...}}`: what the indicator showed at the end of the span;
//! - `{"transcript": {...}}`: a line of Claude Code's transcript of that span, for people (not replayed).
//!
//! So an agent's exported events replay as they are, and a wrong indicator becomes a test case by adding
//! the header and one `expect` line.

use serde::Deserialize;
use serde_json::Value;

use crate::attention::Need;
use crate::decision::Decision;
use crate::event::{Event, Source};
use crate::machine::step;
use crate::state::{Snapshot, State};
use crate::time::Millis;

/// One line of a sequence.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Record {
    Header {
        case: String,
        #[serde(default)]
        seen: Option<String>,
        #[serde(default)]
        right: Option<String>,
        #[serde(default)]
        observed: bool,
    },
    Expect {
        expect: Expectation,
    },
    Start {
        start: Snapshot,
    },
    Shown {
        shown: Expectation,
    },
    Transcript {
        #[allow(dead_code)] // read past: a transcript line is for people, not replayed
        transcript: serde::de::IgnoredAny,
    },
    Event {
        at: i64,
        source: String,
        #[serde(default)]
        kind: Option<String>,
        #[serde(default)]
        payload: Value,
        #[serde(default)]
        decision: Option<Decision>,
    },
}

/// What must hold at a point of a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// The canonical state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<State>,
    /// The "needs you" overlay: `Some(None)` is "nothing needed" (written `null`); `None`, not checked
    /// (left out).
    #[serde(
        default,
        with = "double_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub needs: Option<Option<Need>>,
    /// The status_text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
}

impl Expectation {
    /// Everything that holds of `s`.
    pub fn of(s: &Snapshot) -> Expectation {
        Expectation {
            state: Some(s.state),
            needs: Some(s.attention.as_ref().map(|a| a.need)),
            activity: Some(s.activity.clone()),
        }
    }
}

mod double_option {
    use serde::{Deserialize, Deserializer, Serialize};

    pub fn deserialize<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de>,
    {
        Option::<T>::deserialize(d).map(Some)
    }

    pub fn serialize<S, T>(v: &Option<Option<T>>, s: S) -> Result<S::Ok, S::Error>
    where
        S: serde::Serializer,
        T: Serialize,
    {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }
}

/// A checked expectation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Its line (1-based).
    pub line: usize,
    /// What was expected.
    pub want: Expectation,
    /// What the machine said, as the same shape.
    pub got: Expectation,
}

impl Check {
    /// Whether every field asked for holds.
    pub fn holds(&self) -> bool {
        let w = &self.want;
        let g = &self.got;
        w.state.is_none_or(|s| Some(s) == g.state)
            && w.needs.is_none_or(|n| Some(n) == g.needs)
            && w.activity
                .as_ref()
                .is_none_or(|a| Some(a) == g.activity.as_ref())
    }
}

/// A replayed decision that differs from the one recorded when the event happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Its line (1-based).
    pub line: usize,
    /// What was recorded then.
    pub recorded: Decision,
    /// What the machine decides now.
    pub replayed: Decision,
}

/// The result of a replay.
#[derive(Debug, Clone)]
pub struct Replay {
    /// What the indicator showed at the end, per a report's `shown` line.
    pub shown: Option<Expectation>,
    /// Replayed decisions that differ from the recorded ones (state, outcome or "needs you").
    pub mismatches: Vec<Mismatch>,
    /// The header's case name, if any.
    pub case: Option<String>,
    /// What a person saw, and what was right, per the header.
    pub seen: Option<String>,
    /// What was right.
    pub right: Option<String>,
    /// Every decision, with its line.
    pub decisions: Vec<(usize, Decision)>,
    /// Every expectation, checked.
    pub checks: Vec<Check>,
    /// The snapshot at the end.
    pub end: Snapshot,
}

impl Replay {
    /// The verdict. With expectations (what is right), whether every one holds: a report made into a test
    /// case passes once the machine does what was right, whatever it did then. Without, whether the
    /// sequence reproduces: every recorded decision made again, and the end what was shown.
    pub fn passed(&self) -> bool {
        if self.checks.is_empty() {
            self.mismatches.is_empty() && self.reproduces_shown() != Some(false)
        } else {
            self.checks.iter().all(Check::holds)
        }
    }

    /// Whether the machine ends where the indicator was when the report was made (`None`: no `shown`).
    pub fn reproduces_shown(&self) -> Option<bool> {
        self.shown.as_ref().map(|want| {
            Check {
                line: 0,
                want: want.clone(),
                got: Expectation::of(&self.end),
            }
            .holds()
        })
    }
}

/// Whether a replayed decision says what the recorded one said (the texts aside, which a redacted report
/// does not keep).
fn same_decision(recorded: &Decision, replayed: &Decision) -> bool {
    let need = |d: &Decision| match &d.attention {
        Some(crate::AttentionChange::Set(a)) => Some((true, a.need)),
        Some(crate::AttentionChange::Cleared { need }) => Some((false, *need)),
        None => None,
    };
    recorded.trigger == replayed.trigger
        && recorded.from == replayed.from
        && recorded.to == replayed.to
        && std::mem::discriminant(&recorded.outcome) == std::mem::discriminant(&replayed.outcome)
        && need(recorded) == need(replayed)
}

/// Why a sequence could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct ReplayError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

impl Replay {
    fn empty() -> Replay {
        Replay {
            shown: None,
            mismatches: Vec::new(),
            case: None,
            seen: None,
            right: None,
            decisions: Vec::new(),
            checks: Vec::new(),
            end: Snapshot::new(Millis(0)),
        }
    }
}

/// A recorded event: its stored kind and payload (a hook's kind may be left out).
fn recorded_event(kind: Option<&str>, payload: Value) -> Event {
    let bytes = match payload {
        Value::String(s) => s.into_bytes(),
        Value::Null => Vec::new(),
        other @ (Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_)) => {
            other.to_string().into_bytes()
        }
    };
    match kind {
        Some(k) => Event::from_stored(k, &bytes),
        None => Event::from_hook_payload(&bytes).0,
    }
}

/// Whether an event line's `kind` is one the hub stores, and the one its payload is: a kind renamed by
/// hand would otherwise replay as something else, or as nothing, unnoticed.
fn check_kind(kind: &str, event: &Event) -> Result<(), String> {
    if let Event::Rejected { error, .. } = event {
        if error.starts_with("unknown event kind") {
            return Err(format!("`{kind}` is not a kind of event"));
        }
    }
    let parsed = event.kind();
    if parsed != kind {
        return Err(format!("`kind` is `{kind}` but its payload is `{parsed}`"));
    }
    Ok(())
}

/// Replays a sequence from its first event's time on. A sequence with no event is refused: it would
/// "reproduce" anything.
/// Long: one pass over the sequence's lines, each kind of line handled where it is met.
pub fn replay(text: &str) -> Result<Replay, ReplayError> {
    let mut out = Replay::empty();
    let mut started = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let err = |why: String| ReplayError { line, why };
        let record: Record = serde_json::from_str(raw).map_err(|e| {
            err(format!(
                "not a header, an event or an expectation ({e}); see `clawmux replay --help`"
            ))
        })?;
        match record {
            Record::Header {
                case,
                seen,
                right,
                observed,
            } => {
                if !out.decisions.is_empty() {
                    return Err(err("the header must come before the first event".into()));
                }
                out.case = Some(case);
                out.seen = seen;
                out.right = right;
                out.end.observed = observed;
            }
            Record::Expect { expect } => out.checks.push(Check {
                line,
                want: expect,
                got: Expectation::of(&out.end),
            }),
            Record::Start { start } => {
                if !out.decisions.is_empty() {
                    return Err(err("the start must come before the first event".into()));
                }
                out.end = start;
                started = true;
            }
            Record::Shown { shown } => out.shown = Some(shown),
            Record::Transcript { .. } => {}
            Record::Event {
                at,
                source,
                kind,
                payload,
                decision,
            } => {
                let source = Source::parse(&source)
                    .ok_or_else(|| err(format!("unknown source `{source}`")))?;
                let event = recorded_event(kind.as_deref(), payload);
                if let Some(kind) = &kind {
                    check_kind(kind, &event).map_err(err)?;
                }
                if out.decisions.is_empty() && !started {
                    let observed = out.end.observed;
                    out.end = Snapshot {
                        observed,
                        ..Snapshot::new(Millis(at))
                    };
                }
                let (next, replayed) = step(&out.end, &event, source, Millis(at));
                if let Some(recorded) = decision.filter(|d| !same_decision(d, &replayed)) {
                    out.mismatches.push(Mismatch {
                        line,
                        recorded,
                        replayed: replayed.clone(),
                    });
                }
                out.decisions.push((line, replayed));
                out.end = next;
            }
        }
    }
    if out.decisions.is_empty() {
        return Err(ReplayError {
            line: text.lines().count(),
            why: "no event to replay".into(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
