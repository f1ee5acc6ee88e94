//! `clawmux hooks install` / `uninstall`: ClawMux's hooks in the user's own Claude Code settings, so
//! sessions started outside ClawMux show in its sidebar as observed.
//!
//! Install adds one hook group of ours per event and touches nothing else: the user's hooks, their order,
//! every other setting and the file's key order stay as they were. Uninstall removes exactly the entries
//! install added (a command hook running `<clawmux> hook observe`) and the groups and event keys that only
//! held them. A file that is not a JSON object, or whose `hooks` is not one, is refused unchanged. The new
//! file is written beside the old one and renamed over it, so a crash leaves one or the other, never half.

use std::path::{Path, PathBuf};

use clawmux_core::HookEvent;
use serde_json::{json, Map, Value};

/// The events an observed session reports: those with a rule for observed sessions.
fn observed_events() -> impl Iterator<Item = HookEvent> {
    HookEvent::ALL.into_iter().filter(|e| e.observed())
}

/// What marks a command hook as ours.
const MARK: &str = " hook observe";

/// The user's Claude Code settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`.
pub fn default_settings() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("settings.json"));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".claude").join("settings.json"))
        .ok_or_else(|| "HOME is not set: name the settings file with --settings".to_owned())
}

/// Whether a hook entry is one install added.
fn is_ours(hook: &Value) -> bool {
    hook.get("type").and_then(Value::as_str) == Some("command")
        && hook
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains("clawmux") && c.contains(MARK))
}

/// Quotes a word for the shell Claude Code runs command hooks in.
fn shell_word(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The command our hooks run.
pub fn hook_command(clawmux: &Path, data_dir: Option<&Path>) -> String {
    let mut cmd = format!("{}{MARK}", shell_word(&clawmux.to_string_lossy()));
    if let Some(dir) = data_dir {
        cmd.push_str(&format!(
            " --data-dir {}",
            shell_word(&dir.to_string_lossy())
        ));
    }
    cmd
}

fn read(path: &Path) -> Result<Map<String, Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(format!(
            "{} is not a JSON object; left unchanged",
            path.display()
        )),
        Err(e) => Err(format!(
            "{} is not valid JSON ({e}); left unchanged",
            path.display()
        )),
    }
}

fn write(path: &Path, settings: &Map<String, Value>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(settings).map_err(|e| e.to_string())? + "\n";
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension("json.clawmux-tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| {
            if let Ok(meta) = std::fs::metadata(path) {
                std::fs::set_permissions(&tmp, meta.permissions())?;
            }
            std::fs::rename(&tmp, path)
        })
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {}: {e}", path.display())
        })
}

fn hooks_mut<'a>(
    settings: &'a mut Map<String, Value>,
    path: &Path,
) -> Result<&'a mut Map<String, Value>, String> {
    settings
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| {
            format!(
                "`hooks` in {} is not an object; left unchanged",
                path.display()
            )
        })
}

/// Adds our hooks to `settings`; returns false when they were all there already.
pub fn install_into(
    settings: &mut Map<String, Value>,
    command: &str,
    path: &Path,
) -> Result<bool, String> {
    let hooks = hooks_mut(settings, path)?;
    let mut added = false;
    for event in observed_events() {
        let groups = hooks.entry(event.name()).or_insert_with(|| json!([]));
        let Some(groups) = groups.as_array_mut() else {
            return Err(format!(
                "`hooks.{event}` in {} is not a list; left unchanged",
                path.display()
            ));
        };
        let present = groups.iter().any(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(is_ours))
        });
        if present {
            continue;
        }
        let mut group = Map::new();
        if event.takes_matcher() {
            group.insert("matcher".into(), json!("*"));
        }
        group.insert(
            "hooks".into(),
            json!([{ "type": "command", "command": command, "timeout": 5 }]),
        );
        groups.push(Value::Object(group));
        added = true;
    }
    Ok(added)
}

