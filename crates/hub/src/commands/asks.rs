//! The commands of what agents ask of the user: the answer, why the indicator says what it says, a notice's
//! "needs you" dismissed, and the case file of a wrong one.

use serde::{Deserialize, Serialize};

use super::{Done, Handle};
use crate::asks::AnswerRequest;
use crate::error::HubError;
use crate::explain::{Report, ReportRequest};
use crate::hub::Hub;

impl Handle for AnswerRequest {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.requests().answer(self).await?;
        Ok(Done {})
    }
}

/// Why the agent's indicator says what it says (`clawmux explain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explain {
    /// The agent.
    pub session_id: String,
}

impl Handle for Explain {
    async fn handle(self, hub: &Hub) -> Result<clawmux_core::explain::Explanation, HubError> {
        hub.explain().explain(&self.session_id).await
    }
}

/// Dismisses a "needs you" that only a notice raised (no later hook would close it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dismiss {
    /// The agent.
    pub session_id: String,
}

impl Handle for Dismiss {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.dismiss(&self.session_id, clawmux_core::Source::Ui)
            .await?;
        Ok(Done {})
    }
}

impl Handle for ReportRequest {
    async fn handle(self, hub: &Hub) -> Result<Report, HubError> {
        hub.explain().report(self).await
    }
}
