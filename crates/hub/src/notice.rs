//! When the desktop app raises a notification: a pure rule over each agent's status changes, so it is
//! tested here, without a window or a notification daemon.
//!
//! One notice per transition: an agent that starts to need the user (a new "needs you"), and an agent that
//! stops working and waits for the user (Working to Idle with nothing needed). Starting to Idle is an agent
//! arriving, not finishing, and tells nobody anything.

use std::collections::HashMap;

use clawmux_core::wire::{Kind, Message};
use clawmux_core::{Attention, State};

use crate::ui_event::SessionInfo;

/// How much of the agent's last message a notification shows.
const PREVIEW_CHARS: usize = 140;

/// What to tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The agent needs the user; the reason is one line.
    NeedsYou(String),
    /// The agent stopped at the account's usage limit (Claude Code's words, with the reset): not an
    /// error, and nothing to answer; it waits for the reset.
    RateLimited(String),
    /// The agent finished its work and waits for the user.
    Finished,
}

/// Each agent's last state and need, as the rule last saw them.
#[derive(Debug, Default)]
pub struct NoticeRule {
    states: HashMap<String, State>,
    needs: HashMap<String, Attention>,
}

impl NoticeRule {
    /// Starts from the agents as they are now: what is already the case is not news.
    pub fn new(sessions: &[SessionInfo]) -> NoticeRule {
        NoticeRule {
            states: sessions
                .iter()
                .map(|s| (s.session_id.clone(), s.state))
                .collect(),
            needs: sessions
                .iter()
                .filter_map(|s| Some((s.session_id.clone(), s.needs.clone()?.attention)))
                .collect(),
        }
    }

    /// An agent's new status: the notice it deserves, if any.
    pub fn on_status(
        &mut self,
        agent: &str,
        state: State,
        needs: Option<&Attention>,
    ) -> Option<Notice> {
        let before = self.states.insert(agent.to_owned(), state);
        let needed = match needs {
            Some(a) => self.needs.insert(agent.to_owned(), a.clone()),
            None => self.needs.remove(agent),
        };
        match needs {
            Some(a) if needed.as_ref() != Some(a) => Some(if a.needs_user() {
                Notice::NeedsYou(a.reason.clone())
            } else {
                Notice::RateLimited(a.reason.clone())
            }),
            Some(_) => None,
            None => {
                let worked = matches!(before, Some(State::Processing | State::Compacting));
                (state == State::Idle && worked).then_some(Notice::Finished)
            }
        }
    }
}

/// The body of a "finished" notice from an agent's latest messages (oldest first): the start of its last
/// answer to the user.
pub fn finished_body(latest: &[Message]) -> String {
    latest
        .iter()
        .rev()
        .find(|m| m.kind == Kind::Assistant)
        .map_or_else(
            || "Finished and waiting for you.".to_owned(),
            |m| preview(&m.text),
        )
}

/// A message on one line, cut at [`PREVIEW_CHARS`].
fn preview(text: &str) -> String {
    clawmux_core::printable::one_line(text, PREVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use clawmux_core::{Millis, Need};

    use super::*;

    fn need(reason: &str) -> Attention {
        Attention {
            need: Need::Permission,
            reason: reason.to_owned(),
            tool_use_id: None,
            tool_name: None,
            since: Millis(1),
            notice: false,
        }
    }

    #[test]
    fn finishing_work_is_news_arriving_is_not() {
        let mut rule = NoticeRule::default();
        assert_eq!(rule.on_status("sky", State::Starting, None), None);
        assert_eq!(rule.on_status("sky", State::Idle, None), None);
        assert_eq!(rule.on_status("sky", State::Processing, None), None);
        assert_eq!(
            rule.on_status("sky", State::Idle, None),
            Some(Notice::Finished)
        );
        assert_eq!(rule.on_status("sky", State::Idle, None), None);
        assert_eq!(rule.on_status("sky", State::Compacting, None), None);
        assert_eq!(
            rule.on_status("sky", State::Idle, None),
            Some(Notice::Finished)
        );
        assert_eq!(rule.on_status("sky", State::Processing, None), None);
        assert_eq!(rule.on_status("sky", State::Dead, None), None);
    }

    #[test]
    fn a_need_is_told_once_and_a_new_one_again() {
        let mut rule = NoticeRule::default();
        rule.on_status("sky", State::Processing, None);
        let push = need("Permission: Running git push");
        assert_eq!(
            rule.on_status("sky", State::Processing, Some(&push)),
            Some(Notice::NeedsYou("Permission: Running git push".into()))
        );
        assert_eq!(rule.on_status("sky", State::Processing, Some(&push)), None);
        let rm = need("Permission: Running rm -rf build");
        assert!(rule
            .on_status("sky", State::Processing, Some(&rm))
            .is_some());
        // Answered, the agent goes on, then finishes: that is news again.
        assert_eq!(rule.on_status("sky", State::Processing, None), None);
        assert_eq!(
            rule.on_status("sky", State::Idle, None),
            Some(Notice::Finished)
        );
    }

    #[test]
    fn the_usage_limit_is_told_as_such_not_as_a_need() {
        let mut rule = NoticeRule::default();
        rule.on_status("sky", State::Processing, None);
        let limit = Attention {
            need: Need::RateLimited,
            ..need("You've hit your 5-hour limit · resets 3pm (UTC)")
        };
        assert_eq!(
            rule.on_status("sky", State::Idle, Some(&limit)),
            Some(Notice::RateLimited(
                "You've hit your 5-hour limit · resets 3pm (UTC)".into()
            ))
        );
        assert_eq!(rule.on_status("sky", State::Idle, Some(&limit)), None);
    }

    #[test]
    fn a_preview_is_one_line_cut_at_its_length() {
        assert_eq!(
            preview("Done.\n\n  All   tests pass."),
            "Done. All tests pass."
        );
        let long = "é".repeat(200);
        assert_eq!(preview(&long), format!("{}…", "é".repeat(PREVIEW_CHARS)));
    }

    #[test]
    fn what_is_already_the_case_at_start_is_not_news() {
        let mut info = SessionInfo::new("sky", "/w", &clawmux_core::Snapshot::new(Millis(1)), 0);
        info.state = State::Processing;
        info.needs = crate::ui_event::Needs::of(Some(&need("Permission: Running ls")), None);
        let mut rule = NoticeRule::new(&[info]);
        let ls = need("Permission: Running ls");
        assert_eq!(rule.on_status("sky", State::Processing, Some(&ls)), None);
        assert_eq!(
            rule.on_status("sky", State::Idle, None),
            Some(Notice::Finished)
        );
    }

    #[test]
    fn a_finished_notice_quotes_the_start_of_the_last_answer() {
        let message = |kind: Kind, text: &str| Message {
            seq: 1,
            id: clawmux_core::wire::MsgId::parse("msg-00000001").unwrap(),
            agent: "sky".to_owned(),
            kind,
            sender: "sky".to_owned(),
            recipient: Some("user".to_owned()),
            text: text.to_owned(),
            parent: None,
            voice: false,
            aloud: false,
            attachments: Vec::new(),
            at: Millis(0),
        };
        let latest = [
            message(Kind::Assistant, "an older answer"),
            message(Kind::Assistant, "The tests pass.\n\nAll  of them."),
            message(Kind::Activity, "Running the tests"),
        ];
        assert_eq!(finished_body(&latest), "The tests pass. All of them.");
        assert_eq!(finished_body(&latest[2..]), "Finished and waiting for you.");
    }
}
