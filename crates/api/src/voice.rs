//! Where the voice services are (`<data dir>/voice.json`, written 0600 by the hub: it may hold a key),
//! and the speech models and voices this device has or is downloading.

use clawmux_core::wire::Code;
use serde::{Deserialize, Serialize};

use crate::Error;
use clawmux_core::models::{LocalModel, LocalVoice};

/// Where speech becomes text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum SpeechToText {
    /// On this device, with whisper.cpp and a downloaded model.
    Device,
    /// The user's own transcription service.
    Service,
}

/// Where text becomes speech.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum TextToSpeech {
    /// On this device, with a downloaded Piper voice.
    Device,
    /// The user's own speech service.
    Service,
    /// The window's (or the browser's) own voices.
    Window,
}

/// The settings file in the data folder.
pub const SETTINGS_FILE: &str = "voice.json";

/// Where the voice services are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceSettings {
    /// The transcription endpoint, e.g. `http://127.0.0.1:8080/v1/audio/transcriptions`.
    #[serde(default)]
    pub transcription_url: Option<String>,
    /// The transcription model name sent with each request.
    #[serde(default = "default_transcription_model")]
    pub transcription_model: String,
    /// The speech endpoint, e.g. `http://127.0.0.1:8880/v1/audio/speech`; without it the UI speaks with
    /// the webview's own voices.
    #[serde(default)]
    pub speech_url: Option<String>,
    /// The speech model name.
    #[serde(default = "default_speech_model")]
    pub speech_model: String,
    /// The voice.
    #[serde(default = "default_voice")]
    pub speech_voice: String,
    /// Where speech becomes text; unset: on the device, unless a service is set (as it was before the
    /// device could).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speech_to_text: Option<SpeechToText>,
    /// The model the device uses.
    #[serde(default = "default_local_model")]
    pub local_model: LocalModel,
    /// Where text becomes speech; unset: on the device, unless a speech service is set (as it was before
    /// the device could).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_to_speech: Option<TextToSpeech>,
    /// The voice the device speaks with.
    #[serde(default = "default_local_voice")]
    pub local_voice: LocalVoice,
    /// With hands-free on, agents are asked for short spoken answers (code and tables sent apart): the
    /// user is listening, not reading.
    #[serde(default = "yes")]
    pub spoken_answers: bool,
    /// A bearer key for the services, if they want one. Never sent back to the UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

/// The settings as the UI sees them: the key only as set or not, where speech becomes text resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PublicSettings {
    /// The transcription endpoint.
    pub transcription_url: Option<String>,
    /// The transcription model name.
    pub transcription_model: String,
    /// The speech endpoint.
    pub speech_url: Option<String>,
    /// The speech model name.
    pub speech_model: String,
    /// The voice.
    pub speech_voice: String,
    /// Where speech becomes text.
    pub speech_to_text: SpeechToText,
    /// The model the device uses.
    pub local_model: LocalModel,
    /// Where text becomes speech.
    pub text_to_speech: TextToSpeech,
    /// The voice the device speaks with.
    pub local_voice: LocalVoice,
    /// With hands-free on, agents are asked for short spoken answers.
    pub spoken_answers: bool,
    /// Whether a key is saved (the key itself never leaves the hub).
    pub api_key_set: bool,
}

fn yes() -> bool {
    true
}

fn default_local_voice() -> LocalVoice {
    LocalVoice::JoeMedium
}

fn default_local_model() -> LocalModel {
    LocalModel::BaseEn
}

fn default_transcription_model() -> String {
    "whisper-1".to_owned()
}
fn default_speech_model() -> String {
    "kokoro".to_owned()
}
fn default_voice() -> String {
    "af_sky".to_owned()
}

impl Default for VoiceSettings {
    fn default() -> VoiceSettings {
        VoiceSettings {
            transcription_url: None,
            transcription_model: default_transcription_model(),
            speech_url: None,
            speech_model: default_speech_model(),
            speech_voice: default_voice(),
            speech_to_text: None,
            local_model: default_local_model(),
            text_to_speech: None,
            local_voice: default_local_voice(),
            spoken_answers: true,
            api_key: None,
        }
    }
}

impl VoiceSettings {
    /// Where speech becomes text.
    pub fn speech_to_text(&self) -> SpeechToText {
        self.speech_to_text
            .unwrap_or(if self.transcription_url.is_some() {
                SpeechToText::Service
            } else {
                SpeechToText::Device
            })
    }

    /// Where text becomes speech.
    pub fn text_to_speech(&self) -> TextToSpeech {
        self.text_to_speech.unwrap_or(if self.speech_url.is_some() {
            TextToSpeech::Service
        } else {
            TextToSpeech::Device
        })
    }

    /// Refuses an address that is not plain http (the services are the user's own, nearby).
    pub fn check(&self) -> Result<(), Error> {
        for url in [&self.transcription_url, &self.speech_url]
            .into_iter()
            .flatten()
        {
            // The services are the user's own, on this machine or the local network: plain HTTP.
            if !url.starts_with("http://") || url.len() > 2048 {
                return Err(Error::new(
                    Code::BadVoiceSettings,
                    format!("`{url}` is not an http:// address (https is not supported)"),
                ));
            }
        }
        Ok(())
    }

    /// As the UI sees them: the key only as "set or not".
    pub fn public(&self) -> PublicSettings {
        PublicSettings {
            transcription_url: self.transcription_url.clone(),
            transcription_model: self.transcription_model.clone(),
            speech_url: self.speech_url.clone(),
            speech_model: self.speech_model.clone(),
            speech_voice: self.speech_voice.clone(),
            speech_to_text: self.speech_to_text(),
            local_model: self.local_model,
            text_to_speech: self.text_to_speech(),
            local_voice: self.local_voice,
            spoken_answers: self.spoken_answers,
            api_key_set: self.api_key.is_some(),
        }
    }
}

/// One speech model on this device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ModelState {
    /// Which.
    pub model: LocalModel,
    /// Its size in bytes.
    pub size: u64,
    /// Whether it is here, whole.
    pub downloaded: bool,
    /// The bytes of a download left partial, if one was.
    pub partial: Option<u64>,
    /// Whether it is being downloaded now.
    pub downloading: bool,
    /// How its last download failed or stopped, if it did.
    pub failure: Option<String>,
}

/// One voice the device can speak with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoiceState {
    /// Which.
    pub voice: LocalVoice,
    /// Its files' size in bytes.
    pub size: u64,
    /// Whether it is here, whole.
    pub downloaded: bool,
    /// Whether it is being downloaded now.
    pub downloading: bool,
    /// How its last download failed or stopped, if it did.
    pub failure: Option<String>,
}

/// What the device can hear and speak with (the `voice_models` command).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Models {
    /// The speech models (speech to text).
    pub models: Vec<ModelState>,
    /// The voices (text to speech).
    #[serde(default)]
    pub voices: Vec<VoiceState>,
}
