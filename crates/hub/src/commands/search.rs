//! The commands of search: messages found by their words, and whether the user's own Claude Code sessions
//! are searched too.

use serde::{Deserialize, Serialize};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::search::{SearchReply, SearchRequest};

impl Handle for SearchRequest {
    async fn handle(self, hub: &Hub) -> Result<SearchReply, HubError> {
        hub.search().find(&self).await
    }
}

/// Whether the user's own Claude Code sessions (`~/.claude/projects`) are searched too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSessions {
    /// On or off (off forgets what was read of them).
    pub on: bool,
}

impl Handle for SearchSessions {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.search().set_sessions(self.on).await?;
        Ok(Done {})
    }
}
