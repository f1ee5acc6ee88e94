//! The UI's command surface, declared once.
//!
//! Everything the user's window can ask of the hub is a [`Command`]; [`Hub::dispatch`] runs it. The HTTP
//! routes and the browser WebSocket translate requests into commands, and the desktop app's `hub` IPC
//! command deserialises the same enum, so each operation is written once whatever the transport. (The agent side,
//! hooks, `send` and `wait`, is the agent protocol's own surface, `docs/PROTOCOL.md`, and stays on its
//! endpoints.)
//!
//! Long: the command surface is one typed table (`Command`, `Reply`) and its router.

use std::path::PathBuf;

use clawmux_core::explain::Explanation;
use clawmux_core::wire::Code;
use clawmux_core::wire::{Attachment, AttachmentRef, MsgId, Said, TermSize, TerminalNotice};
use clawmux_voice::local::LocalModel;
use clawmux_voice::PublicSettings;
use serde::{Deserialize, Serialize};

use crate::asks::AnswerRequest;
use crate::diagnose::{decision_line, event_line, json_lines, Log, MAX_LOG_ROWS};
use crate::error::HubError;
use crate::explain::Report;
use crate::hands_free::HandsFree;
use crate::hub::Hub;
use crate::import::AgentImport;
use crate::lifecycle::{Capabilities, SpawnRequest};
use crate::terminal::Viewer;
use crate::ui_event::{MessageOut, SessionInfo};
use crate::usage::UsageReply;
use crate::voice::Models;
use crate::voice::Spoken;
use crate::worktree::cleanup::Held;
use crate::worktree::merge::Merged;
use crate::worktree::{ChangesReply, Listed, Repository};
use clawmux_core::changes::MergeMode;
use clawmux_core::remote::AgentAddress;

/// The most messages one history page returns.
pub const MAX_PAGE: u32 = 1000;
/// The page size when none is asked for.
pub const DEFAULT_PAGE: u32 = 100;

