//! The hub's side of voice: speech to text and text to speech through OpenAI-compatible services that the
//! user runs (whisper.cpp's server or faster-whisper-server for `/v1/audio/transcriptions`, Kokoro-FastAPI
//! for `/v1/audio/speech`), set in `<data dir>/voice.json`.
//!
//! A recording is written to `<data dir>/voice/<recording id>.<ext>` before anything else happens, so a
//! transcription service that is down or answers garbage loses nothing: the UI keeps the recording too and
//! sends it again with the same id, and the message is stored once (the id is its client key). The file is
//! removed once its message is stored. The UI names the recording (a plain identifier), the hub the path.
//!
//! Speaking never blocks sending: it is a separate request the UI makes after a message arrived.

use std::path::PathBuf;
use std::time::Duration;

use clawmux_core::wire::Code;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::HubError;
use crate::hub::Hub;

/// The settings file in the data folder.
pub const SETTINGS_FILE: &str = "voice.json";
/// The largest recording accepted (the limit of OpenAI's transcription API).
pub const MAX_AUDIO: usize = 25 * 1024 * 1024;
/// The largest speech answer accepted.
const MAX_SPEECH: u64 = 20 * 1024 * 1024;
/// The longest text sent to be spoken.
const MAX_SPEECH_TEXT: usize = 4096;
/// How long a service may take.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(60);

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
    /// A bearer key for the services, if they want one. Never sent back to the UI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
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
            api_key: None,
        }
    }
}

impl VoiceSettings {
    fn check(&self) -> Result<(), HubError> {
        for url in [&self.transcription_url, &self.speech_url]
            .into_iter()
            .flatten()
        {
            // The services are the user's own, on this machine or the local network: plain HTTP.
            if !url.starts_with("http://") || url.len() > 2048 {
                return Err(HubError::new(
                    Code::BadVoiceSettings,
                    format!("`{url}` is not an http:// address (https is not supported)"),
                ));
            }
        }
        Ok(())
    }

    /// As the UI sees them: the key only as "set or not".
    pub fn public(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.remove("api_key");
            o.insert("api_key_set".into(), json!(self.api_key.is_some()));
        }
        v
    }
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

/// A multipart/form-data body with the audio file and the model, as the transcription API takes it.
fn multipart(audio: &[u8], file_name: &str, content_type: &str, model: &str) -> (String, Vec<u8>) {
    let boundary = format!("clawmux-{}", uuid::Uuid::new_v4().simple());
    let mut body = Vec::with_capacity(audio.len() + 512);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n{model}\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\njson\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\
             Content-Type: {content_type}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(audio);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(SERVICE_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into()
}

fn unreachable(what: &str, e: impl std::fmt::Display) -> HubError {
    HubError::new(
        Code::VoiceServiceUnreachable,
        format!("the {what} service did not answer: {e}"),
    )
}

/// What a voice service answered.
struct ServiceAnswer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

/// POSTs `body` to one of the user's voice services (`what` names it in errors), with their key if set, off
/// the async threads; reads at most `limit` bytes of the answer.
async fn call_service(
    what: &'static str,
    url: String,
    key: Option<String>,
    content_type: String,
    body: Vec<u8>,
    limit: u64,
) -> Result<ServiceAnswer, HubError> {
    tokio::task::spawn_blocking(move || {
        let mut req = client().post(&url).header("Content-Type", &content_type);
        if let Some(k) = key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let mut resp = req.send(&body[..]).map_err(|e| unreachable(what, e))?;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = resp
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| unreachable(what, e))?;
        Ok(ServiceAnswer {
            status,
            content_type,
            body,
        })
    })
    .await
    .map_err(|e| unreachable(what, e))?
}

