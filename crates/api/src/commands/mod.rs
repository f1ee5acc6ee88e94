//! The UI's command surface, declared once, each command paired with its answer.
//!
//! Everything the user's window can ask of the hub is a [`Command`]: a type per command, each naming the
//! type it answers ([`Request::Reply`]), as zed's protocol pairs every request with its response. A client
//! sends a request and reads back its `Reply`: the compiler, not the call site, knows the answer; and the
//! hub, whose handler of each command must return that type, runs the same table ([`with_commands!`]).
//! HTTP, the browser's WebSocket and the window's IPC carry the same enum. (The agent side, hooks, `send`
//! and `wait`, is the agent protocol's own surface, `docs/PROTOCOL.md`.)

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub mod agents;
pub mod asks;
pub mod between;
pub mod board;
pub mod hands_free;
pub mod leads;
pub mod machines;
pub mod messages;
pub mod phone;
pub mod search;
pub mod usage;
pub mod voice;
pub mod worktrees;

pub use agents::{
    AddAgent, Capabilities, Doctor, Import, Interrupt, Preferences, Restart, ResumeInterrupted,
    Sessions, SetEffort, SetModel, SetPreferences, Slash, SlashCommands, Terminate,
};
pub use asks::{Dismiss, Explain};
pub use between::{
    CloseThread, ForMachine, FromMachine, ReopenThread, Thread, ThreadReply, Threads,
    FOR_MACHINE_PAGE, THREAD_PAGE,
};
pub use board::{Board, HandOver, HandedOver, TaskAdd, TaskMove, BOARD_PAGE};
pub use hands_free::Hear;
pub use leads::{Leads, RevokeLead, SetLead};
pub use machines::{MachineAdd, MachineRemove, Machines, OnMachine};
pub use messages::{
    Attach, AttachmentImage, History, Image, MarkRead, Page, Sent, UserMessage, DEFAULT_PAGE,
    MAX_PAGE,
};
pub use phone::{
    Phone, PhonePair, PhoneRevoke, Present, SetPhone, SetPhoneAddress, SetPushContact,
};
pub use search::SearchSessions;
pub use usage::{Usage, UsageContinue};
pub use voice::{
    CancelDownload, DownloadModel, DownloadVoice, Downloading, SetVoiceSettings, VoiceModels,
    VoiceSettings, WarmVoice,
};
pub use worktrees::{Changes, Merge, RemoveWorktree, Repository, Worktrees};

/// A command of the UI's surface: what it answers, and its name on the wire.
pub trait Request: Serialize + DeserializeOwned + Into<Command> {
    /// The type the hub answers it with.
    type Reply: Serialize + DeserializeOwned;
    /// Its `command` name.
    const NAME: CommandName;
}

/// The answer of a command that has nothing to tell: `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {}

