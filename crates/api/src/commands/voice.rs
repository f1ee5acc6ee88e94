//! The commands of the voice services: where they are, and the device's models and voices.

use clawmux_core::models::{LocalModel, LocalVoice};
use serde::{Deserialize, Serialize};

/// Where the voice services are (the key only as set or not).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceSettings {}

/// Saves where the voice services are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetVoiceSettings {
    /// The settings.
    pub settings: crate::voice::VoiceSettings,
}

/// The speech models the device can use: sizes, which are downloaded, which is downloading.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoiceModels {}

/// Starts downloading a speech model (progress on the feed, `model_download`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownloadModel {
    /// `tiny.en`, `base.en` or `small.en`.
    pub model: LocalModel,
}

/// `download_model`'s answer: the download started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Downloading {
    /// Its model.
    pub downloading: LocalModel,
}

/// Starts downloading a voice for the device to speak with (progress on the feed, `voice_download`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownloadVoice {
    /// `en_US-joe-medium`.
    pub voice: LocalVoice,
}

/// Cancels the download under way, a model's or a voice's (the partial files are kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelDownload {}

/// Loads the speech model now: the user has started talking.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmVoice {}
