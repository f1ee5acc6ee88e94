//! The commands of usage: every agent's figures and the account's limits, and whether an agent is
//! continued when its limit resets.

use clawmux_api::commands::usage::{Usage, UsageContinue};

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;
use crate::usage::UsageReply;

impl Handle for Usage {
    async fn handle(self, hub: &Hub) -> Result<UsageReply, HubError> {
        hub.usage().summary(self.days, self.offset_minutes).await
    }
}

impl Handle for UsageContinue {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.usage().set_continue(&self.session_id, self.on).await?;
        Ok(Done {})
    }
}
