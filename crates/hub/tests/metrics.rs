//! The hub's metrics (`/metrics`, Prometheus' text format) against a real store: time in each state and the
//! transitions counted per agent.

#![allow(clippy::unwrap_used, missing_docs)]

use clawmux_hub::hub::Hub;

#[tokio::test]
async fn metrics_count_time_in_state_and_transitions() {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::open(dir.path()).await.unwrap();
    hub.roster().add_agent("sky", None).await.unwrap();
    let waiter = hub.inbox().wait_open("sky").await.unwrap();
    waiter.close().await.unwrap();
    let text = hub.metrics_text().await.unwrap();
    assert!(text.contains("# TYPE clawmux_agent_state_seconds_total counter"));
    assert!(
        text.contains(
            r#"clawmux_agent_transitions_total{agent="sky",from="starting",to="idle"} 1"#
        ),
        "{text}"
    );
    assert!(text
        .contains(r#"clawmux_agent_transitions_total{agent="sky",from="idle",to="processing"} 1"#));
    assert!(text.contains(r#"clawmux_agent_state{agent="sky",state="processing"} 1"#));
    assert!(text.contains(r#"clawmux_agent_state{agent="sky",state="idle"} 0"#));
    assert!(text.contains(r#"clawmux_agent_state_seconds_total{agent="sky",state="dead"} 0.000"#));
    assert!(text.contains(r#"clawmux_agent_suppressed_events_total{agent="sky"} 0"#));
}
