//! The shared board: items the agents and the user work from, each with a title, a body, an owner (an agent
//! or none), a state and, for an agent in a worktree, its branch; and the one rule of who may move an item
//! where. The store applies the rule inside its write transaction, so two agents taking one item cannot both
//! win: one takes it, the other is told who has it.

use serde::{Deserialize, Serialize};

use crate::Millis;

/// Where an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Nobody has it.
    Open,
    /// Its owner works on it.
    Taken,
    /// Its owner asks for a review.
    InReview,
    /// Finished.
    Done,
}

impl TaskState {
    /// Every state, in the order an item moves through them.
    pub const ALL: [TaskState; 4] = [
        TaskState::Open,
        TaskState::Taken,
        TaskState::InReview,
        TaskState::Done,
    ];

    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Open => "open",
            TaskState::Taken => "taken",
            TaskState::InReview => "in_review",
            TaskState::Done => "done",
        }
    }

    /// Parses a stored or typed name (`in-review` too).
    pub fn parse(name: &str) -> Option<TaskState> {
        let name = name.replace('-', "_");
        TaskState::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// An item of the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Its number (`#12`).
    pub id: i64,
    /// One line.
    pub title: String,
    /// What it asks, in markdown.
    pub body: String,
    /// Where it is.
    pub state: TaskState,
    /// The agent that has it.
    pub owner: Option<String>,
    /// The owner's worktree branch, when it took the item in one.
    pub branch: Option<String>,
    /// Who put it on the board: an agent, or `user`.
    pub creator: String,
    /// When it was added.
    pub created_at: Millis,
    /// When it last moved.
    pub updated_at: Millis,
}

/// What someone does to an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum Move {
    /// An agent takes an open item.
    Take,
    /// The owner asks for a review.
    Review,
    /// The owner (or the user) finishes it.
    Done,
    /// The owner (or the user) gives it back: open, nobody's.
    Drop,
    /// The user gives it to an agent (from any state but done).
    Assign {
        /// The agent.
        to: String,
    },
}

/// Who acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor<'a> {
    /// The user, from the window, the phone or by voice.
    User,
    /// An agent, by `clawmux task`.
    Agent(&'a str),
}

/// Why a move is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Another agent has it.
    #[error("#{id} is {owner}'s")]
    Held {
        /// The item.
        id: i64,
        /// Who has it.
        owner: String,
    },
    /// It is done.
    #[error("#{0} is done")]
    Done(i64),
    /// The move does not apply to the item's state (taking one already taken by the taker, reviewing an
    /// open one).
    #[error("#{id} is {state}: it cannot be {wanted}")]
    NotFrom {
        /// The item.
        id: i64,
        /// Its state.
        state: &'static str,
        /// What was asked.
        wanted: &'static str,
    },
    /// Only the user may do that.
    #[error("only the user gives an item to an agent")]
    UserOnly,
}

/// The owner and state an item takes when `by` makes `what`, or why not.
pub fn apply(
    task: &Task,
    by: Actor<'_>,
    what: &Move,
) -> Result<(TaskState, Option<String>), Refused> {
    let id = task.id;
    let not_from = |wanted| Refused::NotFrom {
        id,
        state: task.state.as_str(),
        wanted,
    };
    if task.state == TaskState::Done {
        return Err(Refused::Done(id));
    }
    let held_now = matches!(task.state, TaskState::Taken | TaskState::InReview);
    // Whether `by` may act on the item as its owner would.
    let owns = match (by, &task.owner) {
        (Actor::User, _) => true,
        (Actor::Agent(a), Some(owner)) => a == owner,
        (Actor::Agent(_), None) => false,
    };
    let held = || Refused::Held {
        id,
        owner: task.owner.clone().unwrap_or_default(),
    };
    match what {
        Move::Assign { to } => match by {
            Actor::User => Ok((TaskState::Taken, Some(to.clone()))),
            Actor::Agent(_) => Err(Refused::UserOnly),
        },
        Move::Take => match (by, held_now) {
            (Actor::Agent(a), false) => Ok((TaskState::Taken, Some(a.to_owned()))),
            (Actor::User, false) => Err(not_from("taken by the user: give it to an agent")),
            (_, true) if owns => Err(not_from("taken again")),
            (_, true) => Err(held()),
        },
        Move::Review | Move::Done | Move::Drop if held_now && !owns => Err(held()),
        Move::Review => match task.state {
            TaskState::Taken => Ok((TaskState::InReview, task.owner.clone())),
            TaskState::Open | TaskState::InReview | TaskState::Done => {
                Err(not_from("put in review"))
            }
        },
        Move::Done if held_now || by == Actor::User => Ok((TaskState::Done, task.owner.clone())),
        Move::Done => Err(not_from("done by an agent that has not taken it")),
        Move::Drop if held_now => Ok((TaskState::Open, None)),
        Move::Drop => Err(not_from("dropped")),
    }
}

