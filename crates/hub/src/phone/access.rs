//! What a paired phone may do: what the window does to agents (read, send, answer, interrupt, attach),
//! never raising an agent's permission mode, and nothing that changes the hub (settings, machines, pairing, starting or ending agents) or runs a
//! program (a terminal). The desktop's token may do everything; a phone's token is checked here, by route
//! and, for the command surface, by command, so a command added later is the desktop's until it is listed
//! here (the match has no catch-all).

use axum::http::Method;

use crate::commands::Command;

/// Who is asking over HTTP: the desktop (its token) or a paired phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// The install's own token: the window, the browser UI on this machine, the `clawmux` command.
    Desktop,
    /// A paired phone.
    Phone(super::PhoneId),
}

/// The routes a phone may take (the command surface then checks each command, `may_run`).
pub fn may_take(method: &Method, path: &str) -> bool {
    let session = |tail: &str| {
        path.strip_prefix("/api/sessions/")
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(id, rest)| !id.is_empty() && rest == tail)
    };
    match *method {
        Method::GET => {
            path == "/ws"
                || path == "/api/phone/push-key"
                || path == "/api/sessions"
                || path == "/api/capabilities"
                || path.starts_with("/api/history/")
                || path.starts_with("/api/attachments/")
        }
        Method::POST => {
            path == "/api/command"
                || path == "/api/phone/push"
                || session("messages")
                || session("read")
                || session("interrupt")
                || session("attachments")
                || session("voice")
        }
        _ => false,
    }
}

/// Whether a phone may run `command`.
pub fn may_run(command: &Command) -> bool {
    match command {
        Command::Sessions(_)
        | Command::UserMessage(_)
        | Command::Attach(_)
        | Command::AttachmentImage(_)
        | Command::MarkRead(_)
        | Command::Interrupt(_)
        | Command::Dismiss(_)
        | Command::History(_)
        | Command::Changes(_)
        | Command::Usage(_)
        | Command::Search(_)
        | Command::Capabilities(_)
        // Following the agents' threads and stepping into one (a loop stopped from the phone).
        | Command::Threads(_)
        | Command::Thread(_)
        | Command::CloseThread(_)
        | Command::ReopenThread(_) => true,
        // An answer, but never one that raises the agent's permission mode: that is the desktop's.
        Command::Answer(answer) => !answer.raises_mode(),
        // Another machine's agent: what may be done to it is what may be done to one here.
        Command::OnMachine(on) => {
            !matches!(*on.forward, Command::OnMachine(_)) && may_run(&on.forward)
        }
        Command::AddAgent(_)
        | Command::Spawn(_)
        | Command::Terminate(_)
        | Command::Restart(_)
        | Command::SetModel(_)
        | Command::SetEffort(_)
        | Command::SlashCommands(_)
        | Command::Slash(_)
        | Command::ResumeInterrupted(_)
        | Command::Preferences(_)
        | Command::SetPreferences(_)
        | Command::Explain(_)
        | Command::Report(_)
        | Command::Import(_)
        | Command::VoiceSettings(_)
        | Command::SetVoiceSettings(_)
        | Command::VoiceModels(_)
        | Command::DownloadModel(_)
        | Command::DownloadVoice(_)
        | Command::CancelDownload(_)
        | Command::WarmVoice(_)
        | Command::Hear(_)
        | Command::Repository(_)
        | Command::Worktrees(_)
        | Command::RemoveWorktree(_)
        | Command::Merge(_)
        | Command::SearchSessions(_)
        | Command::Machines(_)
        | Command::MachineAdd(_)
        | Command::MachineRemove(_)
        | Command::UsageContinue(_)
        | Command::Phone(_)
        | Command::SetPhone(_)
        | Command::SetPhoneAddress(_)
        | Command::SetPushContact(_)
        | Command::PhonePair(_)
        | Command::PhoneRevoke(_)
        | Command::Present(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(json: &str) -> Result<Command, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn a_phone_answers_but_never_raises_the_permission_mode() {
        let answer = |mode: &str| {
            command(&format!(
                r#"{{"command":"answer","session_id":"sky","request_id":"r1","decision":"allow"{mode}}}"#
            ))
        };
        assert!(may_run(&answer("").unwrap()));
        assert!(may_run(&answer(r#","mode":"default""#).unwrap()));
        assert!(!may_run(&answer(r#","mode":"acceptEdits""#).unwrap()));
        assert!(!may_run(&answer(r#","mode":"auto""#).unwrap()));
        // Never asking, or planning again, is no plan's approval for anyone: refused where it is read.
        for never in ["bypassPermissions", "plan"] {
            let refused = answer(&format!(r#","mode":"{never}""#)).unwrap_err();
            assert!(refused.to_string().contains("unknown variant"), "{refused}");
        }
        // Nor through another machine's agent.
        let forwarded = command(
            r#"{"command":"on_machine","machine":"box","forward":{"command":"answer","session_id":"sky","request_id":"r1","decision":"allow","mode":"acceptEdits"}}"#,
        );
        assert!(!may_run(&forwarded.unwrap()));
    }
}