/// A request from the user's window. Its `command` names, as [`CommandName`], are the list the UI's
/// `names.js` is checked against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
#[strum_discriminants(
    name(CommandName),
    doc = "The name of a [`Command`], as the UI sends it.",
    derive(serde::Serialize, strum::EnumIter, strum::IntoStaticStr),
    serde(rename_all = "snake_case"),
    strum(serialize_all = "snake_case")
)]
pub enum Command {
    /// Every agent as the sidebar shows it. (A struct variant with no fields, not a unit variant: serde
    /// ignores unknown fields on unit variants of a tagged enum, and no transport may pass those on.)
    Sessions {},
    /// Registers an agent (no process), with its work folder.
    AddAgent {
        /// A plain identifier.
        name: String,
        /// Absolute; default `<data dir>/agents/<name>`.
        work_dir: Option<PathBuf>,
    },
    /// The user's message to an agent.
    UserMessage {
        /// The agent.
        session_id: String,
        /// The text.
        text: String,
        /// Transcribed speech rather than typed.
        #[serde(default)]
        voice: bool,
        /// Files kept for it with `attach`, in order (the text may then be empty).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<AttachmentRef>,
        /// The client's id for this message: a retry with it stores nothing new.
        client_id: Option<String>,
    },
    /// Keeps a file the user attaches to a message for an agent (sent next with `user_message`): what
    /// the hub found it to be.
    Attach {
        /// The agent it is for (the file is kept on that agent's machine).
        session_id: String,
        /// The file's name, as the user's system gave it.
        name: String,
        /// Its bytes, in standard base64.
        data: String,
    },
    /// A kept image's bytes, for its thumbnail where the hub's HTTP route cannot be reached: an agent on
    /// another machine (this command is forwarded whole to the hub that keeps the file).
    AttachmentImage {
        /// The file's id, as `attach` answered it.
        id: String,
    },
    /// The user has read a conversation up to a message.
    MarkRead {
        /// The agent.
        session_id: String,
        /// The last message read.
        up_to: String,
    },
    /// Starts a new agent (Claude Code, or the demo agent) in its own terminal.
    Spawn(SpawnRequest),
    /// Ends an agent's processes; its history stays.
    Terminate {
        /// The agent.
        session_id: String,
    },
    /// Starts an agent again, resuming its conversation.
    Restart {
        /// The agent.
        session_id: String,
    },
    /// Sets the model an agent runs and starts it again with it, its conversation resumed.
    SetModel {
        /// The agent.
        session_id: String,
        /// Claude Code's model name or alias (`opus`, `sonnet`, `haiku`); none: its default.
        model: Option<String>,
    },
    /// Sets how hard the agent's model thinks; a running agent starts again with it, its conversation
    /// resumed. Refused while it works.
    SetEffort {
        /// The agent.
        session_id: String,
        /// Claude Code's effort level; none: its default.
        effort: Option<crate::lifecycle::flags::Effort>,
    },
    /// The slash commands an agent knows: Claude Code's own offered here, and the user's custom ones.
    SlashCommands {
        /// The agent.
        session_id: String,
    },
    /// Types a slash command (`/compact`, `/clear`, a custom one, with its arguments) at the agent's
    /// prompt, its wait interrupted first. Refused while it works or shows a dialog.
    Slash {
        /// The agent.
        session_id: String,
        /// `/name` and its arguments, one line.
        text: String,
    },
    /// Starts the agents found interrupted at this start (the machine or the hub stopped under them) and
    /// not resumed, one every few seconds: `clawmux resume --all`.
    ResumeInterrupted {},
    /// The hub's preferences (whether interrupted agents are resumed at start).
    Preferences {},
    /// Saves the hub's preferences.
    SetPreferences {
        /// The preferences.
        preferences: crate::lifecycle::resume::Preferences,
    },
    /// Presses Escape in the agent's terminal.
    Interrupt {
        /// The agent.
        session_id: String,
    },
    /// The user's answer to what an agent needs: its open permission, question or plan request.
    Answer(AnswerRequest),
    /// Why the agent's indicator says what it says (`clawmux explain`).
    Explain {
        /// The agent.
        session_id: String,
    },
    /// Dismisses a "needs you" that only a notice raised (no later hook would close it).
    Dismiss {
        /// The agent.
        session_id: String,
    },
    /// A case file of a wrong indicator ("This looks wrong", `clawmux report`).
    Report(crate::explain::ReportRequest),
    /// Whether Claude Code and tmux are installed (the UI offers the demo agent when Claude Code is not).
    Capabilities {},
    /// Imports the conversations of an original installation found in the data folder.
    Import {},
    /// Where the voice services are (the key only as set or not).
    VoiceSettings {},
    /// Saves where the voice services are.
    SetVoiceSettings {
        /// The settings.
        settings: crate::voice::VoiceSettings,
    },
    /// The speech models the device can use: sizes, which are downloaded, which is downloading.
    VoiceModels {},
    /// Starts downloading a speech model (progress on the feed, `model_download`).
    DownloadModel {
        /// `tiny.en`, `base.en` or `small.en`.
        model: clawmux_voice::local::LocalModel,
    },
    /// Starts downloading a voice for the device to speak with (progress on the feed, `voice_download`).
    DownloadVoice {
        /// `en_US-joe-medium`.
        voice: crate::voice::LocalVoice,
    },
    /// Cancels the download under way, a model's or a voice's (the partial files are kept).
    CancelDownload {},
    /// Loads the speech model now: the user has started talking.
    WarmVoice {},
    /// Hands-free: what the user said (its words), understood without a model: a question the app
    /// answers, words for an agent (named first, else the one shown), or the answer to the open request.
    Hear {
        /// The words heard.
        text: String,
        /// The agent on screen, if any.
        shown: Option<String>,
        /// The client's id for this utterance: a retry with it stores no second message.
        client_id: Option<String>,
        /// What the app said last: its own speech heard back is not the user's.
        said: Option<String>,
    },
    /// A page of a conversation: the latest, after a cursor, or before one.
    History {
        /// The agent.
        session_id: String,
        /// Messages after this one.
        after: Option<String>,
        /// Messages before this one.
        before: Option<String>,
        /// At most this many (default 100, at most 1000).
        limit: Option<u32>,
    },
    /// What an agent with a worktree of its own changed: its commits and files since its branch left its
    /// base, with each shown file's diff (`clawmux diff`).
    Changes {
        /// The agent.
        session_id: String,
    },
    /// The git repository a folder is in, its checked-out branch and the agents working in it: the
    /// new-agent form offers a worktree of its own there.
    Repository {
        /// The folder.
        work_dir: PathBuf,
    },
    /// Every agent's worktree with what it holds (`clawmux worktree list`).
    Worktrees {},
    /// Removes an agent's worktree and branch (`clawmux worktree remove`): refused while the agent runs,
    /// and, unless `discard`, when it holds work that is nowhere else.
    RemoveWorktree {
        /// The agent.
        session_id: String,
        /// Lose what is not committed and the commits no other branch has.
        #[serde(default)]
        discard: bool,
    },
    /// Merges an agent's branch into its base (`clawmux merge`): nothing is written if anything is in the
    /// way (a conflict, work not committed, changes in the base's checkout).
    Merge {
        /// The agent.
        session_id: String,
        /// A merge commit (the default), one squashed commit, or the commits rebased onto the base.
        #[serde(default)]
        mode: MergeMode,
        /// The commit's message; none or blank: the one `changes` suggests.
        message: Option<String>,
    },
    /// Every agent's figures, the account's limits and the use per day (`clawmux usage`).
    Usage {
        /// Days of history (default 14, at most 366).
        days: Option<u32>,
        /// The user's time zone, in minutes east of UTC, where days are cut (default 0).
        offset_minutes: Option<i32>,
    },
    /// Messages found by their words (`clawmux search`, Ctrl+K), newest first.
    Search(crate::search::SearchRequest),
    /// Whether the user's own Claude Code sessions (`~/.claude/projects`) are searched too.
    SearchSessions {
        /// On or off (off forgets what was read of them).
        on: bool,
    },
    /// The other machines, their links and their agents as last seen.
    Machines {},
    /// Adds another machine, reached over the user's ssh, and follows it.
    MachineAdd {
        /// Its name here.
        name: String,
        /// `ssh://[user@]host[:port]`.
        url: String,
    },
    /// Forgets a machine (its hub and agents go on there).
    MachineRemove {
        /// Its name.
        name: String,
    },
    /// A command of this surface for another machine's hub, forwarded whole; its answer as that hub gave it.
    OnMachine {
        /// The machine.
        machine: String,
        /// The command, as it would be sent to that hub.
        forward: serde_json::Value,
    },
    /// Whether an agent is continued when the usage limit that stopped it resets.
    UsageContinue {
        /// The agent.
        session_id: String,
        /// On or off.
        on: bool,
    },
    /// Whether phones may reach the hub, and the phones paired.
    Phone {},
    /// Lets phones reach the hub, or shuts every phone out (`clawmux phone on|off`).
    SetPhone {
        /// On or off.
        on: bool,
    },
    /// Where the hub listens for phones itself, over TLS (`clawmux phone address`), or, with none,
    /// nowhere beyond loopback.
    SetPhoneAddress {
        /// The address, its name and the user's certificate; none: through a tunnel only.
        address: Option<crate::phone::PhoneAddress>,
    },
    /// Who runs the hub, as pushes name it to push services (`clawmux phone contact`): a `mailto:` or
    /// `https:` address; none: a placeholder.
    SetPushContact {
        /// The contact, or none.
        contact: Option<String>,
    },
    /// A pairing link for a new phone, with a one-time code that expires in minutes.
    PhonePair {},
    /// Revokes a paired phone at once.
    PhoneRevoke {
        /// The phone's id.
        phone: String,
    },
    /// A desktop window says whether the user is at it (its focus): while they are, nothing is pushed to
    /// the phones. Said again every minute while true; it lapses by itself.
    Present {
        /// The window has the user's attention.
        present: bool,
    },
}

