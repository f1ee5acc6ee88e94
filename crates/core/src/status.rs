//! An agent's status as everything that tells the user about it reads it: the tray's badge, the desktop's
//! notices, the phone's pushes and hands-free's "who needs me". One type and one set of predicates, so the
//! badge and the voice never count differently.
//!
//! Whether an agent needs the user is decided here and nowhere else: it waits for something only the user
//! can give (a permission, an answer, a plan's approval) or stopped on an error they must look at. An agent
//! held at the account's usage limit does not: there is nothing to do but wait for the reset, which the
//! window, a notice and a push each say as such.

use crate::{Attention, Need, State};

impl Need {
    /// Whether this need is the user's to meet: everything but the usage limit.
    pub fn needs_user(self) -> bool {
        match self {
            Need::Permission
            | Need::Answer
            | Need::PlanApproval
            | Need::Error
            | Need::Undelivered => true,
            Need::RateLimited => false,
        }
    }
}

impl Attention {
    /// Whether the user is needed (see [`Need::needs_user`]).
    pub fn needs_user(&self) -> bool {
        self.need.needs_user()
    }
}

/// One agent's status: its state, what it needs and the request a notification may answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentStatus {
    /// The agent as the window addresses it (`name@machine` for another machine's).
    pub agent: String,
    /// Its state.
    pub state: State,
    /// What it needs, the usage limit included.
    pub needs: Option<Attention>,
    /// The permission request open there, which a notification may answer.
    pub permission: Option<String>,
}

impl AgentStatus {
    /// Whether the agent needs the user: the badge's count, a "needs you" notice and push, and the agents
    /// hands-free names when asked who needs the user.
    pub fn needs_user(&self) -> bool {
        self.needs.as_ref().is_some_and(Attention::needs_user)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: State, need: Option<Need>) -> AgentStatus {
        AgentStatus {
            agent: "sky".into(),
            state,
            needs: need.map(|need| Attention {
                need,
                reason: "why".into(),
                tool_use_id: None,
                tool_name: None,
                since: crate::Millis(1),
                notice: false,
            }),
            permission: None,
        }
    }

    #[test]
    fn every_need_but_the_usage_limit_needs_the_user() {
        for need in Need::ALL {
            let s = status(State::Idle, Some(need));
            assert_eq!(s.needs_user(), need != Need::RateLimited, "{need:?}");
        }
        assert!(!status(State::Idle, None).needs_user());
    }
}