impl Hub {
    /// Where recording `recording` is kept until its message is stored: `<data dir>/voice/<id>.<ext>`.
    fn kept_recording(&self, recording: &str, ext: &str) -> Result<PathBuf, HubError> {
        check_recording_id(recording)?;
        Ok(self
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
        self.data_dir().join(SETTINGS_FILE)
    }

    /// The voice settings (defaults when none were saved).
    pub fn voice_settings(&self) -> Result<VoiceSettings, HubError> {
        match std::fs::read_to_string(self.voice_settings_path()) {
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

    /// Saves the voice settings (0600: they may hold a key). A key left out keeps the saved one.
    pub fn set_voice_settings(&self, mut new: VoiceSettings) -> Result<Value, HubError> {
        new.check()?;
        if new.api_key.is_none() {
            new.api_key = self.voice_settings()?.api_key;
        }
        let path = self.voice_settings_path();
        let tmp = path.with_extension("tmp");
        let text = serde_json::to_string_pretty(&new).unwrap_or_default();
        crate::config::write_private(&tmp, text.as_bytes())
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| {
                HubError::new(
                    Code::CannotSave,
                    format!("cannot save the voice settings: {e}"),
                )
            })?;
        Ok(new.public())
    }

    /// A recording for `agent`: kept on disk, transcribed, stored as the user's voice message (once, however
    /// often it is sent). Every failure says why and keeps the recording for a retry.
    pub async fn voice_message(
        &self,
        agent: &str,
        recording: &str,
        content_type: &str,
        audio: Vec<u8>,
    ) -> Result<clawmux_core::wire::Message, HubError> {
        check_recording_id(recording)?;
        self.live(agent)?;
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
        let file = self.keep_recording(recording, ext, &audio)?;
        self.transcribe(agent, recording, &file, content_type, &audio)
            .await
    }

    /// A recording kept earlier with [`Hub::keep_recording`] (the desktop app records into the hub's
    /// folder), sent as a voice message the same way, without writing it again.
    pub async fn kept_voice_message(
        &self,
        agent: &str,
        recording: &str,
        content_type: &str,
    ) -> Result<clawmux_core::wire::Message, HubError> {
        self.live(agent)?;
        let ext = extension(content_type).unwrap_or("wav");
        let file = self.kept_recording(recording, ext)?;
        let audio = tokio::fs::read(&file).await.map_err(|e| {
            HubError::new(
                Code::NoSuchRecording,
                format!("recording {recording} is not kept here: {e}"),
            )
        })?;
        self.transcribe(agent, recording, &file, content_type, &audio)
            .await
    }

    /// Transcribes a kept recording and stores the words as the user's voice message (client key
    /// `voice:<id>`, so once); the kept file goes once the message is stored.
    async fn transcribe(
        &self,
        agent: &str,
        recording: &str,
        file: &std::path::Path,
        content_type: &str,
        audio: &[u8],
    ) -> Result<clawmux_core::wire::Message, HubError> {
        let settings = self.voice_settings()?;
        let url = settings.transcription_url.clone().ok_or_else(|| {
            HubError::new(
                Code::VoiceNotConfigured,
                "no transcription service is set (voice settings); the recording is kept",
            )
        })?;
        let (ctype, body) = multipart(
            audio,
            &file.file_name().unwrap_or_default().to_string_lossy(),
            content_type,
            &settings.transcription_model,
        );
        let answer = call_service(
            "transcription",
            url,
            settings.api_key.clone(),
            ctype,
            body,
            1024 * 1024,
        )
        .await?;
        let answer = (
            answer.status,
            String::from_utf8_lossy(&answer.body).into_owned(),
        );
        let text = match answer {
            (200..=299, body) => serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| v.get("text")?.as_str().map(str::trim).map(str::to_owned))
                .ok_or_else(|| {
                    HubError::new(Code::TranscriptionFailed,
                        format!("the transcription service answered something else than {{\"text\": ...}}: {}", body.chars().take(200).collect::<String>()),
                    )
                })?,
            (status, body) => {
                return Err(HubError::new(Code::TranscriptionFailed,
                    format!("the transcription service refused the recording (HTTP {status}): {}", body.chars().take(200).collect::<String>()),
                ))
            }
        };
        if text.is_empty() {
            return Err(HubError::new(
                Code::NothingHeard,
                "no words were heard in the recording",
            ));
        }
        let m = self
            .user_message(agent, &text, true, Some(&format!("voice:{recording}")))
            .await?;
        let _ = std::fs::remove_file(file);
        Ok(m)
    }

    /// Speech for `text` from the speech service: the audio and its content type.
    pub async fn speech(&self, text: &str) -> Result<(String, Vec<u8>), HubError> {
        if text.trim().is_empty() || text.len() > MAX_SPEECH_TEXT {
            return Err(HubError::new(
                Code::BadText,
                format!("the text to speak must be 1-{MAX_SPEECH_TEXT} bytes"),
            ));
        }
        let settings = self.voice_settings()?;
        let url = settings.speech_url.clone().ok_or_else(|| {
            HubError::new(
                Code::VoiceNotConfigured,
                "no speech service is set (voice settings)",
            )
        })?;
        let body = json!({"model": settings.speech_model, "input": text, "voice": settings.speech_voice, "response_format": "mp3"}).to_string();
        let answer = call_service(
            "speech",
            url,
            settings.api_key.clone(),
            "application/json".to_owned(),
            body.into_bytes(),
            MAX_SPEECH,
        )
        .await?;
        let ctype = answer.content_type;
        if !(200..300).contains(&answer.status)
            || !ctype.starts_with("audio/")
            || answer.body.is_empty()
        {
            return Err(HubError::new(
                Code::SpeechFailed,
                format!(
                    "the speech service answered HTTP {} `{ctype}` ({} bytes), not audio",
                    answer.status,
                    answer.body.len()
                ),
            ));
        }
        Ok((ctype, answer.body))
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

    #[test]
    fn the_multipart_body_carries_the_file_whole() {
        let (ctype, body) = multipart(b"RIFF\x00\x01", "r.wav", "audio/wav", "whisper-1");
        let boundary = ctype.split("boundary=").nth(1).unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
        assert!(body.windows(6).any(|w| w == b"RIFF\x00\x01"));
        assert!(text.contains("name=\"model\"\r\n\r\nwhisper-1"));
    }
}
