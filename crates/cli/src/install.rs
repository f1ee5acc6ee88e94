//! `clawmux hooks install` / `uninstall`: ClawMux's hooks in the user's own Claude Code settings, so
//! sessions started outside ClawMux show in its sidebar as observed.
//!
//! Install adds one hook group of ours per event and touches nothing else: the user's hooks, their order,
//! every other setting and the file's key order stay as they were. Uninstall removes exactly the entries
//! install added (a command hook running `<clawmux> hook observe`) and the groups and event keys that only
//! held them. A file that is not a JSON object, or whose `hooks` is not one, is refused unchanged. The new
//! file is written beside the old one and renamed over it, so a crash leaves one or the other, never half.
//!
//! The status line is the observed sessions' bridge (`clawmux statusline --observe`), which reports what
//! each session costs and chains the user's own status-line command: install puts the bridge in place of
//! their command and keeps that command in the bridge's own (`--then`), uninstall puts it back exactly (or
//! removes the `statusLine` install added). A `statusLine` that is not a command is left alone.
//!
//! The user's file is theirs to the byte: install keeps a copy of it as it was (`settings.json.before-
//! clawmux`, with the file's own permissions), and uninstall gives that copy back whenever what is left
//! once ours is removed is the same settings (their indent, escapes and final newline with it). Where the
//! user changed something meanwhile, the file is written in its own indent.

use std::path::{Path, PathBuf};

use clawmux_core::shell::quote;
use clawmux_core::HookEvent;
use clawmux_hub::usage::bridge::{observed_chain, observed_command};
use serde_json::{json, Map, Value};

/// The events an observed session reports: those with a rule for observed sessions, that every supported
/// Claude Code knows (the user's settings are read by whichever Claude Code they run, and one older than an
/// event refuses it with a dialog).
fn observed_events() -> impl Iterator<Item = HookEvent> {
    HookEvent::ALL
        .into_iter()
        .filter(|e| e.observed() && e.since().is_none())
}

/// What marks a command hook as ours.
pub(crate) const MARK: &str = " hook observe";

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
pub(crate) fn is_ours(hook: &Value) -> bool {
    hook.get("type").and_then(Value::as_str) == Some("command")
        && hook
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains("clawmux") && c.contains(MARK))
}

/// The command our hooks run.
pub fn hook_command(clawmux: &Path, data_dir: Option<&Path>) -> String {
    let mut cmd = format!("{}{MARK}", quote(&clawmux.to_string_lossy()));
    if let Some(dir) = data_dir {
        cmd.push_str(&format!(" --data-dir {}", quote(&dir.to_string_lossy())));
    }
    cmd
}

pub(crate) fn read(path: &Path) -> Result<Map<String, Value>, String> {
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

/// Where install keeps the user's file as it was.
fn original_copy(path: &Path) -> PathBuf {
    path.with_extension("json.before-clawmux")
}

/// The indent of a JSON text written across lines (that of its first indented line), else two spaces.
fn indent_of(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .find(|i| !i.is_empty())
        .unwrap_or("  ")
        .to_owned()
}

/// `settings` as JSON text, indented as `like` is (the file it replaces), ending as `like` does.
fn text_like(settings: &Map<String, Value>, like: Option<&str>) -> Result<Vec<u8>, String> {
    use serde::Serialize;
    let indent = like.map_or_else(|| "  ".to_owned(), indent_of);
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    settings
        .serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, formatter,
        ))
        .map_err(|e| e.to_string())?;
    if like.is_none_or(|t| t.ends_with('\n')) {
        out.push(b'\n');
    }
    Ok(out)
}

fn write(path: &Path, settings: &Map<String, Value>) -> Result<(), String> {
    let like = std::fs::read_to_string(path).ok();
    write_bytes(path, &text_like(settings, like.as_deref())?)
}

/// Replaces `path` with `text` whole (a temporary file renamed over it, with the old one's permissions).
fn write_bytes(path: &Path, text: &[u8]) -> Result<(), String> {
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

/// Puts the observed sessions' bridge in the status line of `settings`, chaining the user's command;
/// returns false when it was there already, or the status line is not a command.
pub fn install_status_line(
    settings: &mut Map<String, Value>,
    clawmux: &Path,
    data_dir: Option<&Path>,
) -> bool {
    match settings.get_mut("statusLine") {
        None => {
            settings.insert(
                "statusLine".into(),
                json!({"type": "command", "command": observed_command(clawmux, data_dir, None), "padding": 0}),
            );
            true
        }
        Some(Value::Object(line))
            if line.get("type").and_then(Value::as_str) == Some("command") =>
        {
            let Some(theirs) = line.get("command").and_then(Value::as_str) else {
                return false;
            };
            if observed_chain(theirs).is_some() {
                return false;
            }
            let bridge = observed_command(clawmux, data_dir, Some(theirs));
            line.insert("command".into(), json!(bridge));
            true
        }
        Some(_) => false,
    }
}

/// Takes the observed sessions' bridge out of the status line of `settings`: the user's command back, or
/// no status line if there was none. Whether it was there.
pub fn uninstall_status_line(settings: &mut Map<String, Value>) -> bool {
    let chained = settings
        .get("statusLine")
        .and_then(|l| l.get("command"))
        .and_then(Value::as_str)
        .and_then(observed_chain);
    match chained {
        None => false,
        Some(Some(theirs)) => {
            if let Some(line) = settings
                .get_mut("statusLine")
                .and_then(Value::as_object_mut)
            {
                line.insert("command".into(), json!(theirs));
            }
            true
        }
        Some(None) => {
            settings.shift_remove("statusLine");
            true
        }
    }
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
    install_with(&path, &clawmux, data_dir)
}

/// Installs hooks and a status line that run `clawmux` into the settings file at `path`.
fn install_with(path: &Path, clawmux: &Path, data_dir: Option<&Path>) -> Result<(), String> {
    let (path, clawmux) = (path.to_owned(), clawmux.to_owned());
    let mut doc = read(&path)?;
    let hooks = install_into(&mut doc, &hook_command(&clawmux, data_dir), &path)?;
    if install_status_line(&mut doc, &clawmux, data_dir) | hooks {
        let copy = original_copy(&path);
        if !copy.exists() {
            if let Ok(bytes) = std::fs::read(&path) {
                write_bytes(&copy, &bytes)?;
            }
        }
        write(&path, &doc)?;
        println!(
            "ClawMux's hooks and status line are in {}. Claude Code sessions started from now on show in ClawMux as observed, with what they cost (your own status line still prints).",
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
    let line = uninstall_status_line(&mut doc);
    let copy = original_copy(&path);
    if removed > 0 || line {
        // The user's own bytes, when nothing but ours changed since install.
        let original = std::fs::read(&copy).ok().filter(|bytes| {
            serde_json::from_slice::<Value>(bytes).ok() == Some(Value::Object(doc.clone()))
        });
        match original {
            Some(bytes) => write_bytes(&path, &bytes)?,
            None => write(&path, &doc)?,
        }
    }
    let _ = std::fs::remove_file(&copy);
    println!("Removed {removed} ClawMux hook(s) from {}.", path.display());
    Ok(())
}

#[cfg(test)]
mod tests;
