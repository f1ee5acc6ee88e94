//! The hub's side of voice: the recordings it keeps and the settings it saves; the services themselves are
//! `clawmux-voice`'s.
//!
//! A recording is written to `<data dir>/voice/<recording id>.<ext>` before anything else happens, so a
//! transcription service that is down or answers garbage loses nothing: the UI keeps the recording too and
//! sends it again with the same id, and the message is stored once (the id is its client key). The file is
//! removed once its message is stored. The UI names the recording (a plain identifier), the hub the path.
//!
//! Speech becomes text on the device ([`device`]: whisper.cpp, the default) or through the user's own
//! service, as the settings say; either way the recording is kept, retried and stored once the same.
//!
//! Speaking never blocks sending: it is a separate request the UI makes after a message arrived.

pub mod device;

use std::path::PathBuf;

use clawmux_core::remote::AgentAddress;
use clawmux_core::wire::Code;
pub use clawmux_voice::local::LocalModel;
use clawmux_voice::VoiceError;
pub use clawmux_voice::{VoiceSettings, SETTINGS_FILE};

use crate::error::HubError;
use crate::hub::Hub;

/// The largest recording accepted (the limit of OpenAI's transcription API).
pub const MAX_AUDIO: usize = 25 * 1024 * 1024;

impl From<VoiceError> for HubError {
    fn from(e: VoiceError) -> HubError {
        HubError::new(e.code, e.message)
    }
}

/// Runs a voice service call off the async threads.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, VoiceError> + Send + 'static,
) -> Result<T, HubError> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| HubError::new(Code::Internal, format!("the voice call failed: {e}")))?
        .map_err(HubError::from)
}

/// The file extension for an audio content type; `None` for what is not audio we know.
fn extension(content_type: &str) -> Option<&'static str> {
    let base = content_type.split(';').next().unwrap_or("").trim();
    match base {
        "audio/wav" | "audio/wave" | "audio/x-wav" => Some("wav"),
        "audio/webm" => Some("webm"),
        "audio/ogg" => Some("ogg"),
        "audio/mp4" | "audio/m4a" => Some("m4a"),
        "audio/mpeg" => Some("mp3"),
        _ => None,
    }
}

fn check_recording_id(id: &str) -> Result<(), HubError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(HubError::new(
            Code::BadRecordingId,
            "a recording id is 1-64 of letters, digits, - and _",
        ))
    }
}

/// A voice message stored: where the words went and what they were.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Spoken {
    /// The message's id (on the agent's own hub).
    pub id: String,
    /// Its cursor there.
    pub seq: i64,
    /// The words heard.
    pub text: String,
}

/// Voice: speech to text (on the device or by the configured service), text to speech, the recordings kept
/// and the settings.
#[derive(Clone, Copy)]
pub struct Voice<'h> {
    hub: &'h Hub,
}

impl<'h> Voice<'h> {
    /// The feature as `hub` composes it.
    pub fn of(hub: &'h Hub) -> Voice<'h> {
        Voice { hub }
    }
}

impl Voice<'_> {
    /// Where recording `recording` is kept until its message is stored: `<data dir>/voice/<id>.<ext>`.
    fn kept_recording(&self, recording: &str, ext: &str) -> Result<PathBuf, HubError> {
        check_recording_id(recording)?;
        Ok(self
            .hub
            .data_dir()
            .join("voice")
            .join(format!("{recording}.{ext}")))
    }

