//! Observed sessions: Claude Code sessions the hub did not start, reported by hooks that
//! `clawmux hooks install` added to the user's own settings.
//!
//! Such a session is keyed by Claude's `session_id`. The first hook of a new session registers it as an
//! observed agent, named after its folder and the start of its id (`myapp-1a2b3c4d`); later hooks step its
//! machine like any agent's, with the observed table (its turns are read from UserPromptSubmit and Stop, as
//! it never runs `clawmux wait`). Nobody can chat with it or start and end it from ClawMux: the sidebar
//! labels it "observed".
//!
//! This file holds the rules (what an observed hook must carry, the name a session gets), unit-tested;
//! `hooks.rs` receives the hooks and registers the session.

use clawmux_core::wire::Code;
use serde_json::Value;

use crate::error::HubError;

/// The name an observed session gets: its folder's name (made an identifier, at most 23 characters), a dash
/// and the first 8 characters of its session id.
pub(crate) fn observed_name(cwd: &str, session_id: &str) -> String {
    let base = std::path::Path::new(cwd)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("session");
    let mut name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(23)
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        name.insert(0, 's');
        name.truncate(23);
    }
    let id: String = session_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .collect();
    format!("{name}-{id}")
}

pub use clawmux_core::layout::session_id_ok;

/// Who an observed hook is from: its session's id (letters, digits, - and _) and its absolute folder.
pub(crate) fn identity(payload: Option<&Value>) -> Result<(&str, &str), HubError> {
    let text = |field: &str| payload?.get(field)?.as_str();
    let session_id = text("session_id")
        .filter(|s| session_id_ok(s))
        .ok_or_else(|| {
            HubError::new(
                Code::MalformedEvent,
                "an observed hook needs a `session_id` (letters, digits, - and _)",
            )
        })?;
    let cwd = text("cwd").filter(|c| c.starts_with('/')).ok_or_else(|| {
        HubError::new(
            Code::MalformedEvent,
            "an observed hook needs an absolute `cwd`",
        )
    })?;
    Ok((session_id, cwd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_agent_names() {
        for (cwd, id) in [
            ("/home/u/my app", "1a2b3c4d-5e6f"),
            ("/", "x"),
            ("/home/u/.hidden", "abc"),
            (
                "/home/u/ünïcode-and-a-very-long-folder-name",
                "0123456789abcdef",
            ),
        ] {
            let name = observed_name(cwd, id);
            assert!(
                clawmux_core::wire::check_agent_name(&name).is_ok(),
                "{cwd}: {name}"
            );
        }
        assert_eq!(
            observed_name("/home/u/app", "1a2b3c4d-5e6f"),
            "app-1a2b3c4d"
        );
    }
}
