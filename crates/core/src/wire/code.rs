//! The error codes of the wire: every `{"code": ..., "message": ...}` the hub answers names one of these.
//!
//! One list, so a code is spelled once: the hub builds its errors from it, the HTTP layer picks each code's
//! status in one match, the CLI and the UI compare against it (the UI's copy in `ui/js/names.js` is checked
//! against [`Code::ALL`] by a test).

/// Declares the codes with their wire names, [`Code::ALL`] and [`Code::as_str`] from one table.
macro_rules! codes {
    ($($(#[doc = $doc:literal])+ $variant:ident = $name:literal,)+) => {
        /// A stable, machine-readable error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)+];

            /// The code's name on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)+
                }
            }
        }
    };
}

codes! {
    // The request itself.
    /// The request body is not JSON, or not the JSON expected.
    MalformedJson = "malformed_json",
    /// A hook payload is JSON but misses a field or has one of the wrong type.
    MalformedEvent = "malformed_event",
    /// A hook event ClawMux has no rule for (stored, harmless).
    UnknownEvent = "unknown_event",
    /// The request body could not be read.
    BadBody = "bad_body",
    /// The request body is over the hub's limit.
    BodyTooLarge = "body_too_large",
    /// A query string that does not parse.
    BadQuery = "bad_query",
    /// The `ClawMux-Session` header is not text.
    BadSessionHeader = "bad_session_header",
    /// A request that must name its agent did not.
    MissingSession = "missing_session",
    /// No route by that path, or no page by that name.
    NotFound = "not_found",
    // Who may ask.
    /// Missing or wrong token.
    Unauthorized = "unauthorized",
    /// A `Host` header that is not the hub's own (DNS rebinding).
    BadHost = "bad_host",
    /// An `Origin` that is not the hub's page or the app.
    BadOrigin = "bad_origin",
    /// A paired phone asked for what only the desktop may do (settings, machines, pairing, terminals).
    NotForPhones = "not_for_phones",
    /// Phones are turned off: no pairing, and no phone is let in.
    PhonesOff = "phones_off",
    /// A pairing code that is wrong, expired or used already.
    BadPairingCode = "bad_pairing_code",
    /// No paired phone by that id.
    UnknownPhone = "unknown_phone",
    /// An address for phones that is not one: every interface, a host name that is not one, a
    /// certificate or key that cannot be read or served, a key others can read.
    BadPhoneAddress = "bad_phone_address",
    /// A contact for push services that is not a `mailto:` or `https:` address.
    BadPushContact = "bad_push_contact",
    /// A phone's push subscription that is not one (an address that is not a push service's, keys that
    /// are not keys).
    BadSubscription = "bad_subscription",
    // Agents.
    /// No agent by that name.
    UnknownAgent = "unknown_agent",
    /// An agent by that name exists already.
    AgentExists = "agent_exists",
    /// The agent name is not acceptable.
    BadAgentName = "bad_agent_name",
    /// The work folder is missing, relative, or cannot be made.
    BadWorkDir = "bad_work_dir",
    /// The agent has been terminated.
    AgentDead = "agent_dead",
    /// The agent is not running, so it cannot be ended or interrupted.
    NotRunning = "not_running",
    /// The agent was not started by ClawMux, so ClawMux cannot start or end it.
    NotManaged = "not_managed",
    /// Claude Code has not been trusted with the work folder: the user must say so first.
    FolderNotTrusted = "folder_not_trusted",
    /// The `claude` command is not installed.
    ClaudeMissing = "claude_missing",
    /// `tmux` is not installed.
    TmuxMissing = "tmux_missing",
    /// `tmux` refused a command.
    TmuxFailed = "tmux_failed",
    /// An agent's stored launch cannot be read.
    CorruptLaunch = "corrupt_launch",
    /// A model name Claude Code would not take (letters, digits, `.`, `-`, `_`, `[`, `]`; 64 at most).
    BadModel = "bad_model",
    /// A slash command the agent does not know, or not one line.
    BadSlashCommand = "bad_slash_command",
    /// The agent is starting or working: starting it again now would cut that off.
    AgentBusy = "agent_busy",
    /// An agent's process could not be ended.
    TerminateFailed = "terminate_failed",
    // Worktrees.
    /// A worktree was asked for in a folder that is not in a git repository.
    NotARepository = "not_a_repository",
    /// A worktree's base names no commit.
    BadBase = "bad_base",
    /// The repository has no branch checked out (a detached HEAD) and no base was named.
    DetachedHead = "detached_head",
    /// The agent's branch (`clawmux/<agent>`) exists already.
    BranchExists = "branch_exists",
    /// A folder is already where the agent's worktree would go.
    WorktreeExists = "worktree_exists",
    /// The agent has no worktree of its own.
    NoWorktree = "no_worktree",
    /// `git` is not installed.
    GitMissing = "git_missing",
    /// `git` refused what was asked (what it said is the message).
    GitFailed = "git_failed",
    /// The agent's work is not all committed, so its branch is not all of it.
    Uncommitted = "uncommitted",
    /// The agent's branch has no commit its base lacks.
    NothingToMerge = "nothing_to_merge",
    /// The agent's branch and its base change the same lines: nothing was merged.
    MergeConflict = "merge_conflict",
    /// The checkout the base is in has changes of its own (or a merge under way).
    BaseDirty = "base_dirty",
    /// A worktree holds work that is not committed, or commits in no other branch: it is removed only
    /// when the user says to discard them.
    UnsavedWork = "unsaved_work",
    /// The agent still runs in its worktree: it must end first.
    AgentRunning = "agent_running",
    // Terminals.
    /// The agent has no terminal ClawMux can show (it was not started by ClawMux).
    NoTerminal = "no_terminal",
    /// A terminal size out of bounds.
    BadTerminalSize = "bad_terminal_size",
    /// No terminal viewer by that id (it was closed).
    NoSuchViewer = "no_such_viewer",
    // Messages.
    /// An empty message.
    EmptyMessage = "empty_message",
    /// A message over the size limit.
    MessageTooLarge = "message_too_large",
    /// A file that cannot be attached: empty, a folder, an image the model cannot take, too many files.
    BadAttachment = "bad_attachment",
    /// A file over the attachment size limit.
    AttachmentTooLarge = "attachment_too_large",
    /// A message names a file the hub does not keep (never attached, or gone since).
    UnknownAttachment = "unknown_attachment",
    /// Not a message id.
    BadMessageId = "bad_message_id",
    /// Not a cursor (a message id).
    BadCursor = "bad_cursor",
    /// The agent is not waiting for that answer (any more).
    NotPending = "not_pending",
    /// A dismissal, but what the agent needs was not raised by a notice alone.
    NotDismissable = "not_dismissable",
    /// A cursor that names no message of that conversation.
    UnknownCursor = "unknown_cursor",
    /// A reply or acknowledgement to a message that does not exist.
    UnknownParent = "unknown_parent",
    /// An idempotency key sent again with different content.
    IdempotencyConflict = "idempotency_conflict",
    // Between agents.
    /// An agent's message to itself.
    ToItself = "to_itself",
    /// The thread between the two agents is closed: the user reopens it.
    ThreadClosed = "thread_closed",
    /// The thread had as many turns in the last hour as the limit allows.
    ThreadLimit = "thread_limit",
    // The board.
    /// No item of the board by that number.
    UnknownTask = "unknown_task",
    /// A title that is empty or too long, or a body too long.
    BadTask = "bad_task",
    /// The board's rule refused the move (another agent has the item, it is done, ...).
    TaskRefused = "task_refused",
    /// A lead's answer it may not give (not its member's, a tool not listed, a dangerous call).
    NotLead = "not_lead",
    /// A history file of the original product that cannot be imported.
    BadHistory = "bad_history",
    /// No diagnostic log by that name.
    UnknownLog = "unknown_log",
    // Voice.
    /// The voice settings are not acceptable (an address that is not http(s), ...).
    BadVoiceSettings = "bad_voice_settings",
    /// The saved voice settings file cannot be read.
    VoiceSettingsUnreadable = "voice_settings_unreadable",
    /// No transcription or speech service is set.
    VoiceNotConfigured = "voice_not_configured",
    /// The voice service did not answer.
    VoiceServiceUnreachable = "voice_service_unreachable",
    /// The transcription service refused the recording or answered nonsense.
    TranscriptionFailed = "transcription_failed",
    /// The speech service failed.
    SpeechFailed = "speech_failed",
    /// The on-device engine's model is not downloaded yet.
    ModelNotDownloaded = "model_not_downloaded",
    /// The on-device engine's model cannot be loaded or run.
    ModelUnusable = "model_unusable",
    /// The device's voice (text to speech) is not downloaded yet.
    VoiceNotDownloaded = "voice_not_downloaded",
    /// A model download failed (the server, the network, a wrong file).
    DownloadFailed = "download_failed",
    /// A model download was cancelled.
    DownloadCancelled = "download_cancelled",
    /// A model download is under way already.
    DownloadInProgress = "download_in_progress",
    /// The transcription is empty: nothing was said.
    NothingHeard = "nothing_heard",
    /// Text to speak that is empty or too long.
    BadText = "bad_text",
    /// The body is not audio.
    NotAudio = "not_audio",
    /// The recording is empty.
    EmptyRecording = "empty_recording",
    /// Not a recording id.
    BadRecordingId = "bad_recording_id",
    /// No recording by that id is kept.
    NoSuchRecording = "no_such_recording",
    /// A recording is under way already.
    AlreadyRecording = "already_recording",
    /// No recording is under way.
    NotRecording = "not_recording",
    /// No microphone can be used.
    NoMicrophone = "no_microphone",
    /// The microphone failed while recording.
    RecordingFailed = "recording_failed",
    /// A file could not be saved.
    CannotSave = "cannot_save",
    // Other machines.
    /// A machine's name or address is not acceptable.
    BadMachine = "bad_machine",
    /// No machine by that name.
    UnknownMachine = "unknown_machine",
    /// A machine by that name is in the list already.
    MachineExists = "machine_exists",
    /// The machine could not be reached, or its link broke.
    MachineUnreachable = "machine_unreachable",
    // The hub itself.
    /// The hub could not start.
    Startup = "startup",
    /// The hub is not serving yet.
    NotServing = "not_serving",
    /// The desktop app's hub is not available.
    HubUnavailable = "hub_unavailable",
    /// A stored row the code does not understand.
    CorruptStore = "corrupt_store",
    /// SQLite failed.
    Database = "database",
    /// A failure of the hub's own.
    Internal = "internal",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = String;

    fn from_str(s: &str) -> Result<Code, String> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| format!("unknown error code `{s}`"))
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_own_name_and_reads_back() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len(), "two codes share a name");
        for &c in Code::ALL {
            assert_eq!(c.as_str().parse::<Code>(), Ok(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        assert!("no_such_code".parse::<Code>().is_err());
    }
}
