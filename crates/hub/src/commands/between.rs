//! The commands of what passes between agents: the threads, one thread with each message's delivery, and
//! a thread the user closes or reopens; and another machine's hub carrying its agents' messages here and
//! taking their answers. The feature carries them out (`crate::between`).

use clawmux_api::commands::between::{
    CloseThread, ForMachine, FromMachine, ReopenThread, Thread, ThreadReply, Threads, THREAD_PAGE,
};
use clawmux_api::commands::Sent;
use clawmux_core::between::{Passed, ThreadSummary};
use clawmux_core::wire::MessageOut;

use super::{Done, Handle};
use crate::error::HubError;
use crate::hub::Hub;

impl Handle for Threads {
    async fn handle(self, hub: &Hub) -> Result<Vec<ThreadSummary>, HubError> {
        hub.between().threads().await
    }
}

impl Handle for Thread {
    async fn handle(self, hub: &Hub) -> Result<Vec<Passed>, HubError> {
        hub.between()
            .thread(&self.a, &self.b, self.limit.unwrap_or(THREAD_PAGE))
            .await
    }
}

impl Handle for CloseThread {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.between().close(&self.a, &self.b, "user").await?;
        Ok(Done {})
    }
}

impl Handle for ReopenThread {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.between().reopen(&self.a, &self.b).await?;
        Ok(Done {})
    }
}

impl Handle for FromMachine {
    async fn handle(self, hub: &Hub) -> Result<Sent, HubError> {
        hub.between().arrive(self).await
    }
}

impl Handle for ForMachine {
    async fn handle(self, hub: &Hub) -> Result<Vec<MessageOut>, HubError> {
        let answers = hub
            .between()
            .answers_for(&self.machine, self.after.as_deref())
            .await?;
        Ok(answers.iter().map(MessageOut::from).collect())
    }
}

impl Handle for ThreadReply {
    async fn handle(self, hub: &Hub) -> Result<Sent, HubError> {
        let m = hub
            .between()
            .user_reply(&self.to, &self.re, &self.text, &self.client_id)
            .await?;
        Ok(Sent {
            id: m.id,
            seq: m.seq,
            note: None,
        })
    }
}
