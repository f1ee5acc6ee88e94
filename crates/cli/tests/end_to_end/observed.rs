//! Claude Code sessions ClawMux did not start, seen through the hooks `clawmux hooks install` puts in the user's settings.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::feed::needs_is;
use crate::common::{wait_until, TestHub, BIN};
use serde_json::{json, Value};

const SECS5: Duration = Duration::from_secs(5);

/// Runs an installed hook command as Claude Code does (`sh -c`), outside any agent; returns its time.
fn run_installed(
    command: &str,
    home: &Path,
    payload: &Value,
    extra_env: &[(&str, &str)],
) -> Duration {
    let start = Instant::now();
    let mut cmd = Command::new("sh");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .args(["-c", command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "an observing hook says nothing to Claude"
    );
    start.elapsed()
}

#[test]
fn observed_sessions_through_installed_hooks() {
    let hub = TestHub::start();
    let mut feed = hub.feed(None);
    let settings = hub.dir.path().join("claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let users = r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/my-stop"}]}]},"statusLine":{"type":"command","command":"cat >/dev/null; echo \"my line\"","padding":1}}"#;
    std::fs::write(&settings, users).unwrap();

    let install = Command::new(BIN)
        .env("HOME", hub.dir.path())
        .args(["hooks", "install", "--settings"])
        .arg(&settings)
        .arg("--data-dir")
        .arg(hub.data())
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let installed: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        installed["hooks"]["Stop"][0]["hooks"][0]["command"],
        "/usr/local/bin/my-stop"
    );
    let command = installed["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();

    let cwd = hub.dir.path().join("my app");
    let base = json!({"session_id": "1a2b3c4d-0000-4000-8000-000000000001", "cwd": cwd, "transcript_path": null});
    let hook = |name: &str, extra: Value| {
        let mut p = base.clone();
        p["hook_event_name"] = json!(name);
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        run_installed(&command, hub.dir.path(), &p, &[])
    };
    let mut times = vec![hook("SessionStart", json!({"source": "startup"}))];
    let spawned = feed
        .until(SECS5, |v| v["type"] == "session_spawned")
        .expect("the session appears");
    assert_eq!(spawned["session"]["session_id"], "my-app-1a2b3c4d");
    assert_eq!(spawned["session"]["launch"], "observed");
    feed.state("my-app-1a2b3c4d", "idle", SECS5);
    times.push(hook("UserPromptSubmit", json!({"prompt": "ship it"})));
    feed.state("my-app-1a2b3c4d", "processing", SECS5);
    times.push(hook(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "t1"}),
    ));
    times.push(hook(
        "PermissionRequest",
        json!({"tool_name": "Bash", "tool_input": {"command": "make"}}),
    ));
    feed.until(SECS5, |v| {
        needs_is(v, "my-app-1a2b3c4d", Some("permission"))
    })
    .expect("needs you");
    times.push(hook(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_use_id": "t1"}),
    ));
    times.push(hook("Stop", json!({})));
    feed.state("my-app-1a2b3c4d", "idle", SECS5);

    // The status line is the observed bridge now: the user's own line still prints, and what the session
    // costs reaches the window under its name.
    let line_command = installed["statusLine"]["command"].as_str().unwrap();
    assert_eq!(installed["statusLine"]["padding"], 1);
    let status_line = |payload: &Value| {
        let mut child = Command::new("sh")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", hub.dir.path())
            .args(["-c", line_command])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let mut usage = base.clone();
    usage["model"] = json!({"display_name": "Opus 5.5"});
    usage["cost"] = json!({"total_cost_usd": 0.42});
    usage["context_window"] = json!({"context_window_size": 200_000, "used_percentage": 12,
        "current_usage": {"input_tokens": 24_000}, "total_input_tokens": 24_000, "total_output_tokens": 900});
    assert_eq!(status_line(&usage), "my line\n");
    let ev = feed
        .until(SECS5, |v| v["type"] == "usage")
        .expect("the observed session's figures");
    assert_eq!(ev["usage"]["session_id"], "my-app-1a2b3c4d");
    assert_eq!(ev["usage"]["line"], "12% · 24k/200k · $0.42");
    // A session the hub does not know yet: the line all the same, and nothing recorded.
    let mut stranger = usage.clone();
    stranger["session_id"] = json!("not-seen-yet");
    assert_eq!(status_line(&stranger), "my line\n");
    assert_eq!(hub.get("/api/sessions").1.as_array().unwrap().len(), 1);
    times.sort();
    eprintln!(
        "installed hook (process + request), p50 {} ms, max {} ms",
        times[times.len() / 2].as_millis(),
        times[times.len() - 1].as_millis()
    );

    // Inside an agent ClawMux started, the installed hook stays silent; another session appears.
    let inside = json!({"hook_event_name": "SessionStart", "session_id": "inside-1", "cwd": cwd});
    run_installed(
        &command,
        hub.dir.path(),
        &inside,
        &[("CLAWMUX_SESSION_ID", "sky")],
    );
    let other = json!({"hook_event_name": "SessionStart", "session_id": "other-2", "cwd": cwd});
    run_installed(&command, hub.dir.path(), &other, &[]);
    feed.until(SECS5, |v| {
        v["type"] == "session_spawned" && v["session"]["session_id"] == "my-app-other2"
    })
    .expect("the second session");
    let names: Vec<String> = hub
        .get("/api/sessions")
        .1
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["my-app-1a2b3c4d", "my-app-other2"]);

    // Bad payloads are refused and add nothing; a session's stray end adds nothing.
    for bad in [
        r#"{"hook_event_name":"Stop","cwd":"/w"}"#,
        r#"{"hook_event_name":"Stop","session_id":"../x","cwd":"/w"}"#,
        r#"{"hook_event_name":"Stop","session_id":"s9","cwd":"w"}"#,
    ] {
        assert_eq!(hub.post("/api/observe", None, bad).0, 400, "{bad}");
    }
    assert_eq!(
        hub.post(
            "/api/observe",
            None,
            r#"{"hook_event_name":"SessionEnd","session_id":"s9","cwd":"/w"}"#
        )
        .0,
        200
    );
    assert_eq!(hub.get("/api/sessions").1.as_array().unwrap().len(), 2);

    // With the hub down (killed: its socket file is left, nobody answers on it) the hook gives up at once
    // and lets Claude carry on.
    let killed = Command::new("kill")
        .args(["-9", &hub.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    wait_until(SECS5, || {
        std::fs::read_to_string(format!("/proc/{}/stat", hub.child.id()))
            .map_or(true, |stat| stat.contains(") Z"))
    });
    let down = hook("Stop", json!({}));
    assert!(down < Duration::from_secs(2), "{down:?}");

    // Uninstall leaves exactly the user's settings.
    let uninstall = Command::new(BIN)
        .args(["hooks", "uninstall", "--settings"])
        .arg(&settings)
        .output()
        .unwrap();
    assert!(uninstall.status.success());
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, serde_json::from_str::<Value>(users).unwrap());

    // A settings file that is not JSON is refused and left as it was.
    std::fs::write(&settings, "{ not json").unwrap();
    let refused = Command::new(BIN)
        .args(["hooks", "install", "--settings"])
        .arg(&settings)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{ not json");
}
