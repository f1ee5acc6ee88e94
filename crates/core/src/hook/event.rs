//! The hook events ClawMux subscribes to: one list, which the parser, the agents' settings and `clawmux
//! hooks install` all read.

/// The hook events ClawMux has a rule for: the only ones the parser reads, and the only ones the agents'
/// settings and `clawmux hooks install` subscribe to. A subscribed event without a rule would be stored
/// and decided "no rule" on every occurrence for nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// A session began or resumed.
    SessionStart,
    /// A prompt reached Claude.
    UserPromptSubmit,
    /// A tool is about to run.
    PreToolUse,
    /// Claude Code asks the user's permission for a tool.
    PermissionRequest,
    /// A tool ran.
    PostToolUse,
    /// A tool failed.
    PostToolUseFailure,
    /// Compaction begins.
    PreCompact,
    /// Claude Code shows the user a notice.
    Notification,
    /// Claude wants to stop (the hook that may keep it going).
    Stop,
    /// A turn ended on an API error.
    StopFailure,
    /// The session ended.
    SessionEnd,
    /// A skill or command is about to run a shell command of its text (Claude Code 2.1.332 and later:
    /// `version.rs`).
    PreSkillShellCommand,
}

impl HookEvent {
    /// Every event with a rule.
    pub const ALL: [HookEvent; 12] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PermissionRequest,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PreCompact,
        HookEvent::Notification,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::SessionEnd,
        HookEvent::PreSkillShellCommand,
    ];

    /// The `hook_event_name` and settings key.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
            HookEvent::Stop => "Stop",
            HookEvent::StopFailure => "StopFailure",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreSkillShellCommand => "PreSkillShellCommand",
        }
    }

    /// The event of a `hook_event_name`, if ClawMux has a rule for it.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether its hooks are chosen by tool name (a `matcher`).
    pub fn takes_matcher(self) -> bool {
        matches!(
            self,
            HookEvent::PreToolUse
                | HookEvent::PermissionRequest
                | HookEvent::PostToolUse
                | HookEvent::PostToolUseFailure
                | HookEvent::PreSkillShellCommand
        )
    }

    /// Whether an observed session (one ClawMux did not start) has a rule for it: a notice changes
    /// nothing an observer shows.
    pub fn observed(self) -> bool {
        self != HookEvent::Notification
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
