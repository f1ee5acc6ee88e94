//! `clawmux search` against a real hub: what the user and the agents said found by its words, filtered,
//! as words whatever they hold; found again after a crash and a restart, and after an import of an
//! original installation.

use crate::common::TestHub;
use serde_json::Value;

fn search(hub: &TestHub, args: &[&str]) -> (Option<i32>, String, String) {
    let out = hub.clawmux(None).arg("search").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn found(hub: &TestHub, args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = search(hub, &all);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["results"].as_array().unwrap().clone()
}

#[test]
fn what_was_said_is_found_by_its_words_across_a_crash_and_an_import() {
    let dir = tempfile::tempdir().unwrap();
    // An original installation waits in the data folder, to import later.
    let sessions = dir.path().join("data/sessions/owl");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("history.json"),
        r#"{"messages":[{"role":"user","text":"remember the pelican migration","ts":1760000000,"id":"msg-0000bbba"}]}"#,
    )
    .unwrap();
    let mut hub = TestHub::start_in(dir, "warn");
    hub.add_agent("sky");
    hub.add_agent("moon");
    hub.post(
        "/api/sessions/sky/messages",
        None,
        r#"{"text":"please deploy the staging build"}"#,
    );
    hub.run(
        Some("sky"),
        &[
            "send",
            "--to",
            "user",
            "the deploy failed: the build is red",
        ],
    );
    hub.run(
        Some("moon"),
        &["send", "--to", "user", "deployment done (NOT really)"],
    );

    let at = |r: &[Value]| -> Vec<String> {
        r.iter()
            .map(|f| f["agent"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(at(&found(&hub, &["deploy", "build"])), ["sky", "sky"]);
    assert_eq!(found(&hub, &["deploy*"]).len(), 3);
    assert_eq!(at(&found(&hub, &["deploy*", "--agent", "moon"])), ["moon"]);
    assert_eq!(found(&hub, &["deploy*", "--user"]).len(), 1);
    assert_eq!(
        found(&hub, &["deploy*", "--agents", "--since", "1h"]).len(),
        2
    );
    assert_eq!(
        found(&hub, &["(NOT"]).len(),
        1,
        "FTS5's syntax is only words here"
    );
    // The words on a terminal: agent, who, and the snippet (no markers when not a terminal).
    let (code, text, _) = search(&hub, &["red"]);
    assert_eq!(code, Some(0));
    assert!(text.contains("  sky  sky (assistant)  msg-"), "{text}");
    assert!(
        text.contains("    the deploy failed: the build is red"),
        "{text}"
    );
    // Bad queries: a clear error, nothing else.
    let (code, _, err) = search(&hub, &["  ()  "]);
    assert_eq!(code, Some(1));
    assert!(err.contains("the search is empty"), "{err}");
    let (code, _, err) = search(&hub, &[&"w".repeat(300)]);
    assert_eq!(code, Some(1));
    assert!(err.contains("longer than 256"), "{err}");
    let (code, _, err) = search(&hub, &["x", "--since", "someday"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("--since"), "{err}");

    // Killed and started again: still found.
    hub.crash_and_restart();
    assert_eq!(found(&hub, &["deploy*"]).len(), 3);
    // An original installation imported: its messages are found too.
    assert!(found(&hub, &["pelican"]).is_empty());
    hub.run(None, &["import"]);
    assert_eq!(at(&found(&hub, &["pelican", "migration"])), ["owl"]);
}

#[test]
fn the_users_own_claude_code_sessions_are_searched_when_asked_read_incrementally() {
    let hub = TestHub::start();
    let projects = hub.dir.path().join(".claude/projects/-src-app");
    std::fs::create_dir_all(&projects).unwrap();
    let transcript = projects.join("0b5e6a2e-1111-4222-8333-444455556666.jsonl");
    let line = |kind: &str, content: &str| {
        format!(
            "{{\"type\":\"{kind}\",\"sessionId\":\"0b5e6a2e-1111-4222-8333-444455556666\",\"cwd\":\"/src/app\",\
             \"timestamp\":\"2026-11-20T09:00:00Z\",\"message\":{{\"content\":{content}}}}}\n"
        )
    };
    std::fs::write(
        &transcript,
        line("user", "\"fix the flaky login test\"")
            + &line(
                "assistant",
                r#"[{"type":"text","text":"Looking."},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"npm test -- login"}}]"#,
            ),
    )
    .unwrap();
    let sessions = |words: &str| -> Vec<Value> {
        let (code, out, err) = search(&hub, &[words, "--json"]);
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str::<Value>(&out).unwrap()["sessions"]
            .as_array()
            .unwrap()
            .clone()
    };
    // Not until the user opts in.
    assert!(sessions("flaky").is_empty());
    let on = r#"{"command":"search_sessions","on":true}"#;
    assert_eq!(hub.post("/api/command", None, on).0, 200);
    crate::common::wait_until(std::time::Duration::from_secs(10), || {
        sessions("flaky").len() == 1
    });
    let found = sessions("flaky");
    assert_eq!(found[0]["folder"], "/src/app");
    assert_eq!(found[0]["role"], "user");
    assert_eq!(
        found[0]["session_id"],
        "0b5e6a2e-1111-4222-8333-444455556666"
    );
    assert_eq!(
        sessions("npm login")[0]["role"],
        "tool",
        "tool calls by name and input"
    );
    // What the session adds is read, and only that: the first prompt is still found once.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    std::io::Write::write_all(&mut f, line("user", "\"now the pelican page\"").as_bytes()).unwrap();
    assert_eq!(hub.post("/api/command", None, on).0, 200);
    crate::common::wait_until(std::time::Duration::from_secs(10), || {
        sessions("pelican").len() == 1
    });
    assert_eq!(
        sessions("flaky").len(),
        1,
        "read incrementally, nothing twice"
    );
    let (_, text, _) = search(&hub, &["pelican"]);
    assert!(
        text.contains("/src/app  user  (claude --resume 0b5e6a2e-1111-4222-8333-444455556666)"),
        "{text}"
    );
    // Off: forgotten.
    let off = r#"{"command":"search_sessions","on":false}"#;
    assert_eq!(hub.post("/api/command", None, off).0, 200);
    assert!(sessions("flaky").is_empty());
}
