//! The questions the app answers itself, from the hub's state and the agents' last answers: who needs the
//! user, what an agent does, the last answer again and the rest of it, stop, skip, next; and the board's
//! (`board.rs`).

use clawmux_core::spoken::{Query, Spoken};
use clawmux_core::wire::{Kind, Message};

use super::{needing, say, waiting, with_news, Act, Done, HandsFree, Reading};
use crate::error::HubError;
use crate::ui_event::SessionInfo;

impl HandsFree {
    /// A question for the app, answered from the hub's state; a give of the board's, what the router
    /// does for it.
    pub(super) async fn query(
        &self,
        q: Query,
        shown: Option<&str>,
        sessions: &[SessionInfo],
    ) -> Result<(String, Done, Act), HubError> {
        let said = match q {
            Query::GiveTask { task, agent } => return self.give(task, agent).await,
            Query::Board => (self.board_said().await?, Done::Said),
            Query::WhoNeedsMe => {
                // The agents the badge counts, then what else there is to know (a usage limit, an
                // answer unread), never counted as needing the user.
                let said = |agents: Vec<&SessionInfo>| -> Vec<String> {
                    agents.into_iter().filter_map(say::need).collect()
                };
                let mut say = said(needing(sessions));
                if say.is_empty() {
                    say.push("Nobody needs you.".to_owned());
                }
                say.extend(said(with_news(sessions)));
                let say = say.join(" ");
                (say, Done::Said)
            }
            Query::WhatIsDoing(agent) => (
                sessions
                    .iter()
                    .find(|s| s.session_id == agent)
                    .map(say::doing)
                    .unwrap_or_default(),
                Done::Said,
            ),
            Query::ReadAgain => (self.read_again(shown).await?, Done::Said),
            Query::More => (self.more(shown).await?, Done::Said),
            Query::Stop => (String::new(), Done::Stop),
            Query::Skip => (String::new(), Done::Skip),
            Query::Next => match waiting(sessions)
                .into_iter()
                .find(|s| Some(s.session_id.as_str()) != shown)
            {
                Some(next) => (
                    say::need(next).unwrap_or_default(),
                    Done::Show {
                        session_id: next.session_id.clone(),
                    },
                ),
                None => ("Nobody else needs you.".to_owned(), Done::Said),
            },
        };
        Ok((said.0, said.1, Act::None))
    }

    /// The rest of the shown agent's last answer (the window read its first paragraph aloud, or "read
    /// that again" did), once: asked again, there is no more.
    async fn more(&self, shown: Option<&str>) -> Result<String, HubError> {
        let last = match shown {
            Some(agent) => self.last_answer(agent).await?,
            None => None,
        };
        let Some(last) = last else {
            return Ok("There is no more.".to_owned());
        };
        let mut reading = self.reading();
        let rest = match reading.take() {
            Some(r) if r.id == last.id => r.rest,
            Some(_) | None => Spoken::of(&last.text).rest(),
        };
        *reading = Some(Reading {
            id: last.id,
            rest: String::new(),
        });
        Ok(if rest.is_empty() {
            "There is no more.".to_owned()
        } else {
            rest
        })
    }

    /// `agent`'s last answer to the user.
    async fn last_answer(&self, agent: &str) -> Result<Option<Message>, HubError> {
        Ok(self
            .store
            .latest(agent, 50)
            .await?
            .into_iter()
            .rev()
            .find(|m| m.kind == Kind::Assistant))
    }

    /// The shown agent's last answer, its first paragraph; the rest kept for "more".
    async fn read_again(&self, shown: Option<&str>) -> Result<String, HubError> {
        let Some(agent) = shown else {
            return Ok("Which agent? Say its name first.".to_owned());
        };
        let Some(last) = self.last_answer(agent).await? else {
            return Ok(format!("{agent} has said nothing yet."));
        };
        let spoken = Spoken::of(&last.text);
        *self.reading() = Some(Reading {
            id: last.id,
            rest: spoken.rest(),
        });
        Ok(format!("{agent} said: {}", spoken.first()))
    }
}
