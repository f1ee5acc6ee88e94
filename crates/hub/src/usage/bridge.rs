//! The status-line command of a spawned agent: `clawmux statusline`, which hands Claude Code's payload to
//! the hub and prints a line. When the user has a status-line command of their own, the bridge runs it
//! with the same payload and prints its line instead, so their terminal keeps the line they chose.
//!
//! Their command is found where Claude Code would find it for the agent's folder, most local first: the
//! folder's `.claude/settings.local.json`, its `.claude/settings.json`, then the user's
//! `$CLAUDE_CONFIG_DIR/settings.json` (else `~/.claude/settings.json`). The agent's own settings (given
//! with `--settings`) would hide it, so it is read here, when the agent starts.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// Claude Code's user settings folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_dir() -> PathBuf {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("HOME")
            .map_or_else(|| PathBuf::from("/"), PathBuf::from)
            .join(".claude"),
    }
}

/// The status-line command a settings file names, if it names one (`{"statusLine": {"type": "command",
/// "command": "..."}}`).
fn command_in(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let doc: Value = serde_json::from_str(&text).ok()?;
    let line = doc.get("statusLine")?;
    if line.get("type").and_then(Value::as_str) != Some("command") {
        return None;
    }
    line.get("command")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// The user's own status-line command for an agent working in `work_dir`, if they have one. A command
/// that is ClawMux's own bridge is not chained (it would run itself).
pub fn users_command(claude_dir: &Path, work_dir: &Path) -> Option<String> {
    [
        work_dir.join(".claude/settings.local.json"),
        work_dir.join(".claude/settings.json"),
        claude_dir.join("settings.json"),
    ]
    .iter()
    .find_map(|f| command_in(f))
    .filter(|c| !c.contains("clawmux statusline") && !c.contains("' statusline"))
}

/// The `statusLine` of an agent's settings: the bridge, chaining `users` if given. `quote` quotes for the
/// shell Claude Code runs it in.
pub fn setting(clawmux: &str, users: Option<&str>, quote: impl Fn(&str) -> String) -> Value {
    let command = match users {
        Some(users) => format!("{clawmux} statusline --then {}", quote(users)),
        None => format!("{clawmux} statusline"),
    };
    json!({ "type": "command", "command": command, "padding": 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_command_is_found_most_local_first() {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        assert_eq!(users_command(home.path(), work.path()), None);
        let write = |path: PathBuf, v: Value| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, v.to_string()).unwrap();
        };
        write(
            home.path().join("settings.json"),
            json!({"statusLine": {"type": "command", "command": "~/bin/line.sh"}, "model": "opus"}),
        );
        assert_eq!(
            users_command(home.path(), work.path()).as_deref(),
            Some("~/bin/line.sh")
        );
        write(
            work.path().join(".claude/settings.json"),
            json!({"statusLine": {"type": "command", "command": "echo project"}}),
        );
        assert_eq!(
            users_command(home.path(), work.path()).as_deref(),
            Some("echo project")
        );
        // Not a command, blank, or not JSON: passed over.
        write(
            work.path().join(".claude/settings.local.json"),
            json!({"statusLine": {"type": "static", "command": "x"}}),
        );
        assert_eq!(
            users_command(home.path(), work.path()).as_deref(),
            Some("echo project")
        );
        std::fs::write(work.path().join(".claude/settings.json"), "{not json").unwrap();
        assert_eq!(
            users_command(home.path(), work.path()).as_deref(),
            Some("~/bin/line.sh")
        );
        // ClawMux's own bridge is never chained to itself.
        write(
            home.path().join("settings.json"),
            json!({"statusLine": {"type": "command", "command": "'/usr/bin/clawmux' statusline"}}),
        );
        assert_eq!(users_command(home.path(), work.path()), None);
    }

    #[test]
    fn the_setting_chains_the_users_command_quoted() {
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let plain = setting("'/bin/clawmux'", None, quote);
        assert_eq!(plain["command"], "'/bin/clawmux' statusline");
        let chained = setting("'/bin/clawmux'", Some("echo 'hi' $USER"), quote);
        assert_eq!(
            chained["command"],
            r#"'/bin/clawmux' statusline --then 'echo '\''hi'\'' $USER'"#
        );
        assert_eq!(chained["type"], "command");
    }
}
