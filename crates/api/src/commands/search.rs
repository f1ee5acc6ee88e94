//! Search's command beside the search itself (`search::SearchRequest`): whether the user's own Claude
//! Code sessions are searched too.

use serde::{Deserialize, Serialize};

/// Whether the user's own Claude Code sessions (`~/.claude/projects`) are searched too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSessions {
    /// On or off (off forgets what was read of them).
    pub on: bool,
}
