//! Claude Code's folder trust. In a folder it has not been trusted with, Claude Code opens a dialog at
//! start whose default is "No, exit": an agent spawned there would sit in STARTING behind it. So the hub
//! asks first: a spawn in an untrusted folder is refused with `folder_not_trusted`, and the user's yes
//! (`trust_folder` in the spawn) is written where Claude Code keeps it (`projects.<folder>.
//! hasTrustDialogAccepted` in its `.claude.json`) before the agent starts.
//!
//! Claude Code rewrites that file itself; the hub changes only that one key, in a copy renamed over the
//! file, keeping everything else as it was.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Claude Code's own settings file: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`.
pub fn config_file() -> PathBuf {
    match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join(".claude.json"),
        None => std::env::var_os("HOME")
            .map_or_else(|| PathBuf::from("/"), PathBuf::from)
            .join(".claude.json"),
    }
}

/// Whether Claude Code trusts `folder`: it was accepted. (Only the folder itself counts: an agent started
/// where Claude Code would still ask would sit behind the dialog.)
pub fn trusted(config: &Path, folder: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(config) else {
        return false;
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    doc["projects"][folder.to_string_lossy().as_ref()]["hasTrustDialogAccepted"]
        == Value::Bool(true)
}

/// Records that the user trusts `folder`, as Claude Code's dialog would.
pub fn trust(config: &Path, folder: &Path) -> std::io::Result<()> {
    let bad = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidData, why);
    let mut doc: Map<String, Value> = match std::fs::read_to_string(config) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| bad(format!("{} is not JSON: {e}", config.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(e),
    };
    let projects = doc
        .entry("projects")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(projects) = projects.as_object_mut() else {
        return Err(bad(format!(
            "`projects` in {} is not an object",
            config.display()
        )));
    };
    let project = projects
        .entry(folder.to_string_lossy().into_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(project) = project.as_object_mut() else {
        return Err(bad(format!(
            "the entry of {} is not an object",
            folder.display()
        )));
    };
    project.insert("hasTrustDialogAccepted".into(), Value::Bool(true));
    let text = serde_json::to_string_pretty(&doc).map_err(|e| bad(e.to_string()))?;
    let tmp = config.with_extension("json.clawmux-tmp");
    std::fs::write(&tmp, text)?;
    // Its mode as it was (Claude Code's own file), else private.
    let mode = std::fs::metadata(config).map_or(0o600, |m| {
        std::os::unix::fs::PermissionsExt::mode(&m.permissions())
    });
    std::fs::set_permissions(&tmp, std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    std::fs::rename(&tmp, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_read_for_the_folder_and_written_beside_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".claude.json");
        let work = Path::new("/home/u/code/app");
        assert!(!trusted(&config, work), "no file, no trust");
        std::fs::write(
            &config,
            r#"{"theme":"dark","projects":{"/home/u/other":{"hasTrustDialogAccepted":true,"allowedTools":["x"]}}}"#,
        )
        .unwrap();
        assert!(!trusted(&config, work));
        trust(&config, work).unwrap();
        assert!(trusted(&config, work));
        assert!(
            !trusted(&config, &work.join("sub")),
            "only the folder itself"
        );
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
        assert_eq!(doc["theme"], "dark");
        assert_eq!(doc["projects"]["/home/u/other"]["allowedTools"][0], "x");
        std::fs::write(&config, "not json").unwrap();
        assert!(
            trust(&config, work).is_err(),
            "a file it cannot read is left alone"
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "not json");
    }
}
