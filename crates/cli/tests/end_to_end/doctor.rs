//! `clawmux doctor` run as a user runs it, against a real hub: each check says what it found, and each
//! thing broken on purpose (an old Claude Code, a data folder others may read, hooks of another clawmux, a
//! hub killed) is a failure or a warning with its fix.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::common::{cannot_run, TestHub, BIN};

/// The checks `clawmux doctor --json` printed, by name, and whether it exited 0.
fn doctor(
    hub: &TestHub,
    env: &[(&str, &Path)],
) -> (std::collections::BTreeMap<String, Value>, bool) {
    let mut cmd = hub.clawmux(None);
    cmd.arg("doctor").arg("--json");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let checks: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let by_name = checks
        .into_iter()
        .map(|c| (c["check"].as_str().unwrap().to_owned(), c))
        .collect();
    (by_name, out.status.success())
}

/// Asserts that check `name` came out `want`, showing the check when it did not.
fn expect(checks: &std::collections::BTreeMap<String, Value>, name: &str, want: &str) {
    assert_eq!(checks[name]["status"], want, "{name}: {}", checks[name]);
}

/// The pinned Claude Code the real-CLI tests run, installed from npm where the browser tests install it
/// (`tests/e2e/real-claude.mjs`) when it is not there yet; `None` when it cannot be.
fn real_claude() -> Option<std::path::PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?
        .join("clawmux-tests/claude-code-2.1.330");
    let bin = cache.join("node_modules/.bin/claude");
    if !bin.exists() {
        std::fs::create_dir_all(&cache).ok()?;
        let prefix = cache.to_string_lossy().into_owned();
        let installed = std::process::Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--silent",
                "--prefix",
                &prefix,
            ])
            .arg("@anthropic-ai/claude-code@2.1.330")
            .status()
            .ok()?;
        installed.success().then_some(())?;
    }
    bin.exists().then_some(bin)
}

#[test]
fn the_doctor_says_what_is_wrong_and_how_to_fix_it() {
    let mut hub = TestHub::start();
    let dir = hub.dir.path().to_owned();

    // An old Claude Code (a script that says its version: the real one cannot be made old).
    let old = dir.join("old-claude");
    std::fs::write(&old, "#!/bin/sh\necho '2.0.9 (Claude Code)'\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (checks, ok) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    assert!(!ok, "a failure exits 1");
    expect(&checks, "claude code", "fail");
    assert!(checks["claude code"]["detail"]
        .as_str()
        .unwrap()
        .contains("older than 2.1.330"));
    assert!(checks["claude code"]["fix"]
        .as_str()
        .unwrap()
        .contains("claude update"));
    expect(&checks, "tmux", "ok");
    expect(&checks, "hub", "ok");
    expect(&checks, "data folder", "ok");
    expect(&checks, "hooks", "ok");
    for name in ["sound server", "tray", "notifications", "graphics", "disk"] {
        assert!(checks.contains_key(name), "no {name} check");
    }
    match real_claude() {
        Some(real) => {
            let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &real)]);
            expect(&checks, "claude code", "ok");
        }
        None => cannot_run(
            "the doctor with the real Claude Code",
            "the pinned CLI is not installed",
        ),
    }

    // Hooks of another clawmux in the user's settings: a warning, fixed by installing them again.
    let settings = dir.join(".claude/settings.json");
    let installed = hub
        .clawmux(None)
        .args(["hooks", "install"])
        .output()
        .unwrap();
    assert!(installed.status.success());
    let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    expect(&checks, "hooks", "ok");
    let text = std::fs::read_to_string(&settings)
        .unwrap()
        .replace(BIN, "/opt/elsewhere/clawmux");
    std::fs::write(&settings, text).unwrap();
    let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    expect(&checks, "hooks", "warn");
    assert!(checks["hooks"]["detail"]
        .as_str()
        .unwrap()
        .contains("/opt/elsewhere/clawmux"));

    // A data folder others may read: a failure, and its fix works.
    let data = hub.data();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    expect(&checks, "data folder", "fail");
    let fix = checks["data folder"]["fix"].as_str().unwrap().to_owned();
    assert!(
        std::process::Command::new("sh")
            .args(["-c", &fix])
            .status()
            .unwrap()
            .success(),
        "{fix}"
    );
    let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    expect(&checks, "data folder", "ok");

    // A hub killed leaves its socket and does not answer on it.
    hub.kill();
    let (checks, _) = doctor(&hub, &[("CLAWMUX_CLAUDE", &old)]);
    expect(&checks, "hub", "fail");
    assert!(checks["hub"]["fix"]
        .as_str()
        .unwrap()
        .contains("start it again"));
    hub.restart();
}

#[test]
fn the_window_asks_the_hub_for_the_same_checks() {
    // "Check this machine" (the first screen, the explanation panel): the hub runs the doctor on its own
    // data folder, with the `clawmux` it starts agents with, and answers its checks.
    let hub = TestHub::start();
    let (status, checks) = hub.post("/api/command", None, r#"{"command": "doctor"}"#);
    assert_eq!(status, 200, "{checks}");
    let by_name: std::collections::BTreeMap<String, Value> = checks
        .as_array()
        .unwrap_or_else(|| panic!("not a list of checks: {checks}"))
        .iter()
        .map(|c| (c["check"].as_str().unwrap().to_owned(), c.clone()))
        .collect();
    expect(&by_name, "hub", "ok");
    expect(&by_name, "tmux", "ok");
    expect(&by_name, "data folder", "ok");
    assert!(
        by_name["hub"]["detail"]
            .as_str()
            .unwrap()
            .contains(&hub.data().display().to_string()),
        "the hub's own data folder: {}",
        by_name["hub"]
    );
}
