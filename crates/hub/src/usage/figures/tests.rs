//! Tests of `figures.rs`.

use super::*;
use clawmux_core::usage::{Context, Limit, Tokens, Window};

const HOUR: i64 = 3_600_000;
const GAP: Millis = Millis(20_000);

fn sample(at: i64, cost: f64, input: u64, five_hour: Option<(f64, i64)>) -> Sample {
    Sample {
        at: Millis(at),
        session: Some("c1".into()),
        model: Some("Opus 5.5".into()),
        context: Some(Context {
            used: input,
            size: 200_000,
            percent: 10,
        }),
        tokens: Tokens::default(),
        cost_usd: Some(cost),
        limits: five_hour
            .map(|(percent, resets)| Limit {
                window: Window::FiveHour,
                percent,
                resets_at: Millis(resets),
            })
            .into_iter()
            .collect(),
    }
}

#[test]
fn a_sample_is_kept_only_when_a_figure_moved_with_what_it_added() {
    let f = Figures::default();
    let first = f.record("sky", sample(0, 0.5, 1000, None), GAP);
    assert_eq!(
        first.keep,
        Some(UsageDelta {
            cost: 0.5,
            input: 0,
            output: 0
        })
    );
    assert_eq!(first.agent.line, "10% · 1k/200k · $0.50");
    assert_eq!(f.record("sky", sample(5, 0.5, 1000, None), GAP).keep, None);
    let more = f
        .record("sky", sample(9, 0.75, 1500, None), GAP)
        .keep
        .unwrap();
    assert_eq!((more.cost, more.input, more.output), (0.25, 0, 0));
    // A new Claude Code session counts from zero: what it reports is what it added.
    let mut other = sample(12, 0.1, 200, None);
    other.session = Some("c2".into());
    let again = f.record("sky", other, GAP).keep.unwrap();
    assert_eq!(again.cost, 0.1);
    // Another agent's figures are its own.
    assert_eq!(
        f.record("moon", sample(13, 0.2, 200, None), GAP)
            .keep
            .unwrap()
            .cost,
        0.2
    );
    assert_eq!(f.agents().len(), 2);
}

#[test]
fn a_late_older_refresh_moves_nothing() {
    let f = Figures::default();
    f.record("sky", sample(0, 0.0749, 1000, None), GAP);
    f.record("sky", sample(5, 0.674, 2000, None), GAP);
    // The refresh taken before the last one arrives after it.
    let late = f.record("sky", sample(6, 0.0749, 1000, None), GAP);
    assert_eq!(late.keep, None, "nothing added to the history");
    assert_eq!(late.agent.sample.cost_usd, Some(0.674));
    assert_eq!(f.agent("sky").unwrap().sample.cost_usd, Some(0.674));
    assert_eq!(f.agent("sky").unwrap().sample.context.unwrap().used, 2000);
    // The next real refresh adds only what it added.
    let next = f.record("sky", sample(7, 0.7, 2100, None), GAP);
    assert!((next.keep.unwrap().cost - 0.026).abs() < 1e-9);
}

#[test]
fn each_answer_counts_its_tokens_once_beside_the_status_lines_figures() {
    let f = Figures::default();
    let used = |id: &str| Used {
        message_id: id.into(),
        model: Some("claude-opus-5-5".into()),
        input: 1200,
        output: 321,
        cache_read: 45_000,
        cache_write: 300,
    };
    let mut kept = Vec::new();
    for (i, id) in ["m1", "m2", "m3"].into_iter().enumerate() {
        let at = i64::try_from(i).unwrap() * 10;
        kept.extend(f.answered("sky", &used(id), Millis(at), GAP).unwrap().keep);
        // The status line after each answer: its totals are that answer's, and count nothing.
        let mut s = sample(at + 1, 0.1 * (at as f64 + 1.0), 46_500, None);
        (s.tokens.input, s.tokens.output) = (46_500, 321);
        kept.extend(f.record("sky", s, GAP).keep);
    }
    let figures = f.agent("sky").unwrap().sample;
    assert_eq!(
        (figures.tokens.input, figures.tokens.output),
        (139_500, 963)
    );
    assert_eq!(
        figures.model.as_deref(),
        Some("Opus 5.5"),
        "the status line's name"
    );
    let (input, output) = kept
        .iter()
        .fold((0, 0), |(i, o), d| (i + d.input, o + d.output));
    assert_eq!((input, output), (139_500, 963), "the history says the same");
    // An answer is no reading of the account's limits: when they were last reported stays.
    let f = Figures::default();
    f.record("sky", sample(5, 0.1, 1, Some((20.0, HOUR))), GAP);
    f.answered("sky", &used("m9"), Millis(50), GAP);
    assert_eq!(f.account().at, Some(Millis(5)));
}