/// Removes our hooks from `settings`; returns how many entries were removed.
pub fn uninstall_from(settings: &mut Map<String, Value>, path: &Path) -> Result<usize, String> {
    if !settings.contains_key("hooks") {
        return Ok(0);
    }
    let hooks = hooks_mut(settings, path)?;
    let mut removed = 0;
    for (_, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        groups.retain_mut(|g| {
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = hs.len();
            hs.retain(|h| !is_ours(h));
            removed += before - hs.len();
            !(hs.is_empty() && before > 0)
        });
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    if hooks.is_empty() {
        settings.shift_remove("hooks");
    }
    Ok(removed)
}

/// `clawmux hooks install`.
pub fn install(settings: Option<&Path>, data_dir: Option<&Path>) -> Result<(), String> {
    let path = match settings {
        Some(p) => p.to_owned(),
        None => default_settings()?,
    };
    let clawmux = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut doc = read(&path)?;
    if install_into(&mut doc, &hook_command(&clawmux, data_dir), &path)? {
        write(&path, &doc)?;
        println!(
            "ClawMux's hooks are in {}. Claude Code sessions started from now on show in ClawMux as observed.",
            path.display()
        );
    } else {
        println!("ClawMux's hooks were already in {}.", path.display());
    }
    Ok(())
}

/// `clawmux hooks uninstall`.
pub fn uninstall(settings: Option<&Path>) -> Result<(), String> {
    let path = match settings {
        Some(p) => p.to_owned(),
        None => default_settings()?,
    };
    let mut doc = read(&path)?;
    let removed = uninstall_from(&mut doc, &path)?;
    if removed > 0 {
        write(&path, &doc)?;
    }
    println!("Removed {removed} ClawMux hook(s) from {}.", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_keeps_everything_of_the_user_and_uninstall_removes_exactly_ours() {
        let user = r#"{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/usr/bin/audit"}]}],"Notification":[{"hooks":[{"type":"command","command":"notify-send hi"}]}]},"permissions":{"allow":["Bash(ls)"]}}"#;
        let original: Map<String, Value> = serde_json::from_str(user).unwrap();
        let mut doc = original.clone();
        let p = Path::new("/x/settings.json");
        let cmd = hook_command(Path::new("/opt/clawmux"), Some(Path::new("/d")));
        assert!(install_into(&mut doc, &cmd, p).unwrap());
        assert!(
            !install_into(&mut doc, &cmd, p).unwrap(),
            "installing twice adds nothing"
        );
        assert_eq!(
            doc.keys().collect::<Vec<_>>(),
            ["model", "hooks", "permissions"],
            "the file's keys keep their order"
        );
        let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0]["hooks"][0]["command"], "/usr/bin/audit");
        assert_eq!(pre[1]["matcher"], "*");
        assert_eq!(doc["hooks"]["Stop"][0].get("matcher"), None);
        // Every event with a rule for observed sessions is subscribed, and no event without one.
        let ours = |event: &str| {
            doc["hooks"]
                .get(event)
                .and_then(Value::as_array)
                .is_some_and(|gs| {
                    gs.iter()
                        .any(|g| g["hooks"].as_array().unwrap().iter().any(is_ours))
                })
        };
        for event in HookEvent::ALL {
            assert_eq!(ours(event.name()), event.observed(), "{event}");
        }
        assert_eq!(
            uninstall_from(&mut doc, p).unwrap(),
            observed_events().count()
        );
        assert_eq!(doc, original);
        assert_eq!(uninstall_from(&mut doc, p).unwrap(), 0);
    }

    #[test]
    fn refuses_what_it_cannot_edit() {
        let p = Path::new("/x/settings.json");
        let mut bad: Map<String, Value> = serde_json::from_str(r#"{"hooks":[1]}"#).unwrap();
        assert!(install_into(&mut bad, "c", p).is_err());
        let mut bad: Map<String, Value> = serde_json::from_str(r#"{"hooks":{"Stop":3}}"#).unwrap();
        assert!(install_into(&mut bad, "c", p).is_err());
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
