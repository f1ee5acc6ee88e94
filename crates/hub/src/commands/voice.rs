//! The commands of the voice services: where they are, the device's models and voices, and a voice
//! message for an agent (heard here, stored where the agent is).

use clawmux_api::commands::voice::{
    CancelDownload, DownloadModel, DownloadVoice, Downloading, SetVoiceSettings, VoiceModels,
    VoiceSettings, WarmVoice,
};
use clawmux_core::remote::AgentAddress;
use clawmux_core::wire::Said;
use clawmux_voice::PublicSettings;

use super::{Done, Handle, Sent, UserMessage};
use crate::error::HubError;
use crate::hub::Hub;
use crate::voice::{Models, Spoken};

impl Handle for VoiceSettings {
    async fn handle(self, hub: &Hub) -> Result<PublicSettings, HubError> {
        Ok(hub.voice().settings().await?.public())
    }
}

impl Handle for SetVoiceSettings {
    async fn handle(self, hub: &Hub) -> Result<PublicSettings, HubError> {
        hub.voice().set_settings(self.settings).await
    }
}

impl Handle for VoiceModels {
    async fn handle(self, hub: &Hub) -> Result<Models, HubError> {
        Ok(hub.voice().models())
    }
}

impl Handle for DownloadModel {
    async fn handle(self, hub: &Hub) -> Result<Downloading, HubError> {
        hub.voice().device().download(self.model)?;
        Ok(Downloading {
            downloading: self.model,
        })
    }
}

impl Handle for DownloadVoice {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.voice().speaker().download(self.voice)?;
        Ok(Done {})
    }
}

impl Handle for CancelDownload {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.voice().cancel_download()?;
        Ok(Done {})
    }
}

impl Handle for WarmVoice {
    async fn handle(self, hub: &Hub) -> Result<Done, HubError> {
        hub.voice().warm().await?;
        Ok(Done {})
    }
}

impl Hub {
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
                let message = UserMessage {
                    session_id: address.name.to_owned(),
                    text: text.clone(),
                    voice: true,
                    attachments: Vec::new(),
                    client_id: Some(key),
                };
                self.machines().call(machine, message).await?
            }
            None => {
                let m = self
                    .messages()
                    .user_message(agent, &text, Said::Spoken, &[], Some(&key))
                    .await?;
                Sent {
                    id: m.id,
                    seq: m.seq,
                    note: None,
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
}