#[test]
fn an_undone_recording_leaves_the_figures_as_they_were() {
    let f = Figures::default();
    f.record("sky", sample(0, 0.5, 1000, None), GAP);
    let r = f.record("sky", sample(1, 0.9, 1000, None), GAP);
    f.undo("sky", r.earlier, None);
    assert_eq!(f.agent("sky").unwrap().sample.cost_usd, Some(0.5));
    let used = Used {
        message_id: "m1".into(),
        model: None,
        input: 1,
        output: 1,
        cache_read: 0,
        cache_write: 0,
    };
    let r = f.answered("moon", &used, Millis(2), GAP).unwrap();
    f.undo("moon", r.earlier, Some("m1"));
    assert!(f.agent("moon").is_none());
    assert!(
        f.answered("moon", &used, Millis(3), GAP).is_some(),
        "counted again"
    );
}

#[test]
fn the_account_keeps_each_periods_first_reading_for_its_pace() {
    let f = Figures::default();
    let reset = 5 * HOUR;
    assert!(f
        .record("sky", sample(0, 0.0, 1, None), GAP)
        .account
        .is_none());
    let a = f
        .record("sky", sample(0, 0.1, 2, Some((20.0, reset))), GAP)
        .account
        .unwrap();
    assert_eq!(a.limits[0].reached_at, None, "one reading has no pace");
    // Another agent's report of the same account moves the same figures.
    let b = f
        .record("moon", sample(HOUR, 0.1, 2, Some((40.0, reset))), GAP)
        .account
        .unwrap();
    assert_eq!(b.limits[0].limit.percent, 40.0);
    assert_eq!(b.limits[0].reached_at, Some(Millis(4 * HOUR)));
    assert_eq!(b.at, Some(Millis(HOUR)));
    // The same figures again: the account did not move.
    assert!(f
        .record("moon", sample(HOUR + 1, 0.2, 3, Some((40.0, reset))), GAP)
        .account
        .is_none());
    // A new period starts a new pace.
    let c = f
        .record("sky", sample(6 * HOUR, 0.2, 3, Some((5.0, 11 * HOUR))), GAP)
        .account
        .unwrap();
    assert_eq!(c.limits[0].reached_at, None);
}

#[test]
fn rate_limited_until_the_full_window_resets_or_it_works_again() {
    let f = Figures::default();
    let reset = 2 * HOUR;
    f.record("sky", sample(0, 0.1, 1, Some((100.0, reset))), GAP);
    let (held, plan) = f.limited("sky", Millis(HOUR), GAP);
    assert_eq!(
        held.limited,
        Some(Limited {
            since: Millis(HOUR),
            until: Some(Millis(reset)),
            continues_at: None,
        })
    );
    assert_eq!(plan, None, "not opted in");
    assert!(f.is_limited("sky"));
    // A sample meanwhile does not end it: only working again does, once.
    assert!(f
        .record("sky", sample(HOUR + 5, 0.1, 1, Some((100.0, reset))), GAP)
        .agent
        .limited
        .is_some());
    assert!(f.working("sky").is_some_and(|u| u.limited.is_none()));
    assert_eq!(f.working("sky"), None);
    // With no figures of the account's limits, held with no known end; an agent never sampled too.
    let g = Figures::default();
    assert_eq!(
        g.limited("moon", Millis(3), GAP).0.limited,
        Some(Limited {
            since: Millis(3),
            until: None,
            continues_at: None,
        })
    );
}

