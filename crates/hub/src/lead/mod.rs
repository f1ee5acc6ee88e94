//! Leads: an agent the user lets answer its group's permission requests (`clawmux_core::lead` says what
//! it may answer). The lead is told of each request it may allow as a message, answers with `clawmux
//! allow|deny`, and each answer is noted in the member's conversation with who gave it, for the user to
//! see; the user takes the right back at once (`revoke`), after which the lead's answers are refused.

use clawmux_api::asks::{AnswerRequest, Verdict};
use clawmux_core::lead::{may_answer, Grant, READ_ONLY_TOOLS};
use clawmux_core::printable::one_line;
use clawmux_core::wire::{Code, Kind};
use clawmux_store::{NewMessage, Store};

use crate::asks::Requests;
use crate::clock::now;
use crate::error::HubError;
use crate::inbox::Inbox;
use crate::states::States;
use crate::ui_event::Request;

#[cfg(test)]
mod tests;

/// The leads. Made once with the agents' states (the store, the registry, messages), their inboxes and the
/// open requests; a cheap clone.
#[derive(Clone)]
pub struct Leads {
    states: States,
    inbox: Inbox,
    requests: Requests,
}

impl Leads {
    pub(crate) fn new(states: States, inbox: Inbox, requests: Requests) -> Leads {
        Leads {
            states,
            inbox,
            requests,
        }
    }

    fn store(&self) -> &Store {
        self.states.store()
    }

    /// Makes `lead` the lead of `members` for `tools` (the read-only ones when none are named), and tells
    /// it so. Returns every grant.
    pub async fn set(
        &self,
        lead: &str,
        members: &[String],
        tools: Option<&[String]>,
    ) -> Result<Vec<Grant>, HubError> {
        self.states.live(lead)?;
        if members.is_empty() {
            return Err(HubError::new(Code::BadQuery, "name the agents it leads"));
        }
        for member in members {
            self.states.live(member)?;
            if member == lead {
                return Err(HubError::new(
                    Code::ToItself,
                    format!("{lead} cannot lead itself: the user answers its requests"),
                ));
            }
        }
        let tools: Vec<String> = match tools {
            Some(t) if t.iter().any(|t| t.trim().is_empty()) => {
                return Err(HubError::new(Code::BadQuery, "a tool's name is empty"))
            }
            Some(t) => t.to_vec(),
            None => READ_ONLY_TOOLS.iter().map(|t| (*t).to_owned()).collect(),
        };
        let grants = self.store().set_lead(lead, members, &tools, now()).await?;
        let text = format!(
            "The user made you the lead of {}: you may allow their permission requests for {} (never a \
             dangerous call, never \"always\"), or deny any. You are told of each; answer with \
             `clawmux allow <agent> <request>` or `clawmux deny <agent> <request> 'why'`.",
            members.join(", "),
            tools.join(", ")
        );
        self.tell(lead, &text).await?;
        Ok(grants)
    }

    /// Takes the right back from `lead` at once, and tells it so. Returns every grant left.
    pub async fn revoke(&self, lead: &str) -> Result<Vec<Grant>, HubError> {
        let left = self.store().revoke_lead(lead).await?;
        if self.states.live(lead).is_ok() {
            self.tell(
                lead,
                "The user took back your right to answer other agents' requests.",
            )
            .await?;
        }
        Ok(left)
    }

    /// Every grant.
    pub async fn list(&self) -> Result<Vec<Grant>, HubError> {
        Ok(self.store().leads().await?)
    }

    /// A member's request opened: its lead, if it may allow it, is told.
    pub(crate) async fn opened(&self, member: &str, request: &Request) {
        let grant = match self.store().lead_of(member).await {
            Ok(Some(grant)) => grant,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(member, error = %e, "cannot read the member's lead");
                return;
            }
        };
        let lead = grant.lead.clone();
        let allowed = may_answer(
            Some(&grant),
            &lead,
            member,
            &request.tool_name,
            &request.tool_input,
            true,
        );
        if allowed.is_err() {
            return;
        }
        let text = format!(
            "{member} asks to use {}: {}. Answer with `clawmux allow {member} {id}` or \
             `clawmux deny {member} {id} 'why'`.",
            request.tool_name,
            one_line(&request.tool_input.to_string(), 300),
            id = request.id
        );
        if let Err(e) = self.tell(&lead, &text).await {
            tracing::warn!(lead, error = %e, "cannot tell the lead of a request");
        }
    }

    /// `lead` answers `member`'s open request `request_id`: allowed (`allow`) or denied with `why`.
    pub async fn answer(
        &self,
        lead: &str,
        member: &str,
        request_id: &str,
        allow: bool,
        why: Option<&str>,
    ) -> Result<(), HubError> {
        let open = self
            .states
            .live(member)?
            .asks
            .current()
            .filter(|r| r.id == request_id)
            .ok_or_else(|| {
                HubError::new(
                    Code::NotPending,
                    format!("{member} is not waiting for request {request_id} (any more)"),
                )
            })?;
        let grant = self.store().lead_of(member).await?;
        may_answer(
            grant.as_ref(),
            lead,
            member,
            &open.tool_name,
            &open.tool_input,
            allow,
        )
        .map_err(|why| HubError::new(Code::NotLead, why.to_string()))?;
        self.requests
            .answer(AnswerRequest {
                session_id: member.to_owned(),
                request_id: Some(request_id.to_owned()),
                decision: if allow { Verdict::Allow } else { Verdict::Deny },
                message: why.map(|w| format!("{lead} (lead): {w}")),
                answers: None,
                suggestion: None,
                mode: None,
            })
            .await?;
        let what = if allow { "allowed" } else { "denied" };
        self.states
            .note(
                member,
                &format!(
                    "{lead} (lead) {what} {}: {}",
                    open.tool_name,
                    one_line(&open.tool_input.to_string(), 200)
                ),
            )
            .await
    }

    /// The user's message to `agent`, into its inbox.
    async fn tell(&self, agent: &str, text: &str) -> Result<(), HubError> {
        let m = NewMessage::plain(agent, Kind::User, "user", Some(agent), text, now());
        self.inbox.deliver(&m).await?;
        Ok(())
    }
}
