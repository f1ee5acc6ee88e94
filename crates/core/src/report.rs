//! A wrong indicator as one self-contained case file: what `clawmux report` and "This looks wrong" write.
//!
//! The file is a replay sequence (`replay.rs`): a header saying what was shown and what was right, the
//! agent's snapshot before the span, each event of the span with the decision recorded for it, Claude
//! Code's transcript lines of the span (for people), what the indicator showed at the end, and, when the
//! user said what was right, an `expect` line. So `clawmux replay FILE` says whether the machine still
//! reproduces what was shown, and the same file put in `tests/corpus/` is a regression case that fails
//! until the machine decides what was right. Unless the user keeps them, what people wrote (message texts,
//! tool inputs, paths) is redacted (`redact.rs`) before anything is written.

use serde::Serialize;
use serde_json::{json, Value};

use crate::attention::{AttentionChange, Need};
use crate::decision::Decision;
use crate::event::Source;
use crate::redact::{redact, redact_text, REDACTED};
use crate::replay::Expectation;
use crate::state::shown;
use crate::state::{Snapshot, State};
use crate::time::Millis;

/// One recorded event of the span.
#[derive(Debug, Clone)]
pub struct RecordedEvent {
    /// When it happened at its source.
    pub at: Millis,
    /// Who reported it.
    pub source: Source,
    /// Its stored kind.
    pub kind: String,
    /// Its raw payload.
    pub payload: Vec<u8>,
    /// The decision recorded for it.
    pub decision: Option<Decision>,
}

/// What a case file is made of.
#[derive(Debug, Clone)]
pub struct Case<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The span: from, to.
    pub from: Millis,
    /// The end of the span (when the report was made).
    pub to: Millis,
    /// The snapshot before the span's first event.
    pub start: &'a Snapshot,
    /// The span's events, oldest first.
    pub events: &'a [RecordedEvent],
    /// The transcript's lines of the span, with their times, oldest first.
    pub transcript: &'a [(Millis, Value)],
    /// The snapshot the indicator showed at the end.
    pub shown: &'a Snapshot,
    /// What the user says was right, if they said.
    pub right: Option<Expectation>,
    /// Keep message texts, tool inputs and paths (the user chose to).
    pub keep: bool,
}

/// A case file, and what was taken out of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CaseFile {
    /// The file's text (JSON lines).
    pub text: String,
    /// Whether what people wrote was redacted.
    pub redacted: bool,
    /// How many strings were taken out.
    pub strings_redacted: usize,
    /// Events in the span.
    pub events: usize,
    /// Transcript lines in the span.
    pub transcript_lines: usize,
}

/// Writes the case file.
pub fn case_file(case: &Case<'_>) -> CaseFile {
    let mut count = 0;
    let mut lines = Vec::new();
    let seen = words(case.shown);
    lines.push(json!({
        "case": format!("{}: the indicator looked wrong", case.agent),
        "seen": seen,
        "right": case.right.as_ref().map(expectation_words),
        "observed": case.start.observed,
        "agent": case.agent,
        "from": case.from,
        "to": case.to,
        "redacted": !case.keep,
        "made_by": "clawmux report",
    }));
    lines.push(json!({ "start": snapshot(case.start, case.keep, &mut count) }));
    let mut transcript = case.transcript.iter().peekable();
    for e in case.events {
        while let Some((_, line)) = transcript.next_if(|(at, _)| *at <= e.at) {
            lines.push(json!({ "transcript": value(line, case.keep, &mut count) }));
        }
        let payload = match serde_json::from_slice::<Value>(&e.payload) {
            Ok(v) => value(&v, case.keep, &mut count),
            Err(_) if e.payload.is_empty() => Value::Null,
            Err(_) => Value::String(text(
                &String::from_utf8_lossy(&e.payload),
                case.keep,
                &mut count,
            )),
        };
        let mut line =
            json!({ "at": e.at, "source": e.source, "kind": e.kind, "payload": payload });
        if let Some(d) = &e.decision {
            line["decision"] = decision(d, case.keep, &mut count);
        }
        lines.push(line);
    }
    for (_, line) in transcript {
        lines.push(json!({ "transcript": value(line, case.keep, &mut count) }));
    }
    lines.push(json!({ "shown": Expectation { activity: None, ..Expectation::of(case.shown) } }));
    if let Some(right) = &case.right {
        lines.push(json!({ "expect": right }));
    }
    let mut text = String::new();
    for l in &lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    CaseFile {
        text,
        redacted: !case.keep,
        strings_redacted: count,
        events: case.events.len(),
        transcript_lines: case.transcript.len(),
    }
}

/// Parses what the user says was right: a state (`idle`, `working`, ...), `needs:<need>` or `not-needed`.
pub fn parse_right(said: &str) -> Result<Expectation, String> {
    let none = Expectation {
        state: None,
        needs: None,
        activity: None,
    };
    let said = said.trim().to_ascii_lowercase();
    if let Some(need) = said.strip_prefix("needs:") {
        let need = [
            Need::Permission,
            Need::Answer,
            Need::PlanApproval,
            Need::Error,
            Need::Undelivered,
        ]
        .into_iter()
        .find(|n| n.as_str() == need)
        .ok_or_else(|| {
            format!(
                "unknown need `{need}`: permission, answer, plan_approval, error or undelivered"
            )
        })?;
        return Ok(Expectation {
            needs: Some(Some(need)),
            ..none
        });
    }
    let state = match said.as_str() {
        "not-needed" | "nothing" => {
            return Ok(Expectation {
                needs: Some(None),
                ..none
            })
        }
        "working" => State::Processing,
        "offline" => State::Dead,
        other => State::parse(other).ok_or_else(|| {
            format!(
                "`{other}` is not a state: starting, idle, working, compacting, offline, needs:<need> or not-needed"
            )
        })?,
    };
    Ok(Expectation {
        state: Some(state),
        ..none
    })
}

