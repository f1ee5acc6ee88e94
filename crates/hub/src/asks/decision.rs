//! The decision a PermissionRequest hook prints for Claude Code, from the user's answer.

use serde_json::{json, Value};

use super::{AnswerRequest, Request, Verdict};
use crate::lifecycle::flags::PlanMode;

/// The hook's answer to Claude Code for `reply` to `request`.
pub(super) fn decision(request: &Request, reply: &AnswerRequest) -> Value {
    let verdict = reply.decision;
    let mut decision = match verdict {
        Verdict::Allow | Verdict::AllowAlways => json!({ "behavior": "allow" }),
        Verdict::Deny => json!({
            "behavior": "deny",
            "message": reply.message.clone().unwrap_or_else(|| "The user said no.".to_owned()),
        }),
    };
    if verdict == Verdict::AllowAlways {
        if let Some(rule) = request.suggestions.get(reply.suggestion.unwrap_or(0)) {
            decision["updatedPermissions"] = json!([rule]);
        }
    }
    if request.tool_name == "ExitPlanMode" && verdict != Verdict::Deny {
        // An approved plan leaves plan mode: Claude Code takes the approval with the mode to go on in.
        let mode = reply.mode.unwrap_or(PlanMode::Default).permission_mode();
        decision["updatedPermissions"] =
            json!([{ "type": "setMode", "mode": mode.as_str(), "destination": "session" }]);
        decision["updatedInput"] = request.tool_input.clone();
    }
    if let (Some(answers), Verdict::Allow | Verdict::AllowAlways) = (&reply.answers, verdict) {
        // AskUserQuestion: the answers go back as the tool's input, beside its questions.
        let mut input = request.tool_input.clone();
        if let Some(o) = input.as_object_mut() {
            o.insert("answers".into(), Value::Object(answers.clone()));
        }
        decision["updatedInput"] = input;
    }
    json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest", "decision": decision } })
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    /// An answer of `decision` and nothing else.
    fn reply(decision: Verdict) -> AnswerRequest {
        AnswerRequest {
            session_id: "sky".into(),
            request_id: None,
            decision,
            message: None,
            answers: None,
            suggestion: None,
            mode: None,
        }
    }

    fn request(tool: &str, input: Value, suggestions: Vec<Value>) -> Request {
        Request {
            id: "r1".into(),
            tool_name: tool.into(),
            tool_input: input,
            suggestions,
        }
    }

    #[test]
    fn each_verdict_becomes_the_decision_claude_code_reads() {
        let bash = request(
            "Bash",
            json!({"command": "git push"}),
            vec![json!({"type": "addRules"}), json!({"type": "setMode"})],
        );
        let allow = |verdict, message: Option<&str>| AnswerRequest {
            message: message.map(str::to_owned),
            ..reply(verdict)
        };
        assert_eq!(
            decision(&bash, &allow(Verdict::Allow, None))["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow"})
        );
        assert_eq!(
            decision(&bash, &allow(Verdict::AllowAlways, None))["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow", "updatedPermissions": [{"type": "addRules"}]})
        );
        let second = AnswerRequest {
            suggestion: Some(1),
            ..allow(Verdict::AllowAlways, None)
        };
        assert_eq!(
            decision(&bash, &second)["hookSpecificOutput"]["decision"]["updatedPermissions"],
            json!([{"type": "setMode"}]),
            "only the rule the user chose"
        );
        let denied = decision(&bash, &allow(Verdict::Deny, Some("not on main")));
        assert_eq!(
            denied["hookSpecificOutput"]["hookEventName"],
            "PermissionRequest"
        );
        assert_eq!(
            denied["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "not on main"})
        );
    }

    #[test]
    fn an_approved_plan_carries_the_plan_and_the_mode_to_go_on_in() {
        let plan = request("ExitPlanMode", json!({"plan": "# Paint"}), vec![]);
        let out = decision(
            &plan,
            &AnswerRequest {
                mode: Some(PlanMode::AcceptEdits),
                ..reply(Verdict::Allow)
            },
        );
        let d = &out["hookSpecificOutput"]["decision"];
        assert_eq!(
            d["updatedInput"]["plan"], "# Paint",
            "2.1.330 ignores an approval without it"
        );
        assert_eq!(d["updatedPermissions"][0]["mode"], "acceptEdits");
        let kept = decision(
            &plan,
            &AnswerRequest {
                message: Some("smaller steps".into()),
                ..reply(Verdict::Deny)
            },
        );
        assert_eq!(
            kept["hookSpecificOutput"]["decision"],
            json!({"behavior": "deny", "message": "smaller steps"})
        );
    }

    #[test]
    fn a_questions_answers_go_back_beside_its_questions() {
        let questions =
            json!({"questions": [{"question": "Which color?", "options": [{"label": "Blue"}]}]});
        let ask = request("AskUserQuestion", questions, vec![]);
        let mut answers = Map::new();
        answers.insert("Which color?".into(), json!("Blue"));
        let out = decision(
            &ask,
            &AnswerRequest {
                answers: Some(answers),
                ..reply(Verdict::Allow)
            },
        );
        let input = &out["hookSpecificOutput"]["decision"]["updatedInput"];
        assert_eq!(input["answers"]["Which color?"], "Blue");
        assert_eq!(input["questions"][0]["question"], "Which color?");
    }
}
