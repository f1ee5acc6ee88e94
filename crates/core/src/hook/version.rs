//! Which Claude Code knows which hook event. A settings file naming an event its Claude Code does not know
//! is refused in part ("Unknown hook event ... was ignored"), with a dialog in an interactive session: an
//! agent's terminal, or the user's own sessions, would stop on it. So an event newer than the oldest
//! supported version is subscribed to only where the Claude Code that reads the settings says (its
//! `--version`) it knows it, and nowhere when it does not say.

use super::HookEvent;

/// A Claude Code version, `x.y.z`.
pub type Version = [u32; 3];

/// The oldest Claude Code ClawMux supports: the version the tests that run the real CLI keep running.
pub const OLDEST: Version = [2, 1, 330];

/// The `x.y.z` at the start of Claude Code's `--version` (`2.1.332 (Claude Code)`).
pub fn parse(said: &str) -> Option<Version> {
    let word = said.split_whitespace().next()?;
    let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
    let v = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(v)
}

impl HookEvent {
    /// The first Claude Code that fires it, when that is newer than [`OLDEST`].
    pub fn since(self) -> Option<Version> {
        match self {
            HookEvent::PreSkillShellCommand => Some([2, 1, 332]),
            HookEvent::SessionStart
            | HookEvent::UserPromptSubmit
            | HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::PreCompact
            | HookEvent::Notification
            | HookEvent::Stop
            | HookEvent::StopFailure
            | HookEvent::SessionEnd => None,
        }
    }

    /// Whether the Claude Code of `version` (none: it did not say) knows it.
    pub fn known_by(self, version: Option<Version>) -> bool {
        match self.since() {
            None => true,
            Some(since) => version.is_some_and(|v| v >= since),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_read_from_what_claude_code_says() {
        assert_eq!(parse("2.1.330 (Claude Code)"), Some([2, 1, 330]));
        assert_eq!(parse("2.1.332"), Some([2, 1, 332]));
        for not_a_version in ["", "claude", "2.1", "2.1.x", "2.1.3.4", "v2.1.330"] {
            assert_eq!(parse(not_a_version), None, "{not_a_version}");
        }
    }

    #[test]
    fn a_newer_event_is_known_only_by_a_claude_code_that_says_so() {
        let skill = HookEvent::PreSkillShellCommand;
        assert!(!skill.known_by(None));
        assert!(!skill.known_by(Some(OLDEST)));
        assert!(!skill.known_by(Some([2, 1, 331])));
        assert!(skill.known_by(Some([2, 1, 332])));
        assert!(skill.known_by(Some([3, 0, 0])));
        for event in HookEvent::ALL {
            if event.since().is_none() {
                assert!(event.known_by(None), "{event}");
            }
            assert!(event.since().is_none_or(|since| since > OLDEST), "{event}");
        }
    }
}
