//! A lead: an agent the user lets answer its group's permission requests, for the tools the user lists
//! (read-only ones unless told otherwise), never a call the voice grammar calls dangerous, never "always"
//! (a rule that outlives the request is the user's to add), never a question or a plan (those are the
//! user's). The user takes the right back at once. The one rule of what a lead may answer is here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spoken::danger;
use crate::Millis;

/// The tools a lead may allow when the user names none: they only read.
pub const READ_ONLY_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "NotebookRead",
    "WebFetch",
    "WebSearch",
];

/// The tools whose requests are the user's alone: a question, a plan.
const THE_USERS: &[&str] = &["AskUserQuestion", "ExitPlanMode", "EnterPlanMode"];

/// One member's lead, and what it may allow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// The agent whose requests the lead answers.
    pub member: String,
    /// The lead.
    pub lead: String,
    /// The tools the lead may allow.
    pub tools: Vec<String>,
    /// Since when.
    pub since: Millis,
}

/// Why a lead may not answer a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotTheLeads {
    /// It does not lead that agent (or the right was taken back).
    #[error("you do not lead {0}: the user answers its requests")]
    NotLead(String),
    /// A question or a plan.
    #[error("{0} is the user's to answer")]
    TheUsers(String),
    /// A tool the user did not list.
    #[error("the user did not let you allow {0}")]
    ToolNotGranted(String),
    /// A call the voice grammar calls dangerous (`git push`, `rm`, ...).
    #[error("`{0}` is dangerous: only the user allows it")]
    Dangerous(String),
}

/// Whether `lead` may answer `member`'s request for `tool_name` with `tool_input` (`allow`: an allow, else
/// a deny). A deny of a request the lead may see is always the lead's: it only stops a call.
pub fn may_answer(
    grant: Option<&Grant>,
    lead: &str,
    member: &str,
    tool_name: &str,
    tool_input: &Value,
    allow: bool,
) -> Result<(), NotTheLeads> {
    match grant {
        Some(g) if g.lead == lead && g.member == member => {}
        Some(_) | None => return Err(NotTheLeads::NotLead(member.to_owned())),
    }
    if THE_USERS.contains(&tool_name) {
        return Err(NotTheLeads::TheUsers(tool_name.to_owned()));
    }
    if !allow {
        return Ok(());
    }
    if !grant.is_some_and(|g| g.tools.iter().any(|t| t == tool_name)) {
        return Err(NotTheLeads::ToolNotGranted(tool_name.to_owned()));
    }
    match danger(tool_name, tool_input) {
        Some(d) => Err(NotTheLeads::Dangerous(d.words.join(" "))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grant(tools: &[&str]) -> Grant {
        Grant {
            member: "sky".into(),
            lead: "moon".into(),
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            since: Millis(1),
        }
    }

    #[test]
    fn a_lead_allows_only_the_tools_listed_and_never_a_dangerous_call() {
        let read_only = grant(READ_ONLY_TOOLS);
        let read = json!({"file_path": "/w/a.rs"});
        assert_eq!(
            may_answer(Some(&read_only), "moon", "sky", "Read", &read, true),
            Ok(())
        );
        assert_eq!(
            may_answer(
                Some(&read_only),
                "moon",
                "sky",
                "Bash",
                &json!({"command": "ls"}),
                true
            ),
            Err(NotTheLeads::ToolNotGranted("Bash".into()))
        );
        let bash = grant(&["Bash"]);
        assert_eq!(
            may_answer(
                Some(&bash),
                "moon",
                "sky",
                "Bash",
                &json!({"command": "cargo test"}),
                true
            ),
            Ok(())
        );
        assert!(matches!(
            may_answer(
                Some(&bash),
                "moon",
                "sky",
                "Bash",
                &json!({"command": "git push origin main"}),
                true
            ),
            Err(NotTheLeads::Dangerous(_))
        ));
        // Denying only stops a call: the lead may, whatever the tool.
        assert_eq!(
            may_answer(
                Some(&read_only),
                "moon",
                "sky",
                "Bash",
                &json!({"command": "rm -rf /"}),
                false
            ),
            Ok(())
        );
    }

    #[test]
    fn only_the_lead_of_that_member_answers_and_never_a_question_or_a_plan() {
        let g = grant(READ_ONLY_TOOLS);
        let read = json!({"file_path": "/w/a.rs"});
        assert_eq!(
            may_answer(Some(&g), "rain", "sky", "Read", &read, true),
            Err(NotTheLeads::NotLead("sky".into()))
        );
        assert_eq!(
            may_answer(None, "moon", "sky", "Read", &read, true),
            Err(NotTheLeads::NotLead("sky".into()))
        );
        for tool in ["AskUserQuestion", "ExitPlanMode"] {
            assert_eq!(
                may_answer(Some(&g), "moon", "sky", tool, &json!({}), false),
                Err(NotTheLeads::TheUsers(tool.into()))
            );
        }
    }
}