/// `user_message`'s answer: the stored message (once per client id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// Its id.
    pub id: MsgId,
    /// Its cursor.
    pub seq: i64,
}

/// What a command answers, a type per kind of answer; every transport sends it as JSON (each variant's
/// own JSON: the command says which to expect).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// `sessions`: every agent as the sidebar shows it.
    Sessions(Vec<SessionInfo>),
    /// `add_agent`, `spawn`, `terminate`, `restart`: the agent as the sidebar shows it now.
    Session(Box<SessionInfo>),
    /// `user_message`: the stored message (once per client id).
    Sent(Sent),
    /// `slash_commands`.
    SlashCommands(Vec<crate::lifecycle::slash::SlashCommand>),
    /// `attach`: the kept file.
    Attachment(Box<Attachment>),
    /// `phone`, `set_phone`, `phone_revoke`.
    Phone(crate::phone::PhoneStatus),
    /// `phone_pair`.
    Pairing(Box<crate::phone::Pairing>),
    /// `attachment_image`: its media type and its bytes in standard base64.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        media_type: &'static str,
        /// The bytes.
        data: String,
    },
    /// `explain`.
    Explanation(Box<Explanation>),
    /// `report`: the case file, and where it was saved.
    Report(Box<Report>),
    /// `capabilities`.
    Capabilities(Capabilities),
    /// `import`: what importing each agent's history did.
    Imported(Vec<AgentImport>),
    /// `voice_settings`, `set_voice_settings`: the settings, the key only as set or not.
    VoiceSettings(PublicSettings),
    /// `voice_models`.
    Models(Models),
    /// `download_model`: the download started.
    Downloading {
        /// Its model.
        downloading: LocalModel,
    },
    /// `history`: a page of a conversation.
    History {
        /// The agent.
        session_id: String,
        /// The page, oldest first.
        messages: Vec<MessageOut>,
    },
    /// `changes`: an agent's commits and changed files, with the diffs shown.
    Changes(Box<ChangesReply>),
    /// `repository`.
    Repository(Repository),
    /// `worktrees`.
    Worktrees(Vec<Listed>),
    /// `remove_worktree`: what the removed worktree held.
    Removed(Held),
    /// `merge`: the base's new commit.
    Merged(Merged),
    /// `usage`.
    Usage(Box<UsageReply>),
    /// `search`: the messages found.
    Search(crate::search::SearchReply),
    /// `machines`, `machine_add`, `machine_remove`: every machine.
    Machines(Vec<crate::machines::MachineInfo>),
    /// `on_machine`: the other hub's answer.
    Forwarded(serde_json::Value),
    /// `hear`: what the app made of an utterance.
    Heard(crate::hands_free::Heard),
    /// `resume_interrupted`: the agents being resumed, in order.
    Resumed(Vec<String>),
    /// `preferences`, `set_preferences`.
    Preferences(crate::lifecycle::resume::Preferences),
    /// Done, nothing to tell (`{}`): `answer`, `interrupt`, `dismiss`, `mark_read`, `cancel_download`,
    /// `warm_voice`.
    Done {},
}

