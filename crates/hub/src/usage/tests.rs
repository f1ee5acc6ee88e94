//! Tests of `the module`.

use super::*;
use serde_json::json;

struct Fixture {
    usage: Usage,
    errands: mpsc::UnboundedReceiver<Errand>,
    events: broadcast::Receiver<UiEvent>,
    /// The store's folder: every test that takes the fixture apart binds it (`_dir`), for a pattern's
    /// `..` drops it at once, and the database file with it (a reader the store opens later then fails:
    /// "unable to open database file", as a busy machine found).
    _dir: tempfile::TempDir,
}

/// The feature over a temporary store, `sky` registered, its errands and the window's events caught.
async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    let agents = Agents::default();
    agents.insert("sky", "/w/sky".into(), State::Idle);
    let ui = broadcast::channel(64).0;
    let events = ui.subscribe();
    let (sender, errands) = mpsc::unbounded_channel();
    let options = crate::config::Options {
        context_notice: 80,
        ..crate::config::Options::from_env()
    };
    let figures = figures::Figures::restore(&store).await.unwrap();
    let usage = Usage::new(
        store,
        agents,
        ui,
        figures,
        sender,
        &options,
        crate::tasks::Tasks::default(),
    );
    Fixture {
        usage,
        errands,
        events,
        _dir: dir,
    }
}

fn status_line(session: &str, cost: f64, percent: u8) -> Vec<u8> {
    json!({"session_id": session, "model": {"display_name": "Opus 5.5"}, "cost": {"total_cost_usd": cost},
            "context_window": {"total_input_tokens": 10, "total_output_tokens": 321, "context_window_size": 200_000,
                "current_usage": {"input_tokens": u64::from(percent) * 2000, "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0},
                "used_percentage": percent}})
        .to_string()
        .into_bytes()
}

/// The day's cost in the history and in the figures, for `sky`.
async fn history_and_figures(usage: &Usage) -> (f64, f64) {
    let reply = usage.summary(Some(2), None).await.unwrap();
    (
        reply.days.first().map_or(0.0, |d| d.cost),
        reply.agents[0].sample.cost_usd.unwrap_or(0.0),
    )
}

#[tokio::test]
async fn a_report_whose_caller_goes_keeps_the_figures_and_the_history_together() {
    let Fixture {
        usage,
        mut events,
        _dir,
        ..
    } = fixture().await;
    // Each caller gives up after the first poll, as a connection closed early cancels its handler.
    for cost in [0.5, 1.25, 2.0] {
        let body = status_line("c1", cost, 1);
        let mut report = Box::pin(usage.report("sky", &body));
        let pending = std::future::poll_fn(|cx| {
            std::task::Poll::Ready(std::future::Future::poll(report.as_mut(), cx).is_pending())
        })
        .await;
        assert!(pending, "the report waits for its row");
        drop(report);
        // What was started is finished: the window hears the figures once they are stored.
        let heard = async {
            loop {
                if let UiEvent::Usage { usage } = events.recv().await.unwrap() {
                    if usage.sample.cost_usd == Some(cost) {
                        break;
                    }
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), heard)
            .await
            .expect("the figures of a report whose caller went are stored and told");
    }
    assert_eq!(history_and_figures(&usage).await, (2.0, 2.0));
}

#[tokio::test]
async fn payloads_that_are_not_the_status_lines_or_came_late_move_nothing() {
    let Fixture { usage, _dir, .. } = fixture().await;
    usage
        .report("sky", &status_line("c1", 0.674, 1))
        .await
        .unwrap();
    let e = usage
        .report("sky", br#"{"hello":"world"}"#)
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::MalformedEvent);
    let e = usage
        .report("moon", &status_line("c1", 1.0, 1))
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::UnknownAgent);
    // A refresh taken before the last one arrives after it: no roll-back, nothing added.
    usage
        .report("sky", &status_line("c1", 0.0749, 1))
        .await
        .unwrap();
    assert_eq!(history_and_figures(&usage).await, (0.674, 0.674));
    // A new session counts from zero.
    usage
        .report("sky", &status_line("c2", 0.1, 1))
        .await
        .unwrap();
    let (history, figures) = history_and_figures(&usage).await;
    assert!((history - 0.774).abs() < 1e-9, "{history}");
    assert_eq!(figures, 0.1);
}

#[tokio::test]
async fn a_context_past_the_notice_asks_the_lifecycle_for_one_note() {
    let Fixture {
        usage,
        mut errands,
        _dir,
        ..
    } = fixture().await;
    usage
        .report("sky", &status_line("c1", 0.1, 50))
        .await
        .unwrap();
    assert!(errands.try_recv().is_err(), "no note below the threshold");
    usage
        .report("sky", &status_line("c1", 0.2, 85))
        .await
        .unwrap();
    let Ok(Errand::Note { agent, text }) = errands.try_recv() else {
        panic!("no note past the threshold");
    };
    assert_eq!(agent, "sky");
    assert!(text.contains("85% full"), "{text}");
    usage
        .report("sky", &status_line("c1", 0.3, 90))
        .await
        .unwrap();
    assert!(errands.try_recv().is_err(), "one note per crossing");
}

#[tokio::test]
async fn rate_limited_is_the_machines_word_and_usage_says_until_when() {
    let Fixture {
        usage,
        mut events,
        _dir,
        ..
    } = fixture().await;
    let limited = clawmux_core::Attention {
        need: Need::RateLimited,
        reason: "You've hit your 5-hour limit".to_owned(),
        tool_use_id: None,
        tool_name: None,
        since: Millis(1_000),
        notice: false,
    };
    usage.need_is("sky", Some(&limited));
    let held = usage.of_agent("sky").unwrap().limited.unwrap();
    assert_eq!(held.since, Millis(1_000), "since when the machine says");
    assert!(matches!(events.try_recv(), Ok(UiEvent::Usage { .. })));
    // Said again, nothing moves; another need, or none, frees it.
    usage.need_is("sky", Some(&limited));
    assert!(events.try_recv().is_err());
    let error = clawmux_core::Attention {
        need: Need::Error,
        ..limited.clone()
    };
    usage.need_is("sky", Some(&error));
    assert_eq!(usage.of_agent("sky").unwrap().limited, None);
    assert!(matches!(events.try_recv(), Ok(UiEvent::Usage { .. })));
    usage.need_is("sky", None);
    assert!(events.try_recv().is_err(), "nothing to free");
}
