//! The commands of what agents ask of the user: the answer, why the indicator says what it says, a notice's
//! "needs you" dismissed, and the case file of a wrong one.

use clawmux_api::commands::asks::{Dismiss, Explain};

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

impl Handle for Explain {
    async fn handle(self, hub: &Hub) -> Result<clawmux_core::explain::Explanation, HubError> {
        hub.explain().explain(&self.session_id).await
    }
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
