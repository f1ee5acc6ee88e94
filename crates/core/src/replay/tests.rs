//! Tests of `replay.rs`.

use super::*;

#[test]
fn events_expectations_and_errors() {
    let text = r#"{"case":"c","seen":"working","right":"idle"}
{"at":1,"source":"wait","kind":"wait:connect"}
{"expect":{"state":"idle","needs":null}}
{"at":2,"source":"hook","payload":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t"}}
{"at":3,"source":"hook","payload":"{\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Bash\"}"}
{"expect":{"needs":"permission"}}
{"expect":{"state":"processing"}}
"#;
    let r = replay(text).unwrap();
    assert_eq!(r.case.as_deref(), Some("c"));
    assert_eq!(r.decisions.len(), 3);
    assert_eq!(r.checks.len(), 3);
    assert!(r.checks[0].holds() && r.checks[1].holds());
    assert!(!r.checks[2].holds(), "an Idle agent is not processing");
    assert!(!r.passed());
    // Nothing to replay is no success.
    for empty in [
        "",
        "\n",
        "{\"case\":\"c\"}\n{\"expect\":{\"state\":\"idle\"}}\n",
    ] {
        assert!(replay(empty).is_err(), "{empty:?}");
    }
    // A kind renamed by hand, or one that is none, is refused with its line.
    let renamed = "{\"at\":1,\"source\":\"hook\",\"kind\":\"hook:PostToolUse\",\"payload\":{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\"}}";
    let e = replay(renamed).unwrap_err();
    assert!(e.why.contains("its payload is `hook:PreToolUse`"), "{e}");
    let e = replay("{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:conect\"}").unwrap_err();
    assert!(e.why.contains("not a kind of event"), "{e}");
    assert_eq!(replay("{\"at\":1}\n").unwrap_err().line, 1);
    assert!(replay("{\"at\":1,\"source\":\"moon\"}").is_err());
    assert!(replay("{\"expect\":{\"mood\":\"x\"}}").is_err());
    assert!(
        replay("{\"at\":1,\"source\":\"hub\",\"kind\":\"agent:spawn\"}\n{\"case\":\"late\"}")
            .is_err()
    );
}

#[test]
fn a_report_starts_mid_life_and_says_whether_it_reproduces_what_was_shown() {
    let mut start = Snapshot::new(Millis(100));
    start.state = State::Idle;
    let start = serde_json::json!({ "start": start });
    let recorded = r#"{"trigger":"wait:disconnect","source":"wait","at":200,"from":"idle","to":"processing","activity":null,"outcome":"moved","detail":null}"#;
    let wrong = r#"{"trigger":"wait:disconnect","source":"wait","at":200,"from":"idle","to":"idle","activity":null,"outcome":"stayed","detail":null}"#;
    let text = format!(
            "{{\"case\":\"r\"}}\n{start}\n{{\"transcript\":{{\"type\":\"user\"}}}}\n\
             {{\"at\":200,\"source\":\"wait\",\"kind\":\"wait:disconnect\",\"decision\":{recorded}}}\n\
             {{\"at\":300,\"source\":\"wait\",\"kind\":\"wait:disconnect\",\"decision\":{wrong}}}\n\
             {{\"shown\":{{\"state\":\"processing\",\"needs\":null}}}}\n"
        );
    let r = replay(&text).unwrap();
    assert_eq!(
        r.end.state,
        State::Processing,
        "from the start line, not from Starting"
    );
    assert_eq!(r.reproduces_shown(), Some(true));
    assert_eq!(
        r.mismatches.len(),
        1,
        "the second line's recorded decision is not the machine's"
    );
    assert!(!r.passed(), "a decision not made again is a failed replay");
    assert_eq!(r.mismatches[0].line, 5);
    let shown_idle = text.replace(
        r#""shown":{"state":"processing""#,
        r#""shown":{"state":"idle""#,
    );
    assert_eq!(replay(&shown_idle).unwrap().reproduces_shown(), Some(false));
    let late_start =
        format!("{{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:connect\"}}\n{start}\n");
    assert!(replay(&late_start).is_err());
}
