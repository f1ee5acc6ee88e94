//! The attention corpus replayed case by case and the timeline interleaved; `explain` and `status` printing
//! the hub's typed answers.

use crate::attention::{iso, permission, pre_tool};
use crate::common::{TestHub, BIN};
use serde_json::json;
use std::path::Path;
use std::process::Command;

#[test]
fn replay_checks_every_case_of_the_corpus_and_timeline_interleaves() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let out = Command::new(BIN).arg("replay").arg(&path).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let missing = Command::new(BIN)
        .args(["replay", "/nonexistent.jsonl"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));

    // A usable check: what does not reproduce, or holds nothing to replay, or is too large, fails.
    let cases = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str| {
        let path = cases.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = Command::new(BIN).arg("replay").arg(&path).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The recorded decision differs only in "needs you": the DIFFERS line says how.
    let recorded = r#"{"trigger":"wait:connect","source":"wait","at":1,"from":"starting","to":"idle","activity":null,"outcome":"moved","detail":null,"attention":{"change":"cleared","need":"permission"}}"#;
    let (code, out, err) = run(
        "needs.jsonl",
        &format!(
            "{{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:connect\",\"decision\":{recorded}}}\n"
        ),
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("DIFFERS recorded starting -> idle, needs you ended (permission), replayed starting -> idle\n"),
        "{out}"
    );
    assert!(err.contains("it does not reproduce"), "{err}");
    let (code, _, err) = run("empty.jsonl", "");
    assert!(
        code == Some(1) && err.contains("no event to replay"),
        "{err}"
    );
    let (code, _, err) = run(
        "renamed.jsonl",
        "{\"at\":1,\"source\":\"wait\",\"kind\":\"wait:conect\"}\n",
    );
    assert!(
        code == Some(1) && err.contains("line 1: `wait:conect` is not a kind of event"),
        "{err}"
    );
    // 2 GB (a sparse file): refused before anything is read.
    let huge = cases.path().join("huge.jsonl");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = Command::new(BIN).arg("replay").arg(&huge).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1) && err.contains("2048 MB, more than the 256 MB"),
        "{err}"
    );

    let hub = TestHub::start();
    hub.add_agent("sky");
    let transcript = hub.dir.path().join("t/c1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let now = iso(std::time::SystemTime::now());
    std::fs::write(&transcript, format!("{{\"type\":\"assistant\",\"timestamp\":\"{now}\",\"message\":{{\"content\":[{{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\"}}]}}}}\n")).unwrap();
    hub.hook(
        "sky",
        pre_tool("t1", "Bash", json!({"command": "ls"}), Some(&transcript)),
    );
    hub.hook("sky", permission("Bash", json!({"command": "ls"})));
    let out = hub
        .clawmux(None)
        .args(["timeline", "sky"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "[hook]",
        "hook:PermissionRequest tool_name=Bash",
        "[decision]",
        "NEEDS YOU: permission",
        "[transcript]",
        "tool_use Bash t1",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
    let later = hub
        .clawmux(None)
        .args(["timeline", "sky", "--from", "2999-01-01T00:00:00Z"])
        .output()
        .unwrap();
    assert!(later.status.success());
    assert!(later.stdout.is_empty());
    let bad = hub
        .clawmux(None)
        .args(["timeline", "sky", "--from", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// `clawmux explain` and `clawmux status` print what the hub's typed answers say: the indicator's word and
/// state, what set it, the need and what ends it, the latest decisions; a hostile tool input is made
/// printable before the terminal shows it.
#[test]
fn explain_and_status_print_the_hubs_typed_answers() {
    let hub = TestHub::start();
    hub.add_agent("sky");
    let (status, _) = hub.hook(
        "sky",
        permission(
            "Bash",
            json!({"command": "rm -rf build\u{1b}]0;owned\u{7}"}),
        ),
    );
    assert_eq!(status, 200);
    let said = hub.run(None, &["explain", "sky"]);
    assert!(said.starts_with("sky: Needs you ("), "{said}");
    assert!(said.contains("  needs you: Permission: "), "{said}");
    assert!(said.contains("    ends with:\n      - "), "{said}");
    assert!(
        said.contains("  latest decisions (newest first):\n    "),
        "{said}"
    );
    assert!(said.contains(" -> "), "{said}");
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{7}'),
        "{said:?}"
    );
    let status = hub.run(None, &["status"]);
    let row = status.lines().find(|l| l.starts_with("sky ")).unwrap();
    assert!(row.split_whitespace().nth(1).is_some(), "{status}");
    assert!(!status.contains('\u{1b}'), "{status:?}");
}