fn words(s: &Snapshot) -> String {
    match &s.attention {
        Some(a) => format!("{} ({}, needs {})", shown(s), s.state, a.need.as_str()),
        None => format!("{} ({})", shown(s), s.state),
    }
}

fn expectation_words(e: &Expectation) -> String {
    match (e.state, e.needs) {
        (Some(s), _) => s.to_string(),
        (None, Some(Some(n))) => format!("needs {}", n.as_str()),
        (None, Some(None)) => "nothing needed".to_owned(),
        (None, None) => "unsaid".to_owned(),
    }
}

fn value(v: &Value, keep: bool, count: &mut usize) -> Value {
    if keep {
        return v.clone();
    }
    let (out, n) = redact(v);
    *count += n;
    out
}

fn text(t: &str, keep: bool, count: &mut usize) -> String {
    if keep {
        t.to_owned()
    } else {
        redact_text(None, t, count)
    }
}

fn snapshot(s: &Snapshot, keep: bool, count: &mut usize) -> Value {
    let mut s = s.clone();
    if !keep {
        s.activity = text(&s.activity, false, count);
        if let Some(a) = &mut s.attention {
            a.reason = text(&a.reason, false, count);
        }
    }
    serde_json::to_value(&s).unwrap_or(Value::Null)
}

fn decision(d: &Decision, keep: bool, count: &mut usize) -> Value {
    let mut d = d.clone();
    if !keep {
        d.activity = d.activity.map(|a| text(&a, false, count));
        d.detail = d.detail.map(|t| text(&t, false, count));
        if let Some(AttentionChange::Set(a)) = &mut d.attention {
            a.reason = text(&a.reason, false, count);
        }
    }
    serde_json::to_value(&d).unwrap_or_else(|_| Value::String(REDACTED.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::machine::step;
    use crate::replay::replay;

    fn recorded(
        s: &mut Snapshot,
        e: &Event,
        source: Source,
        payload: &[u8],
        at: i64,
    ) -> RecordedEvent {
        let (next, d) = step(s, e, source, Millis(at));
        *s = next;
        RecordedEvent {
            at: Millis(at),
            source,
            kind: e.kind(),
            payload: payload.to_vec(),
            decision: Some(d),
        }
    }

    fn sample() -> (Snapshot, Snapshot, Vec<RecordedEvent>) {
        let mut s = Snapshot::new(Millis(0));
        s = step(&s, &Event::WaitConnected, Source::Wait, Millis(1)).0;
        let start = s.clone();
        let pre = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","cwd":"/home/ann/p","tool_input":{"command":"rm -rf /home/ann/p/build","description":"clean the build"}}"#;
        let perm = br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","cwd":"/home/ann/p","tool_input":{"command":"rm -rf /home/ann/p/build"}}"#;
        let events = vec![
            recorded(&mut s, &Event::WaitDisconnected, Source::Wait, b"", 10),
            recorded(
                &mut s,
                &Event::from_hook_payload(pre).0,
                Source::Hook,
                pre,
                20,
            ),
            recorded(
                &mut s,
                &Event::from_hook_payload(perm).0,
                Source::Hook,
                perm,
                30,
            ),
        ];
        (start, s, events)
    }

    #[test]
    fn a_redacted_report_keeps_no_text_and_replays_to_what_was_shown() {
        let (start, shown, events) = sample();
        let transcript = vec![(
            Millis(25),
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "I will clean the build"}]}}),
        )];
        let case = Case {
            agent: "sky",
            from: Millis(5),
            to: Millis(40),
            start: &start,
            events: &events,
            transcript: &transcript,
            shown: &shown,
            right: Some(parse_right("idle").unwrap()),
            keep: false,
        };
        let file = case_file(&case);
        for secret in ["ann", "rm -rf", "clean the build", "/home"] {
            assert!(!file.text.contains(secret), "{secret} is in\n{}", file.text);
        }
        assert!(file.strings_redacted >= 8, "{}", file.strings_redacted);
        assert_eq!(file.transcript_lines, 1);
        let r = replay(&file.text).unwrap();
        assert_eq!(r.reproduces_shown(), Some(true));
        assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
        assert!(
            !r.passed(),
            "what was right (idle) is not what the machine gives"
        );
        assert_eq!(r.right.as_deref(), Some("idle"));
        // What was right is checked as said: a state alone does not also demand that nothing is needed.
        assert!(
            file.text.ends_with("{\"expect\":{\"state\":\"idle\"}}\n"),
            "{}",
            file.text
        );
        assert_eq!(r.checks[0].want.needs, None);
        // Kept, the texts are there.
        let kept = case_file(&Case {
            keep: true,
            right: None,
            ..case
        });
        assert!(kept.text.contains("rm -rf") && kept.text.contains("clean the build"));
        assert!(replay(&kept.text).unwrap().passed());
    }

    #[test]
    fn what_was_right_is_parsed_or_refused_clearly() {
        assert_eq!(
            parse_right("working").unwrap().state,
            Some(State::Processing)
        );
        assert_eq!(parse_right("Offline").unwrap().state, Some(State::Dead));
        assert_eq!(
            parse_right("needs:answer").unwrap().needs,
            Some(Some(Need::Answer))
        );
        assert_eq!(parse_right("not-needed").unwrap().needs, Some(None));
        assert!(parse_right("sleepy").unwrap_err().contains("not a state"));
        assert!(parse_right("needs:coffee")
            .unwrap_err()
            .contains("unknown need"));
    }
}