/// Hands-free speech: a recording of one utterance (sent whole, or kept earlier by the desktop app), heard
/// on the device with the words expected as the recognizer's prompt, then carried out as [`hear`] does.
/// The recording is gone once this returns, whatever happened: nothing of what was said is kept but the
/// message it became, and a failure says why (hands-free offers no retry: the user says it again).
pub async fn hear_voice(
    hub: &Hub,
    recording: &str,
    content_type: &str,
    audio: Option<Vec<u8>>,
    shown: Option<&str>,
    said: Option<&str>,
) -> Result<crate::hands_free::Heard, HubError> {
    let kept = hub
        .voice()
        .recording(recording, content_type, audio)
        .await?;
    // Nothing of an utterance is kept, whatever happens: not when it is answered, not when it fails,
    // and not when its request goes away unanswered (the guard removes it then).
    let kept = kept.discarded_at_end();
    let heard = async {
        let sessions = hub.sessions().await?;
        let sound = hub.voice().sound(&kept);
        let (text, plain) = heard_twice(hub, &kept, &sessions, shown).await?;
        let (mut heard, mut act) = hub
            .hands_free()
            .decide(
                &text,
                (plain.as_ref().and_then(Option::as_deref), sound),
                shown,
                &sessions,
                said,
            )
            .await?;
        if HandsFree::approves(&act) {
            let plain = match plain {
                Some(plain) => plain,
                None => hub.voice().plain(&kept).await,
            };
            (heard, act) = HandsFree::check(heard, act, &sessions, plain.as_deref(), sound);
        }
        carry_out(hub, &mut heard, act, Some(&kept.client_key())).await?;
        Ok(heard)
    };
    // An utterance is answered within its time (under its connection's idle time), whatever the
    // machine's load: a busy one says so rather than leaving the connection to close with no answer.
    let within = hub.options().hear_within;
    let heard = match tokio::time::timeout(within, heard).await {
        Ok(heard) => heard,
        Err(_) => Err(HubError::new(
            Code::TranscriptionFailed,
            format!(
                "hearing that took longer than {:.0} s (the machine is busy): say it again",
                within.as_secs_f64()
            ),
        )),
    };
    kept.discard().await;
    heard
}

