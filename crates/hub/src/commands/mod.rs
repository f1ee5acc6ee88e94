//! The UI's command surface, declared once, each command paired with its answer.
//!
//! Everything the user's window can ask of the hub is a [`Command`] of the protocol (`clawmux_api`): a type
//! per command, each naming the type it answers ([`Request::Reply`]). [`Hub::dispatch`] is the router, made
//! from the protocol's own table, each command handled (`Handle`) in the file of its feature (`agents.rs`,
//! `messages.rs`, ...) with the type it is paired with. HTTP, the browser's WebSocket and the window's IPC
//! carry the same enum, so each operation is written once whatever the transport.

use serde::Serialize;

use clawmux_core::wire::Code;

use crate::error::HubError;
use crate::hub::Hub;

mod agents;
mod asks;
mod between;
mod board;
mod hands_free;
mod leads;
mod machines;
mod messages;
mod phone;
mod search;
mod terminals;
mod usage;
mod voice;
mod worktrees;

pub use clawmux_api::commands::{
    AddAgent, Attach, AttachmentImage, CancelDownload, Capabilities, Changes, Command, CommandName,
    Dismiss, Done, DownloadModel, DownloadVoice, Downloading, Explain, Hear, History, Image,
    Import, Interrupt, MachineAdd, MachineRemove, Machines, MarkRead, Merge, OnMachine, Page,
    Phone, PhonePair, PhoneRevoke, Preferences, Present, RemoveWorktree, Repository, Request,
    Restart, ResumeInterrupted, SearchSessions, Sent, Sessions, SetEffort, SetModel, SetPhone,
    SetPhoneAddress, SetPreferences, SetPushContact, SetVoiceSettings, Slash, SlashCommands,
    Terminate, Usage, UsageContinue, UserMessage, VoiceModels, VoiceSettings, WarmVoice, Worktrees,
    DEFAULT_PAGE, MAX_PAGE,
};
pub use hands_free::hear_voice;

/// How the hub carries a command out: its handler, in the file of its feature.
pub(crate) trait Handle: Request {
    /// Runs the command, its answer the type it is paired with.
    async fn handle(self, hub: &Hub) -> Result<Self::Reply, HubError>;
}

/// The router: `Hub::dispatch` made from the protocol's table (`clawmux_api::with_commands!`), each
/// command handled by its `Handle` impl with the type it is paired with.
macro_rules! dispatch {
    ($( $(#[$doc:meta])* $variant:ident($request:ty) -> $reply:ty; )*) => {
        impl Hub {
            /// Runs a command of the UI's surface: its answer as the JSON every transport sends. Each
            /// command's work is boxed: the router's own future stays small however many commands the
            /// table has (unboxed, it held the largest of them all, and overflowed a thread's stack).
            pub async fn dispatch(&self, command: Command) -> Result<serde_json::Value, HubError> {
                match command {
                    $( Command::$variant(request) => encode(Box::pin(request.handle(self)).await?), )*
                }
            }
        }
    };
}

clawmux_api::with_commands!(dispatch);

/// A reply as the JSON a transport sends.
fn encode<T: Serialize>(reply: T) -> Result<serde_json::Value, HubError> {
    serde_json::to_value(reply).map_err(|e| HubError::new(Code::Internal, e.to_string()))
}
