//! When the hub pushes to the phones: a pure rule over the agents' status changes, beside the desktop's
//! notifications (`crate::notice`, whose transitions it shares), so it is tested without a push service.
//!
//! A push for each new "needs you", usage limit and finished turn, unless a window has the user's
//! attention; and, for a need a push announced, one more when that need ends (answered anywhere: the
//! window, a desktop notification, a voice, the phone), so the phone withdraws its notification and
//! nothing on it can answer twice.

use std::collections::HashMap;

use crate::machines::AgentStatus;
use crate::notice::{Notice, NoticeRule};
use crate::ui_event::SessionInfo;

use super::{PushKind, PushMessage};

/// The rule's memory: the notices' own, and which agents' needs a push announced (with the request it
/// named, if any).
#[derive(Debug, Default)]
pub struct PushRule {
    notices: NoticeRule,
    announced: HashMap<String, Option<String>>,
}

impl PushRule {
    /// Starts from the agents as they are now: what is already the case is not news.
    pub fn new(sessions: &[SessionInfo]) -> PushRule {
        PushRule {
            notices: NoticeRule::new(sessions),
            announced: HashMap::new(),
        }
    }

    /// An agent's new status, with whether a window has the user's attention (`present`): the pushes it
    /// deserves, in order.
    pub fn on_status(&mut self, status: &AgentStatus, present: bool) -> Vec<PushMessage> {
        let agent = &status.agent;
        let mut out = Vec::new();
        // A need announced that is over, or replaced by another request: its notification goes.
        if let Some(request) = self.announced.get(agent) {
            let same = status.needs.is_some() && status.permission == *request;
            if !same {
                out.push(PushMessage {
                    agent: agent.clone(),
                    kind: PushKind::Answered,
                    need: None,
                    tool: None,
                    request: request.clone(),
                });
                self.announced.remove(agent);
            }
        }
        let notice = self
            .notices
            .on_status(agent, status.state, status.needs.as_ref());
        let kind = match notice {
            Some(Notice::NeedsYou(_)) => PushKind::NeedsYou,
            Some(Notice::RateLimited(_)) => PushKind::RateLimited,
            Some(Notice::Finished) => PushKind::Finished,
            None => return out,
        };
        if present {
            return out;
        }
        let needs = status.needs.as_ref();
        if kind == PushKind::NeedsYou {
            self.announced
                .insert(agent.clone(), status.permission.clone());
        }
        out.push(PushMessage {
            agent: agent.clone(),
            kind,
            need: needs.map(|a| a.need),
            tool: needs.and_then(|a| a.tool_name.clone()),
            request: status.permission.clone(),
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use clawmux_core::{Attention, Millis, Need, State};

    use super::*;

    fn status(agent: &str, state: State, need: Option<Need>, request: Option<&str>) -> AgentStatus {
        AgentStatus {
            agent: agent.to_owned(),
            state,
            needs: need.map(|need| Attention {
                need,
                reason: format!("Permission: Running npm publish ({request:?})"),
                tool_use_id: None,
                tool_name: Some("Bash".into()),
                since: Millis(1),
                notice: false,
            }),
            permission: request.map(str::to_owned),
        }
    }

    #[test]
    fn a_need_is_pushed_once_and_its_end_withdraws_it() {
        let mut rule = PushRule::default();
        assert!(rule
            .on_status(&status("sky", State::Processing, None, None), false)
            .is_empty());
        let asked = status("sky", State::Processing, Some(Need::Permission), Some("r1"));
        let pushed = rule.on_status(&asked, false);
        assert_eq!(
            pushed,
            [PushMessage {
                agent: "sky".into(),
                kind: PushKind::NeedsYou,
                need: Some(Need::Permission),
                tool: Some("Bash".into()),
                request: Some("r1".into()),
            }]
        );
        assert!(
            rule.on_status(&asked, false).is_empty(),
            "the same need is not news"
        );
        // Answered anywhere: the phone is told, once.
        let answered = rule.on_status(&status("sky", State::Processing, None, None), false);
        assert_eq!(answered.len(), 1);
        assert_eq!(
            (answered[0].kind, answered[0].request.as_deref()),
            (PushKind::Answered, Some("r1"))
        );
        assert!(rule
            .on_status(&status("sky", State::Processing, None, None), false)
            .is_empty());
        // Finished: waits for the user.
        let done = rule.on_status(&status("sky", State::Idle, None, None), false);
        assert_eq!(done[0].kind, PushKind::Finished);
    }

    #[test]
    fn nothing_is_pushed_while_the_user_is_at_the_desk_but_an_announced_need_is_still_withdrawn() {
        let mut rule = PushRule::default();
        let asked = status("sky", State::Processing, Some(Need::Permission), Some("r1"));
        assert!(rule.on_status(&asked, true).is_empty());
        assert!(rule
            .on_status(&status("sky", State::Processing, None, None), true)
            .is_empty());
        // Announced while away, answered once the user is back: still withdrawn.
        rule.on_status(
            &status("ivy", State::Processing, Some(Need::Answer), None),
            false,
        );
        let answered = rule.on_status(&status("ivy", State::Processing, None, None), true);
        assert_eq!(
            (answered[0].kind, answered[0].request.as_deref()),
            (PushKind::Answered, None)
        );
    }

    #[test]
    fn a_new_request_withdraws_the_old_and_announces_itself() {
        let mut rule = PushRule::default();
        rule.on_status(
            &status("sky", State::Processing, Some(Need::Permission), Some("r1")),
            false,
        );
        let next = rule.on_status(
            &status("sky", State::Processing, Some(Need::Permission), Some("r2")),
            false,
        );
        let kinds: Vec<_> = next.iter().map(|m| (m.kind, m.request.clone())).collect();
        assert_eq!(
            kinds,
            [
                (PushKind::Answered, Some("r1".into())),
                (PushKind::NeedsYou, Some("r2".into()))
            ]
        );
    }

    #[test]
    fn a_usage_limit_is_pushed_as_such() {
        let mut rule = PushRule::default();
        let limited = rule.on_status(
            &status("sky", State::Idle, Some(Need::RateLimited), None),
            false,
        );
        assert_eq!(limited[0].kind, PushKind::RateLimited);
    }
}