/// The table of the surface: each command, the type of its request and the type it answers, handed to
/// `$callback` (a macro taking `$(#[doc] Variant(Request) -> Reply;)*`). This crate makes the enum, its
/// names and the pairing from it; the hub makes its router (`Hub::dispatch`) from the same list, so a
/// command cannot be added to one and not the other.
#[macro_export]
macro_rules! with_commands {
    ($callback:ident) => {
        $callback! {
            /// Every agent as the sidebar shows it.
            Sessions($crate::commands::Sessions) -> Vec<$crate::session::SessionInfo>;
            /// Registers an agent (no process), with its work folder.
            AddAgent($crate::commands::AddAgent) -> $crate::session::SessionInfo;
            /// The user's message to an agent.
            UserMessage($crate::commands::UserMessage) -> $crate::commands::Sent;
            /// Keeps a file the user attaches to a message for an agent (sent next with `user_message`).
            Attach($crate::commands::Attach) -> ::clawmux_core::wire::Attachment;
            /// A kept image's bytes, for its thumbnail where the hub's HTTP route cannot be reached.
            AttachmentImage($crate::commands::AttachmentImage) -> $crate::commands::Image;
            /// The user has read a conversation up to a message.
            MarkRead($crate::commands::MarkRead) -> $crate::commands::Done;
            /// Starts a new agent (Claude Code, or the demo agent) in its own terminal.
            Spawn($crate::lifecycle::SpawnRequest) -> $crate::session::SessionInfo;
            /// Ends an agent's processes; its history stays.
            Terminate($crate::commands::Terminate) -> $crate::session::SessionInfo;
            /// Starts an agent again, resuming its conversation.
            Restart($crate::commands::Restart) -> $crate::session::SessionInfo;
            /// Sets the model an agent runs and starts it again with it.
            SetModel($crate::commands::SetModel) -> $crate::session::SessionInfo;
            /// Sets how hard the agent's model thinks.
            SetEffort($crate::commands::SetEffort) -> $crate::session::SessionInfo;
            /// The slash commands an agent knows.
            SlashCommands($crate::commands::SlashCommands) -> Vec<$crate::lifecycle::SlashCommand>;
            /// Types a slash command at the agent's prompt.
            Slash($crate::commands::Slash) -> $crate::commands::Done;
            /// Starts the agents found interrupted at this start, one every few seconds.
            ResumeInterrupted($crate::commands::ResumeInterrupted) -> Vec<String>;
            /// The hub's preferences.
            Preferences($crate::commands::Preferences) -> $crate::lifecycle::Preferences;
            /// Saves the hub's preferences.
            SetPreferences($crate::commands::SetPreferences) -> $crate::lifecycle::Preferences;
            /// Presses Escape in the agent's terminal.
            Interrupt($crate::commands::Interrupt) -> $crate::commands::Done;
            /// The user's answer to what an agent needs: its open permission, question or plan request.
            Answer($crate::asks::AnswerRequest) -> $crate::commands::Done;
            /// Why the agent's indicator says what it says (`clawmux explain`).
            Explain($crate::commands::Explain) -> ::clawmux_core::explain::Explanation;
            /// Dismisses a "needs you" that only a notice raised.
            Dismiss($crate::commands::Dismiss) -> $crate::commands::Done;
            /// A case file of a wrong indicator ("This looks wrong", `clawmux report`).
            Report($crate::explain::ReportRequest) -> $crate::explain::Report;
            /// Whether Claude Code and tmux are installed.
            Capabilities($crate::commands::Capabilities) -> $crate::lifecycle::Capabilities;
            /// What `clawmux doctor` finds on the hub's machine, each with its fix.
            Doctor($crate::commands::Doctor) -> Vec<$crate::doctor::Check>;
            /// Imports the conversations of an original installation found in the data folder.
            Import($crate::commands::Import) -> Vec<$crate::import::AgentImport>;
            /// Where the voice services are (the key only as set or not).
            VoiceSettings($crate::commands::VoiceSettings) -> $crate::voice::PublicSettings;
            /// Saves where the voice services are.
            SetVoiceSettings($crate::commands::SetVoiceSettings) -> $crate::voice::PublicSettings;
            /// The speech models the device can use.
            VoiceModels($crate::commands::VoiceModels) -> $crate::voice::Models;
            /// Starts downloading a speech model.
            DownloadModel($crate::commands::DownloadModel) -> $crate::commands::Downloading;
            /// Starts downloading a voice for the device to speak with.
            DownloadVoice($crate::commands::DownloadVoice) -> $crate::commands::Done;
            /// Cancels the download under way.
            CancelDownload($crate::commands::CancelDownload) -> $crate::commands::Done;
            /// Loads the speech model now: the user has started talking.
            WarmVoice($crate::commands::WarmVoice) -> $crate::commands::Done;
            /// Hands-free: what the user said (its words), understood without a model.
            Hear($crate::commands::Hear) -> $crate::hands_free::Heard;
            /// A page of a conversation: the latest, after a cursor, or before one.
            History($crate::commands::History) -> $crate::commands::Page;
            /// What an agent with a worktree of its own changed (`clawmux diff`).
            Changes($crate::commands::Changes) -> $crate::worktree::ChangesReply;
            /// The git repository a folder is in, its branch and the agents working in it.
            Repository($crate::commands::Repository) -> $crate::worktree::Repository;
            /// Every agent's worktree with what it holds (`clawmux worktree list`).
            Worktrees($crate::commands::Worktrees) -> Vec<$crate::worktree::Listed>;
            /// Removes an agent's worktree and branch (`clawmux worktree remove`).
            RemoveWorktree($crate::commands::RemoveWorktree) -> $crate::worktree::Held;
            /// Merges an agent's branch into its base (`clawmux merge`).
            Merge($crate::commands::Merge) -> $crate::worktree::Merged;
            /// Every agent's figures, the account's limits and the use per day (`clawmux usage`).
            Usage($crate::commands::Usage) -> $crate::usage::UsageReply;
            /// Messages found by their words (`clawmux search`, Ctrl+K), newest first.
            Search($crate::search::SearchRequest) -> $crate::search::SearchReply;
            /// Whether the user's own Claude Code sessions are searched too.
            SearchSessions($crate::commands::SearchSessions) -> $crate::commands::Done;
            /// The other machines, their links and their agents as last seen.
            Machines($crate::commands::Machines) -> Vec<$crate::machines::MachineInfo>;
            /// Adds another machine, reached over the user's ssh, and follows it.
            MachineAdd($crate::commands::MachineAdd) -> Vec<$crate::machines::MachineInfo>;
            /// Forgets a machine (its hub and agents go on there).
            MachineRemove($crate::commands::MachineRemove) -> Vec<$crate::machines::MachineInfo>;
            /// A command for another machine's hub, forwarded whole; its answer as that hub gave it.
            OnMachine($crate::commands::OnMachine) -> ::serde_json::Value;
            /// Whether an agent is continued when the usage limit that stopped it resets.
            UsageContinue($crate::commands::UsageContinue) -> $crate::commands::Done;
            /// Whether phones may reach the hub, and the phones paired.
            Phone($crate::commands::Phone) -> $crate::phone::PhoneStatus;
            /// Lets phones reach the hub, or shuts every phone out (`clawmux phone on|off`).
            SetPhone($crate::commands::SetPhone) -> $crate::phone::PhoneStatus;
            /// Where the hub listens for phones itself, over TLS, or nowhere beyond loopback.
            SetPhoneAddress($crate::commands::SetPhoneAddress) -> $crate::phone::PhoneStatus;
            /// Who runs the hub, as pushes name it to push services (`clawmux phone contact`).
            SetPushContact($crate::commands::SetPushContact) -> $crate::phone::PhoneStatus;
            /// A pairing link for a new phone, with a one-time code that expires in minutes.
            PhonePair($crate::commands::PhonePair) -> $crate::phone::Pairing;
            /// Revokes a paired phone at once.
            PhoneRevoke($crate::commands::PhoneRevoke) -> $crate::phone::PhoneStatus;
            /// A desktop window says whether the user is at it (its focus).
            Present($crate::commands::Present) -> $crate::commands::Done;
            /// Every thread between two agents, the latest first.
            Threads($crate::commands::Threads) -> Vec<::clawmux_core::between::ThreadSummary>;
            /// One thread's last messages, each with its delivery.
            Thread($crate::commands::Thread) -> Vec<::clawmux_core::between::Passed>;
            /// The user closes a thread between two agents.
            CloseThread($crate::commands::CloseThread) -> $crate::commands::Done;
            /// The user reopens a closed thread.
            ReopenThread($crate::commands::ReopenThread) -> $crate::commands::Done;
            /// The user's word in a thread between two agents, to one of them.
            ThreadReply($crate::commands::ThreadReply) -> $crate::commands::Sent;
            /// Another machine's hub carries its agent's message to an agent here.
            FromMachine($crate::commands::FromMachine) -> $crate::commands::Sent;
            /// Another machine's hub takes the answers this machine's agents sent to its agents.
            ForMachine($crate::commands::ForMachine) -> Vec<::clawmux_core::wire::MessageOut>;
            /// The items of the shared board, the newest first.
            Board($crate::commands::Board) -> Vec<::clawmux_core::board::Task>;
            /// The user adds an item to the board.
            TaskAdd($crate::commands::TaskAdd) -> ::clawmux_core::board::Task;
            /// The user moves an item of the board.
            TaskMove($crate::commands::TaskMove) -> ::clawmux_core::board::Task;
            /// The user hands an agent's work to another.
            HandOver($crate::commands::HandOver) -> $crate::commands::HandedOver;
            /// Every lead's grant, by member.
            Leads($crate::commands::Leads) -> Vec<::clawmux_core::lead::Grant>;
            /// The user makes an agent the lead of others, for the tools listed.
            SetLead($crate::commands::SetLead) -> Vec<::clawmux_core::lead::Grant>;
            /// The user takes a lead's right back.
            RevokeLead($crate::commands::RevokeLead) -> Vec<::clawmux_core::lead::Grant>;
        }
    };
}

/// Makes the enum, its names and the pairing from the table.
macro_rules! define_commands {
    ($( $(#[$doc:meta])* $variant:ident($request:ty) -> $reply:ty; )*) => {
        /// A request from the user's window. Its `command` names, as [`CommandName`], are the list the
        /// UI's `names.js` is checked against.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
        #[serde(tag = "command", rename_all = "snake_case")]
        #[strum_discriminants(
            name(CommandName),
            doc = "The name of a [`Command`], as the UI sends it.",
            derive(serde::Serialize, strum::EnumIter, strum::IntoStaticStr),
            serde(rename_all = "snake_case"),
            strum(serialize_all = "snake_case")
        )]
        pub enum Command {
            $( $(#[$doc])* $variant($request), )*
        }

        $(
            impl Request for $request {
                type Reply = $reply;
                const NAME: CommandName = CommandName::$variant;
            }

            impl From<$request> for Command {
                fn from(request: $request) -> Command {
                    Command::$variant(request)
                }
            }
        )*
    };
}

with_commands!(define_commands);
