//! The status-line command of a spawned agent: `clawmux-statusline` (the program beside `clawmux`; where
//! there is none, `clawmux statusline`, the same code), which hands Claude Code's payload to the hub and
//! prints a line. When the user has a status-line command of their own, the bridge runs it
//! with the same payload and prints its line instead, so their terminal keeps the line they chose.
//!
//! Their command is found where Claude Code would find it for the agent's folder, most local first: the
//! folder's `.claude/settings.local.json`, its `.claude/settings.json`, then the user's
//! `$CLAUDE_CONFIG_DIR/settings.json` (else `~/.claude/settings.json`). The agent's own settings (given
//! with `--settings`) would hide it, so it is read here, when the agent starts.
//!
//! Sessions ClawMux did not start get the bridge through `clawmux hooks install`, in the user's own
//! settings: `clawmux-statusline --observe`, chaining the command that was there (`--then`), so that
//! uninstall can put it back exactly. The rules for that command are here too, beside the one that reads it.

use std::path::{Path, PathBuf};

use clawmux_core::layout::STATUS_LINE_PROGRAM;
use clawmux_core::shell::{quote, words};
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

/// The user's own status-line command for an agent working in `work_dir`, if they have one. ClawMux's own
/// bridge is not chained (it would run itself); the observed sessions' bridge gives the command it chains.
pub fn users_command(claude_dir: &Path, work_dir: &Path) -> Option<String> {
    let found = [
        work_dir.join(".claude/settings.local.json"),
        work_dir.join(".claude/settings.json"),
        claude_dir.join("settings.json"),
    ]
    .iter()
    .find_map(|f| command_in(f))?;
    if let Some(chained) = observed_chain(&found) {
        return chained;
    }
    (!found.contains("clawmux statusline")
        && !found.contains("' statusline")
        && !found.contains(STATUS_LINE_PROGRAM))
    .then_some(found)
}

/// The status line's command, quoted for a shell: the program beside `clawmux` when it is installed
/// there (it starts several times faster), else `clawmux statusline`.
pub fn program(clawmux: &Path) -> String {
    let beside = clawmux.with_file_name(STATUS_LINE_PROGRAM);
    if beside.is_file() {
        quote(&beside.to_string_lossy())
    } else {
        format!("{} statusline", quote(&clawmux.to_string_lossy()))
    }
}

/// What marks the observed sessions' bridge.
const OBSERVED: &str = "--observe";

/// The status-line command `clawmux hooks install` sets: the observed sessions' bridge reporting to the hub
/// of `data_dir` (the default one if `None`), chaining `theirs`, the command that was there.
pub fn observed_command(clawmux: &Path, data_dir: Option<&Path>, theirs: Option<&str>) -> String {
    let mut cmd = format!("{} {OBSERVED}", program(clawmux));
    if let Some(dir) = data_dir {
        cmd += &format!(" --data-dir {}", quote(&dir.to_string_lossy()));
    }
    if let Some(theirs) = theirs {
        cmd += &format!(" --then {}", quote(theirs));
    }
    cmd
}

/// If `command` is the observed sessions' bridge (either form): the command it chains, if any.
pub fn observed_chain(command: &str) -> Option<Option<String>> {
    let words = words(command)?;
    let first = words.first()?;
    let flag = if first.ends_with(STATUS_LINE_PROGRAM) {
        1
    } else if first.ends_with("clawmux") && words.get(1).map(String::as_str) == Some("statusline") {
        2
    } else {
        return None;
    };
    if words.get(flag).map(String::as_str) != Some(OBSERVED) {
        return None;
    }
    let then = words.iter().position(|w| w == "--then");
    Some(then.and_then(|i| words.get(i + 1).cloned()))
}

/// The `statusLine` of an agent's settings: the bridge beside `clawmux`, chaining `users` if given.
pub fn setting(clawmux: &Path, users: Option<&str>) -> Value {
    let command = match users {
        Some(users) => format!("{} --then {}", program(clawmux), quote(users)),
        None => program(clawmux),
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
        write(
            home.path().join("settings.json"),
            json!({"statusLine": {"type": "command", "command": "'/usr/bin/clawmux-statusline' --then x"}}),
        );
        assert_eq!(users_command(home.path(), work.path()), None);
    }

    #[test]
    fn the_observed_bridge_gives_back_exactly_the_command_it_chains() {
        let clawmux = Path::new("/opt/my apps/clawmux");
        for theirs in [
            "~/bin/line.sh",
            r#"echo "$(pwd)" 'it'\''s' --then x \ y"#,
            "printf '%s' \"$USER\" | tr a-z A-Z",
        ] {
            let cmd = observed_command(clawmux, Some(Path::new("/d/it's")), Some(theirs));
            assert_eq!(observed_chain(&cmd), Some(Some(theirs.to_owned())), "{cmd}");
        }
        let bare = observed_command(clawmux, None, None);
        assert_eq!(bare, "'/opt/my apps/clawmux' statusline --observe");
        assert_eq!(observed_chain(&bare), Some(None));
        // With the program beside `clawmux`, it is the bridge; both forms are known for what they chain.
        let dir = tempfile::tempdir().unwrap();
        let installed = dir.path().join("clawmux");
        std::fs::write(dir.path().join(STATUS_LINE_PROGRAM), "").unwrap();
        let fast = observed_command(&installed, None, Some("~/bin/line.sh"));
        assert_eq!(
            fast,
            format!(
                "'{}' --observe --then '~/bin/line.sh'",
                dir.path().join(STATUS_LINE_PROGRAM).display()
            )
        );
        assert_eq!(
            observed_chain(&fast),
            Some(Some("~/bin/line.sh".to_owned()))
        );
        // Anything else is not ours.
        for other in [
            "~/bin/line.sh",
            "'/usr/bin/clawmux' statusline",
            "'/usr/bin/clawmux' statusline --observe --then 'unterminated",
            "echo statusline --observe",
            "/usr/bin/clawmux-statusline --then x",
            "/usr/bin/clawmux-statusline statusline --observe",
        ] {
            assert_eq!(observed_chain(other), None, "{other}");
        }
        // An agent's bridge chains the user's command, not the observed bridge around it.
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let file = home.path().join("settings.json");
        let set = |cmd: &str| {
            std::fs::write(
                &file,
                json!({"statusLine": {"type": "command", "command": cmd}}).to_string(),
            )
            .unwrap();
        };
        set(&observed_command(clawmux, None, Some("~/bin/line.sh")));
        assert_eq!(
            users_command(home.path(), work.path()).as_deref(),
            Some("~/bin/line.sh")
        );
        set(&observed_command(clawmux, None, None));
        assert_eq!(users_command(home.path(), work.path()), None);
    }

    #[test]
    fn the_setting_chains_the_users_command_quoted() {
        let plain = setting(Path::new("/bin/clawmux"), None);
        assert_eq!(plain["command"], "'/bin/clawmux' statusline");
        let chained = setting(Path::new("/bin/clawmux"), Some("echo 'hi' $USER"));
        assert_eq!(
            chained["command"],
            r#"'/bin/clawmux' statusline --then 'echo '\''hi'\'' $USER'"#
        );
        assert_eq!(chained["type"], "command");
        // The program beside `clawmux`, where it is installed.
        let dir = tempfile::tempdir().unwrap();
        let fast = dir.path().join(STATUS_LINE_PROGRAM);
        std::fs::write(&fast, "").unwrap();
        let line = setting(&dir.path().join("clawmux"), Some("x"));
        assert_eq!(line["command"], format!("'{}' --then 'x'", fast.display()));
    }
}