    /// Keeps a recording until its message is stored, so no failure after this loses it; returns where.
    pub fn keep_recording(
        &self,
        recording: &str,
        ext: &str,
        audio: &[u8],
    ) -> Result<PathBuf, HubError> {
        let file = self.kept_recording(recording, ext)?;
        file.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::config::write_private(&file, audio))
            .map(|()| file)
            .map_err(|e| HubError::new(Code::CannotSave, format!("cannot keep the recording: {e}")))
    }

    fn voice_settings_path(&self) -> PathBuf {
        self.hub.data_dir().join(SETTINGS_FILE)
    }

    /// The voice settings (defaults when none were saved), read off the async threads: every
    /// transcription reads them, so a change saved by hand applies to the next recording.
    pub async fn settings(&self) -> Result<VoiceSettings, HubError> {
        match tokio::fs::read_to_string(self.voice_settings_path()).await {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                HubError::new(
                    Code::VoiceSettingsUnreadable,
                    format!("{SETTINGS_FILE} is unreadable: {e}"),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(VoiceSettings::default()),
            Err(e) => Err(HubError::new(
                Code::VoiceSettingsUnreadable,
                format!("cannot read {SETTINGS_FILE}: {e}"),
            )),
        }
    }

    /// Saves the voice settings (0600: they may hold a key), off the async threads. A key left out keeps
    /// the saved one.
    pub async fn set_settings(
        &self,
        mut new: VoiceSettings,
    ) -> Result<clawmux_voice::PublicSettings, HubError> {
        new.check()?;
        if new.api_key.is_none() {
            new.api_key = self.settings().await?.api_key;
        }
        let path = self.voice_settings_path();
        let text = serde_json::to_string_pretty(&new).unwrap_or_default();
        tokio::task::spawn_blocking(move || {
            let tmp = path.with_extension("tmp");
            crate::config::write_private(&tmp, text.as_bytes())
                .and_then(|()| std::fs::rename(&tmp, &path))
        })
        .await
        .map_err(std::io::Error::other)
        .and_then(|written| written)
        .map_err(|e| {
            HubError::new(
                Code::CannotSave,
                format!("cannot save the voice settings: {e}"),
            )
        })?;
        Ok(new.public())
    }

    /// Checks that `agent` can take a voice message: an agent of this hub, or `name@machine` of a machine
    /// this hub follows (speech becomes text here, on the machine the user talks to, and the words go there).
    fn check_agent(&self, agent: &str) -> Result<(), HubError> {
        match AgentAddress::parse(agent).machine {
            Some(machine) => self.hub.machines().check(machine),
            None => self.hub.live(agent).map(drop),
        }
    }

    /// A recording for `agent` (`name@machine` for another machine's): kept on disk, transcribed, stored as
    /// the user's voice message (once, however often it is sent). Every failure says why and keeps the
    /// recording for a retry.
    pub async fn message(
        &self,
        agent: &str,
        recording: &str,
        content_type: &str,
        audio: Vec<u8>,
    ) -> Result<Spoken, HubError> {
        check_recording_id(recording)?;
        self.check_agent(agent)?;
        let ext = extension(content_type).ok_or_else(|| {
            HubError::new(
                Code::NotAudio,
                format!(
                    "`{content_type}` is not a recording this hub takes (wav, webm, ogg, m4a, mp3)"
                ),
            )
        })?;
        if audio.is_empty() {
            return Err(HubError::new(
                Code::EmptyRecording,
                "the recording is empty: was the microphone on?",
            ));
        }
        // 25 MiB at most, written off the async threads.
        let (hub, id) = (self.hub.clone(), recording.to_owned());
        let (file, audio) = tokio::task::spawn_blocking(move || {
            Voice::of(&hub)
                .keep_recording(&id, ext, &audio)
                .map(|file| (file, audio))
        })
        .await
        .map_err(|e| {
            HubError::new(Code::CannotSave, format!("cannot keep the recording: {e}"))
        })??;
        self.transcribe(agent, recording, &file, content_type, audio)
            .await
    }

    /// A recording kept earlier with [`Hub::keep_recording`] (the desktop app records into the hub's
    /// folder), sent as a voice message the same way, without writing it again.
    pub async fn kept_message(
        &self,
        agent: &str,
        recording: &str,
        content_type: &str,
    ) -> Result<Spoken, HubError> {
        self.check_agent(agent)?;
        let ext = extension(content_type).unwrap_or("wav");
        let file = self.kept_recording(recording, ext)?;
        let audio = tokio::fs::read(&file).await.map_err(|e| {
            HubError::new(
                Code::NoSuchRecording,
                format!("recording {recording} is not kept here: {e}"),
            )
        })?;
        self.transcribe(agent, recording, &file, content_type, audio)
            .await
    }

    /// Loads the model the settings name, if speech becomes text on the device and the model is here:
    /// called when the user starts talking, so the words are not kept waiting for it.
    pub async fn warm(&self) -> Result<(), HubError> {
        let settings = self.settings().await?;
        if settings.speech_to_text() != clawmux_voice::SpeechToText::Device {
            return Ok(());
        }
        match self.hub.device_voice().engine(settings.local_model).await {
            // Nothing to warm yet: the recording that follows says so, and keeps itself.
            Err(e) if e.code == Code::ModelNotDownloaded => Ok(()),
            other => other.map(drop),
        }
    }

    /// Transcribes a kept recording and stores the words as the user's voice message (client key
    /// `voice:<id>`, so once); the kept file goes once the message is stored.
    async fn transcribe(
        &self,
        agent: &str,
        recording: &str,
        file: &std::path::Path,
        content_type: &str,
        audio: Vec<u8>,
    ) -> Result<Spoken, HubError> {
        let settings = self.settings().await?;
        let text = match settings.speech_to_text() {
            clawmux_voice::SpeechToText::Device => {
                self.hub
                    .device_voice()
                    .transcribe(settings.local_model, content_type, audio)
                    .await?
            }
            clawmux_voice::SpeechToText::Service => {
                let name = file
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                let content_type = content_type.to_owned();
                blocking(move || clawmux_voice::transcribe(&settings, &name, &content_type, &audio))
                    .await?
            }
        };
        let key = format!("voice:{recording}");
        let address = AgentAddress::parse(agent);
        let spoken = match address.machine {
            Some(machine) => {
                let name = address.name;
                let command = serde_json::json!({"command": "user_message", "session_id": name,
                    "text": text, "voice": true, "client_id": key});
                let sent = self.hub.machines().forward(machine, &command).await?;
                Spoken {
                    id: sent["id"].as_str().unwrap_or_default().to_owned(),
                    seq: sent["seq"].as_i64().unwrap_or_default(),
                    text,
                }
            }
            None => {
                let m = self
                    .hub
                    .user_message(agent, &text, true, Some(&key))
                    .await?;
                Spoken {
                    id: m.id.to_string(),
                    seq: m.seq,
                    text: m.text,
                }
            }
        };
        let _ = tokio::fs::remove_file(file).await;
        Ok(spoken)
    }

    /// Speech for `text` from the speech service: the audio and its content type.
    pub async fn speech(&self, text: &str) -> Result<(String, Vec<u8>), HubError> {
        let settings = self.settings().await?;
        let text = text.to_owned();
        blocking(move || clawmux_voice::speak(&settings, &text)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recording_ids_and_types() {
        assert!(check_recording_id("rec-1a2b_3").is_ok());
        for bad in ["", "../x", "a/b", "a.wav", &"x".repeat(65)] {
            assert!(check_recording_id(bad).is_err(), "{bad}");
        }
        assert_eq!(extension("audio/webm;codecs=opus"), Some("webm"));
        assert_eq!(extension("audio/wav"), Some("wav"));
        assert_eq!(extension("text/html"), None);
    }
}
