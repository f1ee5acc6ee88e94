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
mod downloads;
mod recordings;
pub mod speaker;

use std::path::PathBuf;
use std::sync::Arc;

pub use clawmux_core::spoken::Sound;
use clawmux_core::wire::Code;
pub use clawmux_voice::local::LocalModel;
pub use clawmux_voice::piper::{LocalVoice, Variant};
use clawmux_voice::TextToSpeech;
use clawmux_voice::VoiceError;
pub use clawmux_voice::{VoiceSettings, SETTINGS_FILE};

use crate::error::HubError;
pub use clawmux_api::voice::Models;
#[cfg(test)]
use recordings::{check_recording_id, extension};
pub use recordings::{Discarded, Recording};

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

/// Voice: speech to text (on the device or by the configured service), text to speech (on the device or
/// by the service), the recordings kept and the settings. Made once when the hub opens with the data
/// folder it keeps them in and the device's engines it owns; where the words go is the hub's to say
/// ([`crate::Hub::voice_message`]).
pub struct Voice {
    data_dir: PathBuf,
    device: device::DeviceVoice,
    speaker: speaker::DeviceSpeaker,
}

impl Voice {
    pub(crate) fn new(
        data_dir: PathBuf,
        device: device::DeviceVoice,
        speaker: speaker::DeviceSpeaker,
    ) -> Voice {
        Voice {
            data_dir,
            device,
            speaker,
        }
    }

    /// Speech to text on the device: its models, their download.
    pub(crate) fn device(&self) -> &device::DeviceVoice {
        &self.device
    }

    /// Text to speech on the device: its voices, their download.
    pub(crate) fn speaker(&self) -> &speaker::DeviceSpeaker {
        &self.speaker
    }

    /// The models and voices the device can use, downloaded or not.
    pub fn models(&self) -> Models {
        Models {
            models: self.device.models(),
            voices: self.speaker.voices(),
        }
    }

    /// Cancels the download under way, a model's or a voice's (its partial files are kept).
    pub fn cancel_download(&self) -> Result<(), HubError> {
        let voice = self.speaker.cancel_download();
        match self.device.cancel_download() {
            Err(e) if voice && e.code == Code::NotPending => Ok(()),
            other => other,
        }
    }

