//! A hand-over: an agent's work given to another. The new owner receives one message the hub writes from
//! what it holds (no model asked: `clawmux_core::handover`): the first agent's branch and what it changed,
//! the board's items it held (now the new owner's), and its conversation's last words. When the user hands
//! the work over, the first agent is told to stop or take something else; when the agent does, it knows.

use clawmux_api::commands::board::HandedOver;
use clawmux_core::board::{Actor, Move, Task, TaskState};
use clawmux_core::changes::Changes;
use clawmux_core::handover::{summary, Handed, LAST_MESSAGES};
use clawmux_core::wire::{Code, Kind, Message};
use clawmux_store::TaskFilter;

use super::Board;
use crate::error::HubError;

impl Board {
    /// `by` hands `from`'s work to `to`.
    pub async fn hand_over(
        &self,
        from: &str,
        to: &str,
        by: Actor<'_>,
    ) -> Result<HandedOver, HubError> {
        if from == to {
            return Err(HubError::new(
                Code::ToItself,
                format!("{from}'s work is {from}'s already: name another agent"),
            ));
        }
        self.states.live(from)?;
        self.states.live(to)?;
        let changes = self.changes_of(from).await?;
        let items = self.give_items(from, to).await?;
        let last = self.last_words(from).await?;
        let text = summary(&Handed {
            from,
            changes: changes.as_ref(),
            items: &items,
            last: &last,
        });
        let sender = match by {
            Actor::User => "user",
            Actor::Agent(a) => a,
        };
        let message = self.message(sender, to, &text).await?;
        if by == Actor::User {
            self.message(
                "user",
                from,
                &format!(
                    "I handed your work to {to}: stop working on it. Take something else from the board \
                     (`clawmux task list --state open`), or run `clawmux wait`."
                ),
            )
            .await?;
        }
        Ok(HandedOver {
            message,
            items: items.iter().map(|t| t.id).collect(),
            branch: changes.map(|c| c.branch),
        })
    }

    /// `agent`'s branch and what it changed, when it works in a worktree. A hand-over goes without them
    /// when git fails (the branch is still on the board's items).
    async fn changes_of(&self, agent: &str) -> Result<Option<Changes>, HubError> {
        if self.worktrees.branch_of(agent).await?.is_none() {
            return Ok(None);
        }
        match self.worktrees.changes(agent).await {
            Ok(reply) => Ok(Some(reply.changes)),
            Err(e) => {
                tracing::warn!(agent, error = %e, "a hand-over without the changes");
                Ok(None)
            }
        }
    }

    /// The last words said in `agent`'s conversation, oldest first.
    async fn last_words(&self, agent: &str) -> Result<Vec<Message>, HubError> {
        let said: Vec<Message> = self
            .store()
            .latest(agent, LAST_MESSAGES * 5)
            .await?
            .into_iter()
            .filter(|m| matches!(m.kind, Kind::User | Kind::Assistant | Kind::Agent))
            .collect();
        Ok(said[said.len().saturating_sub(LAST_MESSAGES as usize)..].to_vec())
    }

    /// The items `from` holds (taken or in review), given to `to` with `to`'s branch.
    async fn give_items(&self, from: &str, to: &str) -> Result<Vec<Task>, HubError> {
        let held = self
            .store()
            .tasks(&TaskFilter {
                owner: Some(from.to_owned()),
                limit: super::MAX_LIST,
                ..TaskFilter::default()
            })
            .await?;
        let branch = self.worktrees.branch_of(to).await?;
        let mut given = Vec::new();
        for task in held
            .into_iter()
            .filter(|t| matches!(t.state, TaskState::Taken | TaskState::InReview))
        {
            let moved = self
                .store()
                .move_task(
                    task.id,
                    Actor::User,
                    &Move::Assign { to: to.to_owned() },
                    branch.as_deref(),
                    crate::clock::now(),
                )
                .await
                .map_err(super::move_error)?;
            self.told(&moved);
            given.push(moved);
        }
        Ok(given)
    }
}