/// The longest title, in characters.
pub const MAX_TITLE: usize = 200;
/// The longest body, in bytes.
pub const MAX_BODY: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    fn task(state: TaskState, owner: Option<&str>) -> Task {
        Task {
            id: 7,
            title: "docs".into(),
            body: String::new(),
            state,
            owner: owner.map(str::to_owned),
            branch: None,
            creator: "user".into(),
            created_at: Millis(1),
            updated_at: Millis(1),
        }
    }

    #[test]
    fn taking_is_exclusive_and_the_loser_is_told_who_has_it() {
        let open = task(TaskState::Open, None);
        assert_eq!(
            apply(&open, Actor::Agent("rain"), &Move::Take),
            Ok((TaskState::Taken, Some("rain".into())))
        );
        let taken = task(TaskState::Taken, Some("rain"));
        assert_eq!(
            apply(&taken, Actor::Agent("sky"), &Move::Take),
            Err(Refused::Held {
                id: 7,
                owner: "rain".into()
            })
        );
        assert!(matches!(
            apply(&taken, Actor::Agent("rain"), &Move::Take),
            Err(Refused::NotFrom { .. })
        ));
    }

    #[test]
    fn only_the_owner_or_the_user_finishes_reviews_or_drops_an_item() {
        let taken = task(TaskState::Taken, Some("rain"));
        for what in [Move::Done, Move::Drop, Move::Review] {
            assert!(
                matches!(
                    apply(&taken, Actor::Agent("sky"), &what),
                    Err(Refused::Held { .. })
                ),
                "{what:?}"
            );
        }
        assert_eq!(
            apply(&taken, Actor::Agent("rain"), &Move::Review),
            Ok((TaskState::InReview, Some("rain".into())))
        );
        assert_eq!(
            apply(&taken, Actor::User, &Move::Done),
            Ok((TaskState::Done, Some("rain".into())))
        );
        assert_eq!(
            apply(&taken, Actor::Agent("rain"), &Move::Drop),
            Ok((TaskState::Open, None))
        );
        let done = task(TaskState::Done, Some("rain"));
        assert_eq!(
            apply(&done, Actor::User, &Move::Drop),
            Err(Refused::Done(7))
        );
    }

    #[test]
    fn only_the_user_gives_an_item_to_an_agent() {
        let open = task(TaskState::Open, None);
        assert_eq!(
            apply(&open, Actor::User, &Move::Assign { to: "rain".into() }),
            Ok((TaskState::Taken, Some("rain".into())))
        );
        assert_eq!(
            apply(
                &open,
                Actor::Agent("sky"),
                &Move::Assign { to: "sky".into() }
            ),
            Err(Refused::UserOnly)
        );
        assert!(apply(&open, Actor::Agent("sky"), &Move::Done).is_err());
    }

    #[test]
    fn states_read_back_from_their_names() {
        for s in TaskState::ALL {
            assert_eq!(TaskState::parse(s.as_str()), Some(s));
        }
        assert_eq!(TaskState::parse("in-review"), Some(TaskState::InReview));
        assert_eq!(TaskState::parse("closed"), None);
    }
}
