//! Tests of `usage.rs`.

use super::*;
use serde_json::json;

/// A payload as Claude Code 2.1.330 sends it after a first answer (trimmed of what is not read).
fn payload() -> Value {
    json!({
        "session_id": "b3fcb467", "model": {"id": "claude-opus-5-5", "display_name": "Opus 5.5"},
        "cost": {"total_cost_usd": 1.2, "total_duration_ms": 6424},
        "context_window": {
            "total_input_tokens": 96_000, "total_output_tokens": 4_000, "context_window_size": 200_000,
            "current_usage": {"input_tokens": 6_000, "output_tokens": 10, "cache_creation_input_tokens": 10_000,
                              "cache_read_input_tokens": 80_000},
            "used_percentage": 48, "remaining_percentage": 52
        },
        "rate_limits": {"five_hour": {"used_percentage": 42, "resets_at": 1_795_570_218},
                        "seven_day": {"used_percentage": 17.5, "resets_at": 1_795_825_818}}
    })
}

fn parse(v: &Value) -> Result<Sample, UsageError> {
    Sample::parse(v.to_string().as_bytes(), Millis(5))
}

#[test]
fn a_payload_gives_the_figures_it_holds() {
    let s = parse(&payload()).unwrap();
    assert_eq!(s.model.as_deref(), Some("Opus 5.5"));
    assert_eq!(
        s.context,
        Some(Context {
            used: 96_000,
            size: 200_000,
            percent: 48
        })
    );
    assert_eq!(s.session.as_deref(), Some("b3fcb467"));
    // The totals are the latest response's: the transcript counts the session's tokens.
    assert_eq!(
        s.tokens,
        Tokens {
            input: 0,
            output: 0,
            cache_read: 80_000,
            cache_write: 10_000
        }
    );
    assert_eq!(s.cost_usd, Some(1.2));
    assert_eq!(s.limits.len(), 2);
    assert_eq!(s.limits[0].window, Window::FiveHour);
    assert_eq!(s.limits[0].resets_at, Millis(1_795_570_218_000));
    assert_eq!(s.limits[1].percent, 17.5);
    assert_eq!(s.line(), "48% · 96k/200k · $1.20");
}

