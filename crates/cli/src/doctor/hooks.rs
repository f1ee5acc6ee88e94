//! The hooks `clawmux hooks install` put in the user's own Claude Code settings (observed sessions): there
//! or not, and whether they run this `clawmux`.

use serde_json::Value;

use super::{check, Check, Status};
use crate::install::{default_settings, is_ours, read, MARK};

/// The commands of ClawMux's hooks in `settings`, one per hook entry.
fn our_commands(settings: &serde_json::Map<String, Value>) -> Vec<String> {
    let Some(Value::Object(events)) = settings.get("hooks") else {
        return Vec::new();
    };
    events
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|matcher| matcher.get("hooks")?.as_array())
        .flatten()
        .filter(|h| is_ours(h))
        .filter_map(|h| h.get("command")?.as_str().map(str::to_owned))
        .collect()
}

pub(super) fn hooks() -> Check {
    let path = match default_settings() {
        Ok(p) => p,
        Err(e) => return check("hooks", Status::Skip, e),
    };
    let settings = match read(&path) {
        Ok(s) => s,
        Err(e) => {
            return check("hooks", Status::Fail, e)
                .fix(format!("make {} valid JSON again", path.display()))
        }
    };
    let commands = our_commands(&settings);
    if commands.is_empty() {
        return check(
            "hooks",
            Status::Ok,
            format!(
                "none in {}: only the agents ClawMux starts are shown",
                path.display()
            ),
        )
        .fix("`clawmux hooks install` shows the Claude Code sessions you start yourself too");
    }
    let this = std::env::current_exe()
        .map(|p| clawmux_core::shell::quote(&p.to_string_lossy()))
        .unwrap_or_default();
    let elsewhere: Vec<&String> = commands
        .iter()
        .filter(|c| !c.starts_with(&format!("{this}{MARK}")))
        .collect();
    match elsewhere.first() {
        None => check(
            "hooks",
            Status::Ok,
            format!(
                "{} in {}, running this clawmux",
                commands.len(),
                path.display()
            ),
        ),
        Some(other) => check(
            "hooks",
            Status::Warn,
            format!(
                "{} of {} in {} run another clawmux: {}",
                elsewhere.len(),
                commands.len(),
                path.display(),
                clawmux_core::printable::one_line(other, 120)
            ),
        )
        .fix("clawmux hooks install (it replaces ClawMux's hooks with this clawmux's)"),
    }
}
