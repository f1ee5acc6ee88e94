//! The choices of how Claude Code runs that the user makes and the hub passes on as its flags: the
//! permission mode (`--permission-mode`), the effort (`--effort`), the model (`--model`, a name checked
//! before it reaches a command line). Typed here, so nothing else reaches Claude Code's command line.

pub use clawmux_api::flags::{Effort, PermissionMode, PlanMode};

/// A model name as Claude Code takes it (`opus`, `sonnet`, `claude-sonnet-4-5`, `opus[1m]`): letters,
/// digits, `.`, `-`, `_`, `[`, `]`, 64 at most. Anything else is refused before it reaches a command line.
pub fn check_model(model: &str) -> Result<(), crate::error::HubError> {
    let fine = !model.is_empty()
        && model.len() <= 64
        && !model.starts_with('-')
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']'));
    if fine {
        Ok(())
    } else {
        Err(crate::error::HubError::new(
            clawmux_core::wire::Code::BadModel,
            format!("`{model}` is not a model name Claude Code takes"),
        ))
    }
}