#[test]
fn before_the_first_answer_there_is_no_context_and_no_limits() {
    // As sent at start: current_usage and the percentages are null, no rate_limits.
    let v = json!({"model": {"id": "claude-opus-5-5"}, "cost": {"total_cost_usd": 0},
            "context_window": {"total_input_tokens": 0, "total_output_tokens": 0, "context_window_size": 1_000_000,
                               "current_usage": null, "used_percentage": null, "remaining_percentage": null}});
    let s = parse(&v).unwrap();
    assert_eq!(s.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(s.context, None);
    assert!(s.limits.is_empty());
    assert_eq!(s.line(), "$0.00");
}

#[test]
fn a_payload_with_none_of_the_status_lines_fields_is_refused() {
    for v in [
        json!({}),
        json!({"hello": "world"}),
        json!({"session_id": "s", "model": null}),
    ] {
        assert_eq!(parse(&v), Err(UsageError::NotStatusLine), "{v}");
    }
    assert!(parse(&json!({"cost": {"total_cost_usd": 0.1}})).is_ok());
}

#[test]
fn a_late_refresh_of_the_same_session_is_stale_and_another_session_is_new() {
    let mut later = parse(&payload()).unwrap();
    later.cost_usd = Some(0.674);
    let mut older = later.clone();
    older.cost_usd = Some(0.0749);
    assert!(older.is_stale(&later));
    assert!(!older.is_new_session(&later));
    assert!(!later.is_stale(&older));
    let mut other = older.clone();
    other.session = Some("another".into());
    assert!(!other.is_stale(&later));
    assert!(other.is_new_session(&later));
    // Without ids, a cost that fell is the only sign: a new session.
    let (mut a, mut b) = (later.clone(), older.clone());
    (a.session, b.session) = (None, None);
    assert!(!b.is_stale(&a));
    assert!(b.is_new_session(&a));
}

#[test]
fn a_figure_out_of_range_refuses_the_whole_payload() {
    let cases: [(&str, Value); 7] = [
        ("/context_window/used_percentage", json!(101)),
        ("/context_window/used_percentage", json!("48")),
        ("/context_window/total_input_tokens", json!(-1)),
        ("/context_window/total_output_tokens", json!(1.5)),
        ("/cost/total_cost_usd", json!(-0.01)),
        ("/rate_limits/five_hour/used_percentage", json!(250)),
        ("/rate_limits/seven_day/resets_at", json!(99)),
    ];
    for (pointer, bad) in cases {
        let mut v = payload();
        *v.pointer_mut(pointer).unwrap() = bad.clone();
        assert!(
            matches!(parse(&v), Err(UsageError::OutOfRange(_))),
            "{pointer} = {bad}"
        );
    }
    for body in [&b"not json"[..], b"[1,2]", b"\"text\"", b""] {
        assert_eq!(
            Sample::parse(body, Millis(0)),
            Err(UsageError::NotJson),
            "{body:?}"
        );
    }
}

#[test]
fn only_a_sample_that_moves_a_figure_differs() {
    let a = parse(&payload()).unwrap();
    let mut b = Sample::parse(payload().to_string().as_bytes(), Millis(99)).unwrap();
    assert!(!b.differs(&a), "the time alone is no change");
    b.cost_usd = Some(1.3);
    assert!(b.differs(&a));
}

#[test]
fn counts_read_short() {
    assert_eq!(short(950), "950");
    assert_eq!(short(96_000), "96k");
    assert_eq!(short(1_000_000), "1M");
    assert_eq!(short(1_240_000), "1.2M");
}

fn limit(percent: f64, resets_at: i64) -> Limit {
    Limit {
        window: Window::FiveHour,
        percent,
        resets_at: Millis(resets_at),
    }
}

#[test]
fn the_pace_between_two_readings_says_when_a_limit_is_reached() {
    let hour = 3_600_000;
    // 20% to 40% in an hour: 100% three hours later, before the reset at five.
    let at = reached_at(
        (Millis(0), &limit(20.0, 5 * hour)),
        (Millis(hour), &limit(40.0, 5 * hour)),
    );
    assert_eq!(at, Some(Millis(4 * hour)));
    // The same pace with the reset sooner: not reached.
    assert_eq!(
        reached_at(
            (Millis(0), &limit(20.0, 3 * hour)),
            (Millis(hour), &limit(40.0, 3 * hour))
        ),
        None
    );
    // Not rising, or across a reset: no projection.
    assert_eq!(
        reached_at(
            (Millis(0), &limit(40.0, 5 * hour)),
            (Millis(hour), &limit(40.0, 5 * hour))
        ),
        None
    );
    assert_eq!(
        reached_at(
            (Millis(0), &limit(90.0, hour)),
            (Millis(hour), &limit(10.0, 6 * hour))
        ),
        None
    );
    // At the limit: reached now.
    assert_eq!(
        reached_at(
            (Millis(0), &limit(90.0, 5 * hour)),
            (Millis(hour), &limit(100.0, 5 * hour))
        ),
        Some(Millis(hour))
    );
}

#[test]
fn the_context_crosses_a_threshold_once_per_filling() {
    let at = |percent: u8| Sample {
        at: Millis(0),
        session: None,
        model: None,
        context: Some(Context {
            used: u64::from(percent) * 2_000,
            size: 200_000,
            percent,
        }),
        tokens: Tokens::default(),
        cost_usd: None,
        limits: Vec::new(),
    };
    assert!(at(81).context_crossed(Some(&at(79)), 80));
    assert!(at(80).context_crossed(None, 80));
    assert!(!at(85).context_crossed(Some(&at(81)), 80), "once");
    assert!(!at(79).context_crossed(Some(&at(10)), 80));
    // Compacted, then filled again: told again.
    assert!(at(90).context_crossed(Some(&at(20)), 80));
    assert!(!at(90).context_crossed(Some(&at(20)), 0), "off");
}

#[test]
fn the_transcripts_answers_add_up_to_tokens_when_no_status_line_comes() {
    let line = br#"{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":45000,"output_tokens":321}}}"#;
    let used = crate::transcript::parse_line(line).unwrap().usage.unwrap();
    assert_eq!(
        (
            used.message_id.as_str(),
            used.input,
            used.cache_read,
            used.output
        ),
        ("msg_1", 1200, 45_000, 321)
    );
    let first = Sample::with_answer(None, &used, Millis(5));
    assert_eq!((first.tokens.input, first.tokens.output), (46_500, 321));
    assert_eq!(
        (first.context, first.cost_usd),
        (None, None),
        "no status line's figures"
    );
    assert_eq!(first.line(), "in 47k · out 321");
    let second = Sample::with_answer(Some(&first), &used, Millis(6));
    assert_eq!(second.tokens.input, 93_000);
    assert_eq!(second.model.as_deref(), Some("claude-opus-5-5"));
    // No id, a count that is not whole, or not an assistant line: nothing.
    for bad in [
        &br#"{"type":"assistant","message":{"usage":{"input_tokens":1}}}"#[..],
        br#"{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-1}}}"#,
        br#"{"type":"user","message":{"id":"m","usage":{"input_tokens":1}}}"#,
    ] {
        assert_eq!(crate::transcript::parse_line(bad).unwrap().usage, None);
    }
}
