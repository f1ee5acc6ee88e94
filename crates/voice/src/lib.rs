//! ClawMux's voice: speech to text on the device ([`local`]: whisper.cpp, a model downloaded on first
//! use) or through a transcription service the user runs (whisper.cpp's server or faster-whisper-server,
//! `/v1/audio/transcriptions`), text to speech on the device ([`piper`]: a Piper voice, downloaded on
//! first use) or through the user's speech service (Kokoro-FastAPI, `/v1/audio/speech`), and the settings
//! that say where they are.
//!
//! Blocking by design (a plain HTTP client with a timeout): the hub calls it off its async threads. Errors
//! carry the wire's [`Code`], so the hub passes them on as they are.

use std::time::Duration;

use clawmux_core::wire::Code;
use serde_json::{json, Value};

pub mod local;
pub mod piper;

pub use clawmux_api::voice::{
    PublicSettings, SpeechToText, TextToSpeech, VoiceSettings, SETTINGS_FILE,
};

/// The largest speech answer accepted.
const MAX_SPEECH: u64 = 20 * 1024 * 1024;
/// The longest text sent to be spoken.
pub const MAX_SPEECH_TEXT: usize = 4096;
/// How long a service may take.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest transcription answer read.
const MAX_TRANSCRIPTION: u64 = 1024 * 1024;

/// Why a voice service could not do its part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct VoiceError {
    /// The wire's code for it.
    pub code: Code,
    /// What went wrong, for people.
    pub message: String,
}

impl VoiceError {
    /// Builds an error.
    pub fn new(code: Code, message: impl Into<String>) -> VoiceError {
        VoiceError {
            code,
            message: message.into(),
        }
    }
}

/// The words of a recording, from the transcription service (`file_name` and `content_type` describe the
/// audio to it). An empty transcription is an error: nothing was heard.
pub fn transcribe(
    settings: &VoiceSettings,
    file_name: &str,
    content_type: &str,
    audio: &[u8],
) -> Result<String, VoiceError> {
    let url = settings.transcription_url.as_deref().ok_or_else(|| {
        VoiceError::new(
            Code::VoiceNotConfigured,
            "no transcription service is set (voice settings); the recording is kept",
        )
    })?;
    let (ctype, body) = multipart(
        audio,
        file_name,
        content_type,
        &settings.transcription_model,
    );
    let answer = call_service(
        "transcription",
        url,
        settings.api_key.as_deref(),
        &ctype,
        &body,
        MAX_TRANSCRIPTION,
    )?;
    let text = String::from_utf8_lossy(&answer.body);
    let cut = || text.chars().take(200).collect::<String>();
    if !(200..300).contains(&answer.status) {
        return Err(VoiceError::new(
            Code::TranscriptionFailed,
            format!(
                "the transcription service refused the recording (HTTP {}): {}",
                answer.status,
                cut()
            ),
        ));
    }
    let words = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("text")?.as_str().map(str::trim).map(str::to_owned))
        .ok_or_else(|| {
            VoiceError::new(
                Code::TranscriptionFailed,
                format!(
                    "the transcription service answered something else than {{\"text\": ...}}: {}",
                    cut()
                ),
            )
        })?;
    if words.is_empty() {
        return Err(VoiceError::new(
            Code::NothingHeard,
            "no words were heard in the recording",
        ));
    }
    Ok(words)
}

/// Refuses a text to speak that is empty or longer than [`MAX_SPEECH_TEXT`], whoever speaks it.
pub fn check_text(text: &str) -> Result<(), VoiceError> {
    if text.trim().is_empty() || text.len() > MAX_SPEECH_TEXT {
        return Err(VoiceError::new(
            Code::BadText,
            format!("the text to speak must be 1-{MAX_SPEECH_TEXT} bytes"),
        ));
    }
    Ok(())
}

/// Speech for `text` from the speech service: its content type and the audio.
pub fn speak(settings: &VoiceSettings, text: &str) -> Result<(String, Vec<u8>), VoiceError> {
    check_text(text)?;
    let url = settings.speech_url.as_deref().ok_or_else(|| {
        VoiceError::new(
            Code::VoiceNotConfigured,
            "no speech service is set (voice settings)",
        )
    })?;
    let body = json!({"model": settings.speech_model, "input": text, "voice": settings.speech_voice, "response_format": "mp3"}).to_string();
    let answer = call_service(
        "speech",
        url,
        settings.api_key.as_deref(),
        "application/json",
        body.as_bytes(),
        MAX_SPEECH,
    )?;
    let ctype = answer.content_type;
    if !(200..300).contains(&answer.status)
        || !ctype.starts_with("audio/")
        || answer.body.is_empty()
    {
        return Err(VoiceError::new(
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

fn unreachable(what: &str, e: impl std::fmt::Display) -> VoiceError {
    VoiceError::new(
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

/// POSTs `body` to one of the user's voice services (`what` names it in errors), with their key if set;
/// reads at most `limit` bytes of the answer.
fn call_service(
    what: &'static str,
    url: &str,
    key: Option<&str>,
    content_type: &str,
    body: &[u8],
    limit: u64,
) -> Result<ServiceAnswer, VoiceError> {
    let mut req = client().post(url).header("Content-Type", content_type);
    if let Some(k) = key {
        req = req.header("Authorization", format!("Bearer {k}"));
    }
    let mut resp = req.send(body).map_err(|e| unreachable(what, e))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn nothing_is_sent_without_a_service_or_with_bad_text() {
        let none = VoiceSettings::default();
        assert_eq!(
            transcribe(&none, "r.wav", "audio/wav", b"x")
                .unwrap_err()
                .code,
            Code::VoiceNotConfigured
        );
        assert_eq!(
            speak(&none, "hello").unwrap_err().code,
            Code::VoiceNotConfigured
        );
        assert_eq!(speak(&none, "  ").unwrap_err().code, Code::BadText);
    }
}
