//! The shared board: items the agents and the user work from (`clawmux task` for agents, the window's
//! board, the phone). Taking is exclusive (the store applies `clawmux_core::board::apply` inside its write
//! transaction); an item taken in a worktree keeps the taker's branch; an item the user gives to an agent
//! reaches that agent as the user's message; an item done tells those waiting on it (its creator, and the
//! agents that watch it) as a message from whoever finished it. Every change is told to the window. An
//! agent's work is handed to another with its items (`handover.rs`).

use clawmux_core::board::{Actor, Move, Task, MAX_BODY, MAX_TITLE};
use clawmux_core::wire::{Code, Kind, MsgId};
use clawmux_store::{MoveError, NewMessage, NewTask, Store, TaskFilter};

use crate::clock::now;
use crate::error::HubError;
use crate::inbox::Inbox;
use crate::states::States;
use crate::ui_event::UiEvent;
use crate::worktree::Worktrees;

mod handover;
#[cfg(test)]
mod tests;

/// The most items one list answers.
pub const MAX_LIST: i64 = 10_000;

/// The board. Made once with the agents' states (to append a message and tell the window), their inboxes
/// (to hand one over) and the worktrees (a taker's branch); a cheap clone.
#[derive(Clone)]
pub struct Board {
    states: States,
    inbox: Inbox,
    worktrees: Worktrees,
}

impl Board {
    pub(crate) fn new(states: States, inbox: Inbox, worktrees: Worktrees) -> Board {
        Board {
            states,
            inbox,
            worktrees,
        }
    }

    /// The board over a states fixture's store, with worktrees in its folder: what the features that name
    /// the board are tested with.
    #[cfg(test)]
    pub(crate) fn for_tests(f: &crate::states::fixture::Fixture) -> Board {
        Board::new(
            f.states.clone(),
            Inbox::new(f.states.clone()),
            Worktrees::new(
                f.states.store().clone(),
                f.states.agents().clone(),
                f.dir.path().to_owned(),
                tokio::sync::broadcast::channel(4).0,
                crate::tasks::Tasks::default(),
            ),
        )
    }

    fn store(&self) -> &Store {
        self.states.store()
    }

    /// Adds an item, open and nobody's, by `creator` (an agent, or `user`).
    pub async fn add(&self, creator: &str, title: &str, body: &str) -> Result<Task, HubError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE || title.contains(['\n', '\r']) {
            return Err(HubError::new(
                Code::BadTask,
                format!("a title is one line of 1 to {MAX_TITLE} characters"),
            ));
        }
        if body.len() > MAX_BODY {
            return Err(HubError::new(
                Code::BadTask,
                format!("a body is at most {MAX_BODY} bytes"),
            ));
        }
        let task = self
            .store()
            .add_task(&NewTask {
                title,
                body,
                creator,
                at: now(),
            })
            .await?;
        self.told(&task);
        Ok(task)
    }

    /// The items `filter` names, the newest first.
    pub async fn list(&self, mut filter: TaskFilter) -> Result<Vec<Task>, HubError> {
        if !(1..=MAX_LIST).contains(&filter.limit) {
            return Err(HubError::new(
                Code::BadQuery,
                format!("a list is 1 to {MAX_LIST} items"),
            ));
        }
        filter.text = filter.text.filter(|t| !t.trim().is_empty());
        Ok(self.store().tasks(&filter).await?)
    }

    /// One item.
    pub async fn show(&self, id: i64) -> Result<Task, HubError> {
        self.store().task(id).await?.ok_or_else(|| unknown(id))
    }

    /// `by` makes `what` of item `id`: the item as it is now. A taker's worktree branch is kept with it; an
    /// item given to an agent reaches it as the user's message; an item done tells its watchers.
    pub async fn act(&self, id: i64, by: Actor<'_>, what: &Move) -> Result<Task, HubError> {
        let taker = match (what, by) {
            (Move::Assign { to }, _) => Some(to.as_str()),
            (Move::Take, Actor::Agent(a)) => Some(a),
            (Move::Take | Move::Review | Move::Done | Move::Drop, _) => None,
        };
        let branch = match taker {
            Some(agent) => {
                self.states.live(agent)?;
                self.worktrees.branch_of(agent).await?
            }
            None => None,
        };
        let task = self
            .store()
            .move_task(id, by, what, branch.as_deref(), now())
            .await
            .map_err(move_error)?;
        self.told(&task);
        match what {
            Move::Assign { to } => {
                let text = format!(
                    "The user gave you task #{}: {}\n\n{}\n\nRun `clawmux task done {}` when it is finished.",
                    task.id, task.title, task.body, task.id
                );
                self.message("user", to, &text).await?;
            }
            Move::Done => self.tell_watchers(&task, by).await?,
            Move::Take | Move::Review | Move::Drop => {}
        }
        Ok(task)
    }

    /// `agent` is told when item `id` is done.
    pub async fn watch(&self, id: i64, agent: &str) -> Result<Task, HubError> {
        let task = self.show(id).await?;
        self.store().watch_task(id, agent).await?;
        Ok(task)
    }

    /// Tells the watchers of a finished item (not the one who finished it).
    async fn tell_watchers(&self, task: &Task, by: Actor<'_>) -> Result<(), HubError> {
        let from = match by {
            Actor::User => "user",
            Actor::Agent(a) => a,
        };
        let text = format!("Task #{} is done: {}", task.id, task.title);
        for watcher in self.store().task_watchers(task.id).await? {
            if watcher != from && self.states.live(&watcher).is_ok() {
                self.message(from, &watcher, &text).await?;
            }
        }
        Ok(())
    }

    /// `from`'s message (the user's, or an agent's) into `to`'s inbox.
    async fn message(&self, from: &str, to: &str, text: &str) -> Result<MsgId, HubError> {
        let kind = if from == "user" {
            Kind::User
        } else {
            Kind::Agent
        };
        let m = NewMessage::plain(to, kind, from, Some(to), text, now());
        Ok(self.inbox.deliver(&m).await?.id)
    }

    fn told(&self, task: &Task) {
        self.states.broadcast(UiEvent::Task { task: task.clone() });
    }
}

/// A move that changed nothing, as the hub's error.
fn move_error(e: MoveError) -> HubError {
    match e {
        MoveError::Unknown(id) => unknown(id),
        MoveError::Refused(why) => HubError::new(Code::TaskRefused, why.to_string()),
        MoveError::Store(e) => e.into(),
    }
}

fn unknown(id: i64) -> HubError {
    HubError::new(Code::UnknownTask, format!("no task #{id} on the board"))
}
