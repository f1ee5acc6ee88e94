//! The commands of search: messages found by their words, and whether the user's own Claude Code sessions
//! are searched too.

use clawmux_api::commands::search::SearchSessions;

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::search::{SearchReply, SearchRequest};

impl Handle for SearchRequest {
    async fn handle(self, hub: &Hub) -> Result<SearchReply, HubError> {
        hub.search().find(&self).await
    }
}

impl Handle for SearchSessions {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.search().set_sessions(self.on).await?;
        Ok(Done {})
    }
}
