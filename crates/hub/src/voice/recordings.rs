//! The recordings voice keeps: a recording is written to `<data dir>/voice/<recording id>.<ext>` before
//! anything else happens, so a transcription that fails loses nothing, and removed once its message is
//! stored ([`Recording::delivered`]). The UI names the recording (a plain identifier), the hub the path.

use std::path::PathBuf;
use std::sync::Arc;

use clawmux_core::wire::Code;

use super::Voice;
use crate::error::HubError;

/// The file extension for an audio content type; `None` for what is not audio we know.
pub(super) fn extension(content_type: &str) -> Option<&'static str> {
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

pub(super) fn check_recording_id(id: &str) -> Result<(), HubError> {
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

/// Writes a recording to `file` (0600), its folder made if missing.
fn keep(file: &std::path::Path, audio: &[u8]) -> Result<(), HubError> {
    file.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| crate::config::write_private(file, audio))
        .map_err(|e| HubError::new(Code::CannotSave, format!("cannot keep the recording: {e}")))
}

/// A recording kept on disk until the message it became is stored ([`Recording::delivered`]).
#[derive(Debug)]
pub struct Recording {
    id: String,
    pub(super) file: PathBuf,
    pub(super) content_type: String,
    /// Shared, not copied, with each transcription of it (hands-free hears an approval twice).
    pub(super) audio: Arc<Vec<u8>>,
}

impl Recording {
    /// The recording's id, the message's client key once it is one (`voice:<id>`).
    pub fn client_key(&self) -> String {
        format!("voice:{}", self.id)
    }

    /// Its message is stored: the kept file goes.
    pub async fn delivered(self) {
        let _ = tokio::fs::remove_file(&self.file).await;
    }

    /// The recording of an utterance, whose file goes when it is dropped, however its hearing ends.
    pub fn discarded_at_end(self) -> Discarded {
        Discarded(self)
    }
}

/// A recording removed from disk when dropped ([`Recording::discarded_at_end`]).
#[derive(Debug)]
pub struct Discarded(Recording);

impl std::ops::Deref for Discarded {
    type Target = Recording;

    fn deref(&self) -> &Recording {
        &self.0
    }
}

impl Discarded {
    /// Removes the file now, before what was heard is answered.
    pub async fn discard(mut self) {
        let file = std::mem::take(&mut self.0.file);
        let _ = tokio::fs::remove_file(file).await;
    }
}

impl Drop for Discarded {
    fn drop(&mut self) {
        let file = std::mem::take(&mut self.0.file);
        if file.as_os_str().is_empty() {
            return;
        }
        // Off the async threads where there are some; a drop outside a runtime removes it at once.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn_blocking(move || std::fs::remove_file(file));
            }
            Err(_) => {
                let _ = std::fs::remove_file(file);
            }
        }
    }
}

impl Voice {
    /// Where recording `recording` is kept until its message is stored: `<data dir>/voice/<id>.<ext>`.
    fn kept_recording(&self, recording: &str, ext: &str) -> Result<PathBuf, HubError> {
        check_recording_id(recording)?;
        Ok(self
            .data_dir
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
        keep(&file, audio)?;
        Ok(file)
    }

    /// A recording sent whole: checked, then kept on disk before anything else happens. Every failure
    /// after this keeps it for a retry.
    pub async fn take(
        &self,
        recording: &str,
        content_type: &str,
        audio: Vec<u8>,
    ) -> Result<Recording, HubError> {
        check_recording_id(recording)?;
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
        let file = self.kept_recording(recording, ext)?;
        let (file, audio) =
            tokio::task::spawn_blocking(move || keep(&file, &audio).map(|()| (file, audio)))
                .await
                .map_err(|e| {
                    HubError::new(Code::CannotSave, format!("cannot keep the recording: {e}"))
                })??;
        Ok(Recording {
            id: recording.to_owned(),
            file,
            content_type: content_type.to_owned(),
            audio: Arc::new(audio),
        })
    }

    /// A recording sent whole (`audio`: [`Voice::take`]) or, with none, kept earlier by the desktop app
    /// ([`Voice::kept`]).
    pub async fn recording(
        &self,
        recording: &str,
        content_type: &str,
        audio: Option<Vec<u8>>,
    ) -> Result<Recording, HubError> {
        match audio {
            Some(audio) => self.take(recording, content_type, audio).await,
            None => self.kept(recording, content_type).await,
        }
    }

    /// A recording kept earlier with [`Voice::keep_recording`] (the desktop app records into the hub's
    /// folder), taken without writing it again.
    pub async fn kept(&self, recording: &str, content_type: &str) -> Result<Recording, HubError> {
        let ext = extension(content_type).unwrap_or("wav");
        let file = self.kept_recording(recording, ext)?;
        let audio = tokio::fs::read(&file).await.map_err(|e| {
            HubError::new(
                Code::NoSuchRecording,
                format!("recording {recording} is not kept here: {e}"),
            )
        })?;
        Ok(Recording {
            id: recording.to_owned(),
            file,
            content_type: content_type.to_owned(),
            audio: Arc::new(audio),
        })
    }
}