/// An utterance heard with the recognizer's prompt (the names, the answers), and without it where that is
/// needed: who the words are for when the prompted hearing names nobody clearly (the prompt hurts
/// sentences), or heard nothing. The words, and, where it was heard plain, what that heard.
async fn heard_twice(
    hub: &Hub,
    kept: &crate::voice::Recording,
    sessions: &[crate::ui_event::SessionInfo],
    shown: Option<&str>,
) -> Result<(String, Option<Option<String>>), HubError> {
    let expected = HandsFree::expected(sessions, shown);
    let (text, mut plain) = match hub.voice().hear(kept, Some(expected)).await {
        Ok(text) => (text, None),
        // The plain hearing is then the words, with nothing beside them to check against.
        Err(e) if e.code == Code::NothingHeard => match hub.voice().plain(kept).await {
            Some(plain) => (plain, Some(None)),
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    if plain.is_none() && HandsFree::names_nobody(&text, sessions) {
        plain = Some(hub.voice().plain(kept).await);
    }
    Ok((text, plain))
}

/// Carries out what hands-free decided for `text`, through the paths a typed message and a click take.
async fn hear(
    hub: &Hub,
    text: &str,
    shown: Option<&str>,
    client_id: Option<&str>,
    said: Option<&str>,
) -> Result<crate::hands_free::Heard, HubError> {
    if text.len() > crate::hub::MAX_TEXT {
        return Err(HubError::new(
            Code::MessageTooLarge,
            format!("an utterance may be at most {} bytes", crate::hub::MAX_TEXT),
        ));
    }
    let sessions = hub.sessions().await?;
    let (mut heard, act) = hub
        .hands_free()
        .decide(text, (None, None), shown, &sessions, said)
        .await?;
    carry_out(hub, &mut heard, act, client_id).await?;
    Ok(heard)
}

/// Does what hands-free decided: the words stored as the user's voice message (once per client key), or
/// the request answered as a click answers it.
async fn carry_out(
    hub: &Hub,
    heard: &mut crate::hands_free::Heard,
    act: crate::hands_free::Act,
    client_id: Option<&str>,
) -> Result<(), HubError> {
    use crate::hands_free::{Act, Done};
    match act {
        Act::None => {}
        Act::Send { agent, text } => {
            let key = client_id.map(|k| format!("hear:{k}"));
            // The user is listening: the agent is asked for a spoken answer, unless the settings say not.
            let said = if hub.voice().settings().await?.spoken_answers {
                Said::Aloud
            } else {
                Said::Spoken
            };
            let m = hub
                .user_message(&agent, &text, said, &[], key.as_deref())
                .await?;
            heard.done = Done::Sent {
                session_id: agent,
                id: m.id,
            };
        }
        Act::Answer(answer) => hub.requests().answer(answer).await?,
    }
    Ok(())
}

fn message_id(s: &str, code: Code) -> Result<MsgId, HubError> {
    MsgId::parse(s).map_err(|e| HubError::new(code, e.to_string()))
}

impl Hub {
    /// Keeps a file the user attaches to a message for `agent` (`attach`, or its bytes posted raw by the
    /// page or the window): refused for an agent that is not there.
    pub async fn attach(
        &self,
        agent: &str,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<Attachment, HubError> {
        drop(self.live(agent)?);
        self.attachments().keep(name, bytes).await
    }

    /// A voice message for `agent` (`name@machine` for another machine's), its audio sent whole or, with
    /// none, kept earlier by the desktop app: heard here, on the machine the user talks to, and stored as
    /// the user's message where the agent is, once however often it is sent. Every failure says why and
    /// keeps the recording for a retry.
    pub async fn voice_message(
        &self,
        agent: &str,
        recording: &str,
        content_type: &str,
        audio: Option<Vec<u8>>,
    ) -> Result<Spoken, HubError> {
        let address = AgentAddress::parse(agent);
        match address.machine {
            Some(machine) => self.machines().check(machine)?,
            None => drop(self.live(agent)?),
        }
        let kept = self
            .voice()
            .recording(recording, content_type, audio)
            .await?;
        let text = self.voice().hear(&kept, None).await?;
        let key = kept.client_key();
        let sent = match address.machine {
            Some(machine) => {
                let command = Command::UserMessage {
                    session_id: address.name.to_owned(),
                    text: text.clone(),
                    voice: true,
                    attachments: Vec::new(),
                    client_id: Some(key),
                };
                let command = serde_json::to_value(&command)
                    .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
                let answer = self.machines().forward(machine, &command).await?;
                serde_json::from_value::<Sent>(answer).map_err(|e| {
                    HubError::new(
                        Code::MachineUnreachable,
                        format!("{machine}'s hub answered what is not a stored message: {e}"),
                    )
                })?
            }
            None => {
                let m = self
                    .user_message(agent, &text, Said::Spoken, &[], Some(&key))
                    .await?;
                Sent {
                    id: m.id,
                    seq: m.seq,
                }
            }
        };
        kept.delivered().await;
        Ok(Spoken {
            id: sent.id.to_string(),
            seq: sent.seq,
            text,
        })
    }

    /// Runs a command of the UI's surface.
    /// Long: the router: one match from each command to the feature that runs it, a table.
    pub async fn dispatch(&self, command: Command) -> Result<Reply, HubError> {
        match command {
            Command::Sessions {} => Ok(Reply::Sessions(self.sessions().await?)),
            Command::Machines {} => Ok(Reply::Machines(self.machines().list())),
            Command::MachineAdd { name, url } => {
                Ok(Reply::Machines(self.machines().add(&name, &url)?))
            }
            Command::MachineRemove { name } => Ok(Reply::Machines(self.machines().remove(&name)?)),
            Command::OnMachine { machine, forward } => Ok(Reply::Forwarded(
                self.machines().forward(&machine, &forward).await?,
            )),
            Command::AddAgent { name, work_dir } => Ok(Reply::Session(Box::new(
                self.add_agent(&name, work_dir.as_deref()).await?,
            ))),
            Command::Spawn(req) => Ok(Reply::Session(Box::new(self.lifecycle().spawn(req).await?))),
            Command::Answer(answer) => {
                self.requests().answer(answer).await?;
                Ok(Reply::Done {})
            }
            Command::Terminate { session_id } => {
                self.lifecycle().terminate(&session_id).await?;
                Ok(Reply::Session(Box::new(self.session(&session_id).await?)))
            }
            Command::Restart { session_id } => {
                self.lifecycle().restart(&session_id).await?;
                Ok(Reply::Session(Box::new(self.session(&session_id).await?)))
            }
            Command::SetModel { session_id, model } => {
                self.lifecycle()
                    .set_model(&session_id, model.as_deref())
                    .await?;
                Ok(Reply::Session(Box::new(self.session(&session_id).await?)))
            }
            Command::SetEffort { session_id, effort } => {
                self.lifecycle().set_effort(&session_id, effort).await?;
                Ok(Reply::Session(Box::new(self.session(&session_id).await?)))
            }
            Command::SlashCommands { session_id } => Ok(Reply::SlashCommands(
                self.lifecycle().slash_commands(&session_id).await?,
            )),
            Command::Slash { session_id, text } => {
                self.lifecycle().slash(&session_id, &text).await?;
                Ok(Reply::Done {})
            }
            Command::ResumeInterrupted {} => {
                Ok(Reply::Resumed(self.lifecycle().resume_interrupted()))
            }
            Command::Preferences {} => Ok(Reply::Preferences(self.lifecycle().preferences())),
            Command::SetPreferences { preferences } => Ok(Reply::Preferences(
                self.lifecycle().set_preferences(preferences)?,
            )),
            Command::Interrupt { session_id } => {
                self.lifecycle().interrupt(&session_id).await?;
                Ok(Reply::Done {})
            }
            Command::Explain { session_id } => Ok(Reply::Explanation(Box::new(
                self.explain().explain(&session_id).await?,
            ))),
            Command::Dismiss { session_id } => {
                self.dismiss(&session_id, clawmux_core::Source::Ui).await?;
                Ok(Reply::Done {})
            }
            Command::Report(req) => Ok(Reply::Report(Box::new(self.explain().report(req).await?))),
            Command::Capabilities {} => Ok(Reply::Capabilities(
                self.lifecycle()
                    .capabilities(self.import().not_imported())
                    .await,
            )),
            Command::Import {} => Ok(Reply::Imported(self.import().original().await)),
            Command::VoiceSettings {} => Ok(Reply::VoiceSettings(
                self.voice().settings().await?.public(),
            )),
            Command::SetVoiceSettings { settings } => Ok(Reply::VoiceSettings(
                self.voice().set_settings(settings).await?,
            )),
            Command::VoiceModels {} => Ok(Reply::Models(self.voice().models())),
            Command::DownloadModel { model } => {
                self.voice().device().download(model)?;
                Ok(Reply::Downloading { downloading: model })
            }
            Command::DownloadVoice { voice } => {
                self.voice().speaker().download(voice)?;
                Ok(Reply::Done {})
            }
            Command::CancelDownload {} => {
                self.voice().cancel_download()?;
                Ok(Reply::Done {})
            }
            Command::WarmVoice {} => {
                self.voice().warm().await?;
                Ok(Reply::Done {})
            }
            Command::Hear {
                text,
                shown,
                client_id,
                said,
            } => Ok(Reply::Heard(
                hear(
                    self,
                    &text,
                    shown.as_deref(),
                    client_id.as_deref(),
                    said.as_deref(),
                )
                .await?,
            )),
            Command::UserMessage {
                session_id,
                text,
                voice,
                attachments,
                client_id,
            } => {
                let files = self.attachments().resolve(&attachments).await?;
                let m = self
                    .user_message(
                        &session_id,
                        &text,
                        Said::voice(voice),
                        &files,
                        client_id.as_deref(),
                    )
                    .await?;
                Ok(Reply::Sent(Sent {
                    id: m.id,
                    seq: m.seq,
                }))
            }
            Command::Attach {
                session_id,
                name,
                data,
            } => {
                let bytes = crate::attachments::decode(&name, &data)?;
                Ok(Reply::Attachment(Box::new(
                    self.attach(&session_id, &name, bytes).await?,
                )))
            }
            Command::AttachmentImage { id } => {
                use base64::Engine;
                let (bytes, media_type) = self.attachments().read(&id).await?;
                let media_type = media_type.ok_or_else(|| {
                    HubError::new(Code::UnknownAttachment, format!("{id} is not an image"))
                })?;
                Ok(Reply::Image {
                    media_type,
                    data: base64::engine::general_purpose::STANDARD.encode(bytes),
                })
            }
            Command::MarkRead { session_id, up_to } => {
                self.mark_read(&session_id, &message_id(&up_to, Code::BadMessageId)?)
                    .await?;
                Ok(Reply::Done {})
            }
            Command::History {
                session_id,
                after,
                before,
                limit,
            } => self.history(&session_id, after, before, limit).await,
            Command::Changes { session_id } => Ok(Reply::Changes(Box::new(
                self.worktrees().changes(&session_id).await?,
            ))),
            Command::Worktrees {} => Ok(Reply::Worktrees(self.worktrees().list().await?)),
            Command::RemoveWorktree {
                session_id,
                discard,
            } => Ok(Reply::Removed(
                self.worktrees().remove(&session_id, discard).await?,
            )),
            Command::Repository { work_dir } => Ok(Reply::Repository(
                self.worktrees().repository(&work_dir).await?,
            )),
            Command::Merge {
                session_id,
                mode,
                message,
            } => Ok(Reply::Merged(
                self.worktrees().merge(&session_id, mode, message).await?,
            )),
            Command::Usage {
                days,
                offset_minutes,
            } => Ok(Reply::Usage(Box::new(
                self.usage().summary(days, offset_minutes).await?,
            ))),
            Command::Search(req) => Ok(Reply::Search(self.search().find(&req).await?)),
            Command::SearchSessions { on } => {
                self.search().set_sessions(on).await?;
                Ok(Reply::Done {})
            }
            Command::UsageContinue { session_id, on } => {
                self.usage().set_continue(&session_id, on).await?;
                Ok(Reply::Done {})
            }
            Command::Phone {} => Ok(Reply::Phone(self.phone().status().await?)),
            Command::SetPhone { on } => Ok(Reply::Phone(self.phone().set_on(on).await?)),
            Command::SetPhoneAddress { address } => {
                Ok(Reply::Phone(self.phone().set_address(address).await?))
            }
            Command::SetPushContact { contact } => Ok(Reply::Phone(
                self.phone().set_push_contact(contact.as_deref()).await?,
            )),
            Command::PhonePair {} => Ok(Reply::Pairing(Box::new(
                self.phone().pair(crate::clock::now())?,
            ))),
            Command::Present { present } => {
                self.phone()
                    .push()
                    .set_present(present, crate::clock::now());
                Ok(Reply::Done {})
            }
            Command::PhoneRevoke { phone } => Ok(Reply::Phone(
                self.phone().revoke(&phone, crate::clock::now()).await?,
            )),
        }
    }

    /// Attaches a new viewer of `agent`'s terminal at `size` (the terminal WebSocket, the window's
    /// `terminal_open`). Refuses, having started nothing, an agent that does not exist, one ClawMux did not
    /// start and one not running.
    pub async fn open_terminal(&self, agent: &str, size: TermSize) -> Result<Viewer, HubError> {
        let launch = self.session(agent).await?.launch;
        self.terminals().open(agent, launch, size).await
    }

    /// What a viewer of `agent` is told once its terminal has closed, with the last screen the hub kept.
    pub async fn terminal_closed(&self, agent: &str) -> TerminalNotice {
        let screen = self
            .live(agent)
            .ok()
            .and_then(|live| live.run.last_screen().clone());
        self.terminals().closed(agent, screen).await
    }

    /// One page of an agent's log as JSON lines: rows with an id above `after`, at most `limit`.
    pub async fn log_lines(
        &self,
        agent: &str,
        log: Log,
        after: i64,
        limit: u32,
    ) -> Result<String, HubError> {
        self.store().agent(agent).await?;
        let limit = limit.clamp(1, MAX_LOG_ROWS);
        Ok(match log {
            Log::Events => json_lines(
                self.store()
                    .events(agent, after, limit)
                    .await?
                    .iter()
                    .map(event_line),
            ),
            Log::Decisions => json_lines(
                self.store()
                    .decisions(agent, after, limit)
                    .await?
                    .iter()
                    .map(decision_line),
            ),
        })
    }

    /// The body of a "finished" notice: the start of the agent's last answer to the user.
    pub async fn finished_notice(&self, agent: &str) -> String {
        let latest = self.store().latest(agent, 20).await.unwrap_or_default();
        crate::notice::finished_body(&latest)
    }

    /// A page of a conversation: the latest, after a cursor, or before one.
    async fn history(
        &self,
        session_id: &str,
        after: Option<String>,
        before: Option<String>,
        limit: Option<u32>,
    ) -> Result<Reply, HubError> {
        let limit = limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
        let store = self.store();
        store.agent(session_id).await?;
        let page = match (after, before) {
            (Some(_), Some(_)) => {
                return Err(HubError::new(
                    Code::BadQuery,
                    "give `after` or `before`, not both",
                ))
            }
            (Some(after), None) => {
                store
                    .after(
                        Some(session_id),
                        Some(&message_id(&after, Code::BadCursor)?),
                        limit,
                    )
                    .await?
            }
            (None, Some(before)) => {
                store
                    .before(session_id, &message_id(&before, Code::BadCursor)?, limit)
                    .await?
            }
            (None, None) => store.latest(session_id, limit).await?,
        };
        Ok(Reply::History {
            session_id: session_id.to_owned(),
            messages: page.iter().map(MessageOut::from).collect(),
        })
    }
}
