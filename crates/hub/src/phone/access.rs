//! What a paired phone may do: what the window does to agents (read, send, answer, interrupt, attach),
//! never raising an agent's permission mode, and nothing that changes the hub (settings, machines, pairing, starting or ending agents) or runs a
//! program (a terminal). The desktop's token may do everything; a phone's token is checked here, by route
//! and, for the command surface, by command: a command is the phone's only if it is listed for phones, and
//! a test requires every command to be in one list or the other, so a new one is placed on purpose.

use axum::http::Method;

use crate::commands::{Command, CommandName};

/// Who is asking over HTTP: the desktop (its token) or a paired phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// The install's own token: the window, the browser UI on this machine, the `clawmux` command.
    Desktop,
    /// A paired phone.
    Phone(super::PhoneId),
}

/// The routes a phone may take: the command route, whose command is then checked ([`may_run`]), and the
/// few that carry bytes (a file, a recording, a push subscription) for what a phone does to an agent. (The
/// REST names of commands, `http/aliases.rs`, are the command route under other names: the guard lets
/// them through to the same check.)
pub fn may_take(method: &Method, path: &str) -> bool {
    if path == "/api/command" && *method == Method::POST {
        return true;
    }
    let bytes_of = |tail: &str| {
        path.strip_prefix("/api/sessions/")
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(id, rest)| !id.is_empty() && rest == tail)
    };
    match *method {
        Method::GET => {
            path == "/ws" || path == "/api/phone/push-key" || path.starts_with("/api/attachments/")
        }
        Method::POST => path == "/api/phone/push" || bytes_of("attachments") || bytes_of("voice"),
        _ => false,
    }
}

/// The commands a phone may run: what the window does to agents. An answer and a command forwarded to
/// another machine's agent are checked further (`may_run`).
const FOR_PHONES: &[CommandName] = &[
    CommandName::Sessions,
    CommandName::UserMessage,
    CommandName::Attach,
    CommandName::AttachmentImage,
    CommandName::MarkRead,
    CommandName::Interrupt,
    CommandName::Dismiss,
    CommandName::History,
    CommandName::Changes,
    CommandName::Usage,
    CommandName::Search,
    CommandName::Capabilities,
    CommandName::Answer,
    CommandName::OnMachine,
    // Following the agents' threads and stepping into one (a loop stopped from the phone).
    CommandName::Threads,
    CommandName::Thread,
    CommandName::CloseThread,
    CommandName::ReopenThread,
    CommandName::ThreadReply,
    // The board: read, and an item added, given or finished away from the desk.
    CommandName::Board,
    CommandName::TaskAdd,
    CommandName::TaskMove,
    CommandName::HandOver,
    // A lead's right: read it and take it back from the phone; giving it is the desktop's.
    CommandName::Leads,
    CommandName::RevokeLead,
];

/// Whether a phone may run `command`: one of [`FOR_PHONES`]; an answer never one that raises the agent's
/// permission mode (that is the desktop's); another machine's agent only what may be done to one here.
pub fn may_run(command: &Command) -> bool {
    if let Command::Answer(answer) = command {
        return !answer.raises_mode();
    }
    if let Command::OnMachine(on) = command {
        return !matches!(*on.forward, Command::OnMachine(_)) && may_run(&on.forward);
    }
    FOR_PHONES.contains(&CommandName::from(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(json: &str) -> Result<Command, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// The commands only the desktop runs: they change the hub (settings, machines, pairing, voice models),
    /// start or end agents, or run a program. Every command is in this list or [`FOR_PHONES`].
    const DESKTOP_ONLY: &[CommandName] = &[
        // Another machine's hub over the user's ssh, never a phone.
        CommandName::FromMachine,
        CommandName::ForMachine,
        CommandName::AddAgent,
        CommandName::Spawn,
        CommandName::Terminate,
        CommandName::Restart,
        CommandName::SetModel,
        CommandName::SetEffort,
        CommandName::SlashCommands,
        CommandName::Slash,
        CommandName::ResumeInterrupted,
        CommandName::Preferences,
        CommandName::SetPreferences,
        CommandName::Explain,
        CommandName::Report,
        CommandName::Import,
        // What this machine has and lacks: its programs, folders and devices.
        CommandName::Doctor,
        CommandName::VoiceSettings,
        CommandName::SetVoiceSettings,
        CommandName::VoiceModels,
        CommandName::DownloadModel,
        CommandName::DownloadVoice,
        CommandName::CancelDownload,
        CommandName::WarmVoice,
        CommandName::Hear,
        CommandName::Repository,
        CommandName::Worktrees,
        CommandName::RemoveWorktree,
        CommandName::Merge,
        CommandName::SearchSessions,
        CommandName::Machines,
        CommandName::MachineAdd,
        CommandName::MachineRemove,
        CommandName::UsageContinue,
        CommandName::Phone,
        CommandName::SetPhone,
        CommandName::SetPhoneAddress,
        CommandName::SetPushContact,
        CommandName::PhonePair,
        CommandName::PhoneRevoke,
        CommandName::Present,
        CommandName::SetLead,
    ];

    #[test]
    fn every_command_is_placed_once_for_phones_or_for_the_desktop() {
        use strum::IntoEnumIterator;
        for name in CommandName::iter() {
            let places =
                usize::from(FOR_PHONES.contains(&name)) + usize::from(DESKTOP_ONLY.contains(&name));
            assert_eq!(places, 1, "{name:?} is in {places} lists");
        }
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
