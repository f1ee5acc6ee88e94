//! The UI's command surface, declared once, each command paired with its answer.
//!
//! Everything the user's window can ask of the hub is a [`Command`]: a type per command, each naming the
//! type it answers ([`Request::Reply`]), as zed's protocol pairs every request with its response. A client
//! sends a request and reads back its `Reply`: the compiler, not the call site, knows the answer, and the
//! hub's handler must return that type. [`Hub::dispatch`] is the router: the table below, each command
//! handled in the file of its feature (`agents.rs`, `messages.rs`, ...). HTTP, the browser's WebSocket and
//! the window's IPC carry the same enum, so each operation is written once whatever the transport. (The
//! agent side, hooks, `send` and `wait`, is the agent protocol's own surface, `docs/PROTOCOL.md`.)

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use clawmux_core::wire::Code;

use crate::error::HubError;
use crate::hub::Hub;

mod agents;
mod asks;
mod hands_free;
mod machines;
mod messages;
mod phone;
mod search;
mod terminals;
mod usage;
mod voice;
mod worktrees;

pub use agents::{
    AddAgent, Capabilities, Import, Interrupt, Preferences, Restart, ResumeInterrupted, Sessions,
    SetEffort, SetModel, SetPreferences, Slash, SlashCommands, Terminate,
};
pub use asks::{Dismiss, Explain};
pub use hands_free::{hear_voice, Hear};
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

/// How the hub carries a command out: its handler, in the file of its feature.
pub(crate) trait Handle: Request {
    /// Runs the command, its answer the type it is paired with.
    async fn handle(self, hub: &Hub) -> Result<Self::Reply, HubError>;
}

/// The answer of a command that has nothing to tell: `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {}

/// The router's table: each command, the type of its request (with its handler) and the type it answers.
/// The enum, its names, the pairing and `dispatch` are all made from this one list.
macro_rules! commands {
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

        impl Hub {
            /// Runs a command of the UI's surface: its answer as the JSON every transport sends.
            pub async fn dispatch(&self, command: Command) -> Result<serde_json::Value, HubError> {
                match command {
                    $( Command::$variant(request) => encode(request.handle(self).await?), )*
                }
            }
        }
    };
}

/// A reply as the JSON a transport sends.
fn encode<T: Serialize>(reply: T) -> Result<serde_json::Value, HubError> {
    serde_json::to_value(reply).map_err(|e| HubError::new(Code::Internal, e.to_string()))
}