#[test]
fn an_opted_in_agent_is_planned_after_the_reset_once_the_figures_say_when() {
    let f = Figures::default();
    f.record("sky", sample(0, 0.1, 1, Some((90.0, 2 * HOUR))), GAP);
    f.record("moon", sample(0, 0.1, 1, None), GAP);
    f.set_continue("sky", true, Millis(0), GAP);
    assert!(f.set_continue("moon", true, Millis(0), GAP).0.continues);
    // An agent with no figures yet: the choice shows all the same.
    let star = f.set_continue("star", true, Millis(7), GAP).0;
    assert!(star.continues && star.line.is_empty() && star.limited.is_none());
    assert!(!f.set_continue("star", false, Millis(8), GAP).0.continues);
    // Stopped before the figures show the window full: held until the soonest reset known.
    let (sky, plan) = f.limited("sky", Millis(HOUR), GAP);
    let plan = plan.unwrap();
    assert_eq!(sky.limited.unwrap().continues_at, Some(plan.at));
    assert_eq!(plan.at, Millis(2 * HOUR + 2_000));
    // The figures come: the 7-day window is full and resets later; both held agents move, in turn.
    let (_, moon) = f.limited("moon", Millis(HOUR), GAP);
    assert_eq!(moon.unwrap().at, Millis(2 * HOUR + 22_000));
    let mut full = sample(HOUR + 1, 0.1, 1, Some((90.0, 2 * HOUR)));
    full.limits.push(Limit {
        window: Window::SevenDay,
        percent: 100.0,
        resets_at: Millis(9 * HOUR),
    });
    let moved = f.record("sky", full, GAP).held;
    let mut at: Vec<i64> = moved.iter().map(|(_, p)| p.unwrap().at.0).collect();
    at.sort_unstable();
    assert_eq!(at, [9 * HOUR + 2_000, 9 * HOUR + 22_000]);
    // The old plan is nothing now; the new one is due once, and never before its time.
    assert_eq!(
        f.due("sky", plan.generation, Millis(10 * HOUR)),
        Due::Nothing
    );
    let (_, new) = moved.iter().find(|(u, _)| u.session_id == "sky").unwrap();
    let new = new.unwrap();
    assert_eq!(
        f.due("sky", new.generation, Millis(new.at.0 - 1)),
        Due::Later(new.at)
    );
    assert_eq!(f.due("sky", new.generation, new.at), Due::Continue(new));
    assert_eq!(f.agent("sky").unwrap().limited.unwrap().continues_at, None);
    // Moon works again by itself before its turn: nothing is typed into it.
    let (_, moon) = moved.iter().find(|(u, _)| u.session_id == "moon").unwrap();
    f.working("moon");
    assert_eq!(
        f.due("moon", moon.unwrap().generation, Millis(10 * HOUR)),
        Due::Nothing
    );
}

#[test]
fn held_before_a_restart_whose_reset_passed_meanwhile_is_due_at_once() {
    let f = Figures::default();
    f.load("sky", sample(0, 0.1, 1, Some((100.0, 2 * HOUR))));
    f.set_continue("sky", true, Millis(0), GAP);
    // Held since an hour in; the hub starts again three hours in.
    let (_, plan) = f.limited("sky", Millis(HOUR), GAP);
    let plan = plan.unwrap();
    assert_eq!(plan.at, Millis(2 * HOUR + 2_000));
    assert_eq!(
        f.due("sky", plan.generation, Millis(3 * HOUR)),
        Due::Continue(plan)
    );
}

#[test]
fn the_transcripts_answers_count_once_each() {
    let f = Figures::default();
    let used = |id: &str| Used {
        message_id: id.into(),
        model: None,
        input: 100,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    };
    let one = f.answered("sky", &used("m1"), Millis(1), GAP).unwrap();
    assert_eq!(one.keep.unwrap().input, 100);
    assert!(
        f.answered("sky", &used("m1"), Millis(2), GAP).is_none(),
        "the same answer's next line"
    );
    let two = f.answered("sky", &used("m2"), Millis(3), GAP).unwrap();
    assert_eq!(
        (two.agent.sample.tokens.input, two.keep.unwrap().input),
        (200, 100)
    );
    f.record("sky", sample(4, 0.5, 1000, None), GAP);
    let three = f.answered("sky", &used("m3"), Millis(5), GAP).unwrap();
    assert_eq!(three.agent.sample.tokens.input, 300);
    assert_eq!(f.agent("sky").unwrap().line, "10% · 1k/200k · $0.50");
}

#[test]
fn figures_loaded_after_a_restart_are_not_kept_again() {
    let f = Figures::default();
    f.load("sky", sample(0, 0.5, 1000, Some((30.0, HOUR))));
    assert_eq!(
        f.record("sky", sample(1, 0.5, 1000, Some((30.0, HOUR))), GAP)
            .keep,
        None
    );
    assert_eq!(f.account().limits.len(), 1);
}
