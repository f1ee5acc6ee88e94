//! An original installation in the data folder (`sessions/<agent>/history.json`): the hub says it is
//! there, and `clawmux import` brings each agent's conversation in, once, with a line per agent and a
//! clear error for a bad file.

use std::time::Duration;

use crate::common::TestHub;

const SKY: &str = r#"{"claude_session_id":"0b1c-uuid","messages":[
    {"role":"user","text":"hi","ts":1760000000.5,"id":"msg-0000aaaa"},
    {"role":"assistant","text":"hello","ts":1760000001,"id":"msg-0000aaab","parent_id":"msg-0000aaaa"}
]}"#;

#[test]
fn an_original_installation_is_offered_and_imported_once_agent_by_agent() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("data/sessions");
    for (agent, history) in [("sky", SKY), ("broken", "{\"messages\": 7}")] {
        std::fs::create_dir_all(sessions.join(agent)).unwrap();
        std::fs::write(sessions.join(agent).join("history.json"), history).unwrap();
    }
    let hub = TestHub::start_in(dir, "info");
    let (_, caps) = hub.post("/api/command", None, r#"{"command":"capabilities"}"#);
    assert_eq!(caps["to_import"], 2, "{caps}");
    let mut feed = hub.feed(None);

    let run = || {
        let out = hub.clawmux(None).arg("import").output().unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, stdout, stderr) = run();
    assert_eq!(code, Some(1), "one history could not be imported: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("broken: not imported: "), "{stdout}");
    assert_eq!(lines[1], "sky: 2 message(s) imported, 0 already there");
    assert!(
        stderr.contains("1 of 2 agent(s) could not be imported"),
        "{stderr}"
    );
    feed.until(Duration::from_secs(5), |v| {
        v["type"] == "session_spawned" && v["session"]["session_id"] == "sky"
    })
    .expect("the window hears of the imported agent");
    let texts: Vec<String> = hub
        .history("sky")
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["hi", "hello"]);
    assert!(
        hub.get("/api/sessions")
            .1
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["session_id"] != "broken"),
        "a bad file changes nothing"
    );

    // Again: nothing twice.
    let (_, stdout, _) = run();
    assert!(
        stdout.contains("sky: 0 message(s) imported, 2 already there"),
        "{stdout}"
    );
    assert_eq!(hub.history("sky").len(), 2);
    let (_, caps) = hub.post("/api/command", None, r#"{"command":"capabilities"}"#);
    assert_eq!(caps["to_import"], 1, "only the broken one is left: {caps}");
}