    fn voice_settings_path(&self) -> PathBuf {
        self.data_dir.join(SETTINGS_FILE)
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

    /// Loads the model the settings name, if speech becomes text on the device and the model is here, and
    /// the device's voice if it speaks and is here: called when the user starts talking (or turns reading
    /// aloud on), so neither the words nor the answers wait for a load.
    pub async fn warm(&self) -> Result<(), HubError> {
        let settings = self.settings().await?;
        if settings.text_to_speech() == TextToSpeech::Device {
            // The answers will be spoken too; a voice not downloaded yet is said at the first one.
            match self.speaker.warm(settings.local_voice).await {
                Err(e) if e.code == Code::VoiceNotDownloaded => {}
                other => other?,
            }
        }
        if settings.speech_to_text() != clawmux_voice::SpeechToText::Device {
            return Ok(());
        }
        match self.device.engine(settings.local_model).await {
            // Nothing to warm yet: the recording that follows says so, and keeps itself.
            Err(e) if e.code == Code::ModelNotDownloaded => Ok(()),
            other => other.map(drop),
        }
    }

    /// The words of a kept recording, on the device or by the service the settings name (the file stays
    /// for a retry until [`Recording::delivered`]). `prompt`, the words expected, biases the device's
    /// recognizer towards them (a service is not told).
    pub async fn hear(
        &self,
        recording: &Recording,
        prompt: Option<String>,
    ) -> Result<String, HubError> {
        let settings = self.settings().await?;
        let audio = Arc::clone(&recording.audio);
        match settings.speech_to_text() {
            clawmux_voice::SpeechToText::Device => {
                self.device
                    .transcribe(settings.local_model, &recording.content_type, audio, prompt)
                    .await
            }
            clawmux_voice::SpeechToText::Service => {
                let name = recording
                    .file
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                let content_type = recording.content_type.clone();
                blocking(move || clawmux_voice::transcribe(&settings, &name, &content_type, &audio))
                    .await
            }
        }
    }

    /// What a recording's audio says beside its words (a WAV recording's: its length, its runs of speech).
    pub fn sound(&self, recording: &Recording) -> Option<Sound> {
        clawmux_voice::local::decode_wav(&recording.audio)
            .ok()
            .map(|(samples, rate)| clawmux_voice::local::sound(&samples, rate))
    }

    /// The same speech's words without the recognizer's prompt, what an approval heard with it is checked
    /// against (`core::spoken::confirmed`) and what decides whom words are for when the prompted hearing
    /// names nobody: on the device only (a service is given no prompt); `None` where it hears nothing.
    pub async fn plain(&self, recording: &Recording) -> Option<String> {
        match self.settings().await {
            Ok(settings) if settings.speech_to_text() == clawmux_voice::SpeechToText::Device => {
                let audio = Arc::clone(&recording.audio);
                self.device
                    .transcribe(settings.local_model, &recording.content_type, audio, None)
                    .await
                    .ok()
            }
            Ok(_) | Err(_) => None,
        }
    }

    /// Speech for `text` where the settings say (the device's voice in `variant`, or the speech
    /// service): its content type and the audio.
    pub async fn speech(
        &self,
        text: &str,
        variant: Variant,
    ) -> Result<(String, Vec<u8>), HubError> {
        let settings = self.settings().await?;
        clawmux_voice::check_text(text)?;
        let text = text.to_owned();
        match settings.text_to_speech() {
            TextToSpeech::Device => {
                let wav = self
                    .speaker
                    .speak(settings.local_voice, text, variant)
                    .await?;
                Ok(("audio/wav".to_owned(), wav))
            }
            TextToSpeech::Service => blocking(move || clawmux_voice::speak(&settings, &text)).await,
            TextToSpeech::Window => Err(HubError::new(
                Code::VoiceNotConfigured,
                "the settings say the window speaks with its own voices",
            )),
        }
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

    /// The feature over a temporary data folder, with no model and no service to reach.
    fn voice() -> (Voice, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let feed = tokio::sync::broadcast::channel(4).0;
        let mirror = Some("http://127.0.0.1:9".to_owned());
        let device =
            device::DeviceVoice::new(dir.path().join("models"), mirror.clone(), feed.clone());
        let speaker = speaker::DeviceSpeaker::new(dir.path().join("models"), mirror, feed);
        (Voice::new(dir.path().to_owned(), device, speaker), dir)
    }

    #[tokio::test]
    async fn a_recording_is_kept_private_until_delivered_and_a_bad_one_keeps_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let (voice, dir) = voice();
        let kept_files = || std::fs::read_dir(dir.path().join("voice")).map_or(0, Iterator::count);
        for (id, ctype, audio, code) in [
            ("../x", "audio/wav", vec![1], Code::BadRecordingId),
            ("r1", "text/plain", vec![1], Code::NotAudio),
            ("r1", "audio/wav", vec![], Code::EmptyRecording),
        ] {
            let e = voice.take(id, ctype, audio).await.unwrap_err();
            assert_eq!(e.code, code);
        }
        assert_eq!(kept_files(), 0);

        let taken = voice.take("r1", "audio/wav", vec![7; 100]).await.unwrap();
        let file = dir.path().join("voice/r1.wav");
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(taken.client_key(), "voice:r1");
        // No model on the device: the words cannot be heard, and the recording stays for a retry.
        let e = voice.hear(&taken, None).await.unwrap_err();
        assert_eq!(e.code, Code::ModelNotDownloaded);
        let again = voice.kept("r1", "audio/wav").await.unwrap();
        assert_eq!(*again.audio, vec![7; 100]);
        again.delivered().await;
        assert_eq!(kept_files(), 0);
        assert_eq!(
            voice.kept("r1", "audio/wav").await.unwrap_err().code,
            Code::NoSuchRecording
        );
    }

    #[tokio::test]
    async fn settings_saved_private_keep_the_key_left_out() {
        let (voice, dir) = voice();
        assert_eq!(voice.settings().await.unwrap(), VoiceSettings::default());
        let with_key = VoiceSettings {
            api_key: Some("sk-test".to_owned()),
            ..VoiceSettings::default()
        };
        voice.set_settings(with_key).await.unwrap();
        voice.set_settings(VoiceSettings::default()).await.unwrap();
        assert_eq!(
            voice.settings().await.unwrap().api_key.as_deref(),
            Some("sk-test")
        );
        std::fs::write(dir.path().join(SETTINGS_FILE), "{").unwrap();
        assert_eq!(
            voice.settings().await.unwrap_err().code,
            Code::VoiceSettingsUnreadable
        );
    }
}