commands! {
    /// Every agent as the sidebar shows it.
    Sessions(Sessions) -> Vec<crate::ui_event::SessionInfo>;
    /// Registers an agent (no process), with its work folder.
    AddAgent(AddAgent) -> crate::ui_event::SessionInfo;
    /// The user's message to an agent.
    UserMessage(UserMessage) -> Sent;
    /// Keeps a file the user attaches to a message for an agent (sent next with `user_message`).
    Attach(Attach) -> clawmux_core::wire::Attachment;
    /// A kept image's bytes, for its thumbnail where the hub's HTTP route cannot be reached.
    AttachmentImage(AttachmentImage) -> Image;
    /// The user has read a conversation up to a message.
    MarkRead(MarkRead) -> Done;
    /// Starts a new agent (Claude Code, or the demo agent) in its own terminal.
    Spawn(crate::lifecycle::SpawnRequest) -> crate::ui_event::SessionInfo;
    /// Ends an agent's processes; its history stays.
    Terminate(Terminate) -> crate::ui_event::SessionInfo;
    /// Starts an agent again, resuming its conversation.
    Restart(Restart) -> crate::ui_event::SessionInfo;
    /// Sets the model an agent runs and starts it again with it.
    SetModel(SetModel) -> crate::ui_event::SessionInfo;
    /// Sets how hard the agent's model thinks.
    SetEffort(SetEffort) -> crate::ui_event::SessionInfo;
    /// The slash commands an agent knows.
    SlashCommands(SlashCommands) -> Vec<crate::lifecycle::slash::SlashCommand>;
    /// Types a slash command at the agent's prompt.
    Slash(Slash) -> Done;
    /// Starts the agents found interrupted at this start, one every few seconds.
    ResumeInterrupted(ResumeInterrupted) -> Vec<String>;
    /// The hub's preferences.
    Preferences(Preferences) -> crate::lifecycle::resume::Preferences;
    /// Saves the hub's preferences.
    SetPreferences(SetPreferences) -> crate::lifecycle::resume::Preferences;
    /// Presses Escape in the agent's terminal.
    Interrupt(Interrupt) -> Done;
    /// The user's answer to what an agent needs: its open permission, question or plan request.
    Answer(crate::asks::AnswerRequest) -> Done;
    /// Why the agent's indicator says what it says (`clawmux explain`).
    Explain(Explain) -> clawmux_core::explain::Explanation;
    /// Dismisses a "needs you" that only a notice raised.
    Dismiss(Dismiss) -> Done;
    /// A case file of a wrong indicator ("This looks wrong", `clawmux report`).
    Report(crate::explain::ReportRequest) -> crate::explain::Report;
    /// Whether Claude Code and tmux are installed.
    Capabilities(Capabilities) -> crate::lifecycle::Capabilities;
    /// Imports the conversations of an original installation found in the data folder.
    Import(Import) -> Vec<crate::import::AgentImport>;
    /// Where the voice services are (the key only as set or not).
    VoiceSettings(VoiceSettings) -> clawmux_voice::PublicSettings;
    /// Saves where the voice services are.
    SetVoiceSettings(SetVoiceSettings) -> clawmux_voice::PublicSettings;
    /// The speech models the device can use.
    VoiceModels(VoiceModels) -> crate::voice::Models;
    /// Starts downloading a speech model.
    DownloadModel(DownloadModel) -> Downloading;
    /// Starts downloading a voice for the device to speak with.
    DownloadVoice(DownloadVoice) -> Done;
    /// Cancels the download under way.
    CancelDownload(CancelDownload) -> Done;
    /// Loads the speech model now: the user has started talking.
    WarmVoice(WarmVoice) -> Done;
    /// Hands-free: what the user said (its words), understood without a model.
    Hear(Hear) -> crate::hands_free::Heard;
    /// A page of a conversation: the latest, after a cursor, or before one.
    History(History) -> Page;
    /// What an agent with a worktree of its own changed (`clawmux diff`).
    Changes(Changes) -> crate::worktree::ChangesReply;
    /// The git repository a folder is in, its branch and the agents working in it.
    Repository(Repository) -> crate::worktree::Repository;
    /// Every agent's worktree with what it holds (`clawmux worktree list`).
    Worktrees(Worktrees) -> Vec<crate::worktree::Listed>;
    /// Removes an agent's worktree and branch (`clawmux worktree remove`).
    RemoveWorktree(RemoveWorktree) -> crate::worktree::cleanup::Held;
    /// Merges an agent's branch into its base (`clawmux merge`).
    Merge(Merge) -> crate::worktree::merge::Merged;
    /// Every agent's figures, the account's limits and the use per day (`clawmux usage`).
    Usage(Usage) -> crate::usage::UsageReply;
    /// Messages found by their words (`clawmux search`, Ctrl+K), newest first.
    Search(crate::search::SearchRequest) -> crate::search::SearchReply;
    /// Whether the user's own Claude Code sessions are searched too.
    SearchSessions(SearchSessions) -> Done;
    /// The other machines, their links and their agents as last seen.
    Machines(Machines) -> Vec<crate::machines::MachineInfo>;
    /// Adds another machine, reached over the user's ssh, and follows it.
    MachineAdd(MachineAdd) -> Vec<crate::machines::MachineInfo>;
    /// Forgets a machine (its hub and agents go on there).
    MachineRemove(MachineRemove) -> Vec<crate::machines::MachineInfo>;
    /// A command for another machine's hub, forwarded whole; its answer as that hub gave it.
    OnMachine(OnMachine) -> serde_json::Value;
    /// Whether an agent is continued when the usage limit that stopped it resets.
    UsageContinue(UsageContinue) -> Done;
    /// Whether phones may reach the hub, and the phones paired.
    Phone(Phone) -> crate::phone::PhoneStatus;
    /// Lets phones reach the hub, or shuts every phone out (`clawmux phone on|off`).
    SetPhone(SetPhone) -> crate::phone::PhoneStatus;
    /// Where the hub listens for phones itself, over TLS, or nowhere beyond loopback.
    SetPhoneAddress(SetPhoneAddress) -> crate::phone::PhoneStatus;
    /// Who runs the hub, as pushes name it to push services (`clawmux phone contact`).
    SetPushContact(SetPushContact) -> crate::phone::PhoneStatus;
    /// A pairing link for a new phone, with a one-time code that expires in minutes.
    PhonePair(PhonePair) -> crate::phone::Pairing;
    /// Revokes a paired phone at once.
    PhoneRevoke(PhoneRevoke) -> crate::phone::PhoneStatus;
    /// A desktop window says whether the user is at it (its focus).
    Present(Present) -> Done;
}
