//! The commands of the shared board, as the user moves it from the window or the phone. The feature
//! carries them out (`crate::board`).

use clawmux_api::commands::board::{Board, HandOver, HandedOver, TaskAdd, TaskMove, BOARD_PAGE};
use clawmux_core::board::{Actor, Task};
use clawmux_store::TaskFilter;

use super::Handle;
use crate::error::HubError;
use crate::hub::Hub;

impl Handle for Board {
    async fn handle(self, hub: &Hub) -> Result<Vec<Task>, HubError> {
        hub.board()
            .list(TaskFilter {
                state: self.state,
                owner: self.owner,
                text: self.text,
                limit: self.limit.unwrap_or(BOARD_PAGE),
            })
            .await
    }
}

impl Handle for TaskAdd {
    async fn handle(self, hub: &Hub) -> Result<Task, HubError> {
        hub.board().add("user", &self.title, &self.body).await
    }
}

impl Handle for TaskMove {
    async fn handle(self, hub: &Hub) -> Result<Task, HubError> {
        hub.board().act(self.id, Actor::User, &self.what).await
    }
}

impl Handle for HandOver {
    async fn handle(self, hub: &Hub) -> Result<HandedOver, HubError> {
        hub.board()
            .hand_over(&self.from, &self.to, Actor::User)
            .await
    }
}
