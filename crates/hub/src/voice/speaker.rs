//! Text to speech on the device: the voice the hub keeps loaded, and its download. [`DeviceSpeaker`] owns
//! both and their rules (one download at a time, one voice in memory, one sentence spoken at a time), with
//! unit tests of its own that need no hub.
//!
//! The voice is fetched on first use: the page asks for speech, hears `voice_not_downloaded`, speaks with
//! its own voices meanwhile and asks for the download, which is told on the UI feed (`voice_download`),
//! as a speech model's is.

use std::path::PathBuf;
use std::sync::Arc;

use clawmux_core::wire::Code;
#[cfg(test)]
use clawmux_voice::local;
use clawmux_voice::local::ModelFile;
use clawmux_voice::piper::{LocalVoice, Piper, Variant};
use tokio::sync::broadcast;

use super::downloads::Downloads;
use crate::error::HubError;
use crate::ui_event::UiEvent;
pub use clawmux_api::voice::VoiceState;

/// Text to speech on the device, as the hub keeps it: where the voices are and come from, the one
/// loaded, and the download under way.
pub(crate) struct DeviceSpeaker {
    /// The folder of the downloaded voices (the speech models' folder).
    dir: PathBuf,
    /// Where voices are published instead of Piper's repository (`CLAWMUX_MODELS_URL`, a mirror).
    mirror: Option<String>,
    /// The UI feed, where a download is told.
    feed: broadcast::Sender<UiEvent>,
    /// The loaded voice (an async lock: a text waits for a load under way rather than start another).
    loaded: tokio::sync::Mutex<Option<(LocalVoice, Arc<Piper>)>>,
    downloads: Arc<Downloads<LocalVoice>>,
}

impl DeviceSpeaker {
    /// The device's voice with its files in `dir`, downloaded from `mirror` when given, its downloads
    /// told on `feed`.
    pub(crate) fn new(
        dir: PathBuf,
        mirror: Option<String>,
        feed: broadcast::Sender<UiEvent>,
    ) -> DeviceSpeaker {
        DeviceSpeaker {
            dir,
            mirror,
            feed,
            loaded: tokio::sync::Mutex::new(None),
            downloads: Arc::default(),
        }
    }

    /// Where `voice`'s files are published, and where they go.
    fn files(&self, voice: LocalVoice) -> Vec<(ModelFile, PathBuf)> {
        let names = voice.file_names();
        voice
            .files()
            .into_iter()
            .zip(voice.paths(&self.dir))
            .zip(names)
            .map(|((mut file, path), name)| {
                if let Some(base) = &self.mirror {
                    file.url = format!("{}/{name}", base.trim_end_matches('/'));
                }
                (file, path)
            })
            .collect()
    }

    fn downloaded(&self, voice: LocalVoice) -> bool {
        voice.paths(&self.dir).iter().all(|p| p.is_file())
    }

    /// Every voice the device can speak with.
    pub(crate) fn voices(&self) -> Vec<VoiceState> {
        let downloading = self.downloads.under_way();
        LocalVoice::ALL
            .into_iter()
            .map(|v| VoiceState {
                voice: v,
                size: v.size(),
                downloaded: self.downloaded(v),
                downloading: downloading == Some(v),
                failure: self.downloads.failure(v),
            })
            .collect()
    }

    /// Starts downloading `voice` (one download at a time); its progress and end go out on the UI feed.
    pub(crate) fn download(&self, voice: LocalVoice) -> Result<(), HubError> {
        let feed = self.feed.clone();
        self.downloads
            .start(voice, self.files(voice), move |voice, told| {
                let _ = feed.send(UiEvent::VoiceDownload {
                    voice,
                    done: told.done,
                    total: told.total,
                    state: told.state,
                    message: told.message,
                });
            })
    }

    /// Cancels the voice's download under way, if there is one (its partial files are kept).
    pub(crate) fn cancel_download(&self) -> bool {
        self.downloads.cancel()
    }

    /// `voice`, loaded (in place of another, if need be).
    async fn voice(&self, voice: LocalVoice) -> Result<Arc<Piper>, HubError> {
        let mut loaded = self.loaded.lock().await;
        if let Some((v, piper)) = loaded.as_ref() {
            if *v == voice {
                return Ok(piper.clone());
            }
        }
        if !self.downloaded(voice) {
            return Err(HubError::new(
                Code::VoiceNotDownloaded,
                format!(
                    "the device's voice {voice} is not downloaded yet ({} MiB): download it in the voice settings",
                    voice.size() >> 20
                ),
            ));
        }
        *loaded = None;
        let [onnx, json] = voice.paths(&self.dir);
        let piper = tokio::task::spawn_blocking(move || Piper::load(&onnx, &json))
            .await
            .map_err(|e| {
                HubError::new(Code::Internal, format!("loading the voice failed: {e}"))
            })??;
        let piper = Arc::new(piper);
        *loaded = Some((voice, piper.clone()));
        Ok(piper)
    }

    /// Loads `voice` now, so the first answer read does not wait for it.
    pub(crate) async fn warm(&self, voice: LocalVoice) -> Result<(), HubError> {
        self.voice(voice).await.map(drop)
    }

    /// `text` spoken by `voice` in `variant`, as a WAV file. One at a time: the lock on the loaded voice
    /// is held while it speaks (a page asks a sentence at a time, so nobody waits long).
    pub(crate) async fn speak(
        &self,
        voice: LocalVoice,
        text: String,
        variant: Variant,
    ) -> Result<Vec<u8>, HubError> {
        let piper = self.voice(voice).await?;
        let _one = self.loaded.lock().await;
        tokio::task::spawn_blocking(move || piper.speak(&text, variant).map(|s| s.wav()))
            .await
            .map_err(|e| HubError::new(Code::Internal, format!("speaking failed: {e}")))?
            .map_err(HubError::from)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::path::Path;

    use super::*;
    use crate::ui_event::DownloadState;

    fn new_speaker(
        mirror: &str,
    ) -> (
        DeviceSpeaker,
        broadcast::Receiver<UiEvent>,
        tempfile::TempDir,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (feed, heard) = broadcast::channel(64);
        let speaker = DeviceSpeaker::new(dir.path().join("models"), Some(mirror.to_owned()), feed);
        (speaker, heard, dir)
    }

    /// The end of the download `heard` tells: its state and why.
    async fn ended(heard: &mut broadcast::Receiver<UiEvent>) -> (DownloadState, Option<String>) {
        crate::voice::downloads::testing::ended(heard, |e| {
            if let UiEvent::VoiceDownload { state, message, .. } = e {
                Some((state, message))
            } else {
                None
            }
        })
        .await
    }

    /// A server on the loopback that serves the files of `dir` by name.
    fn serve(dir: &Path) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let dir = dir.to_owned();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut line = String::new();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let _ = reader.read_line(&mut line);
                while reader.read_line(&mut String::new()).is_ok_and(|n| n > 2) {}
                let name = line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .trim_start_matches('/');
                match std::fs::read(dir.join(name)) {
                    Ok(body) => {
                        let _ = write!(
                            stream,
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = stream.write_all(&body);
                    }
                    Err(_) => {
                        let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    }
                }
            }
        });
        url
    }

    /// The test voice's folder (Piper's en_US-joe-medium from PyPI, `scripts/voice-test-model`).
    fn test_voices() -> PathBuf {
        let dir = std::env::var_os("CLAWMUX_TEST_VOICES")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                std::env::var_os("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| {
                        PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache")
                    })
                    .join("clawmux-tests/piper")
            });
        assert!(
            dir.join("en_US-joe-medium.onnx").is_file(),
            "the test voice is missing: run scripts/voice-test-model"
        );
        dir
    }

    #[tokio::test]
    async fn a_voice_not_here_is_refused_with_why_and_a_failed_download_is_remembered() {
        let (speaker, mut heard, _dir) = new_speaker("http://127.0.0.1:9");
        let e = speaker
            .speak(
                LocalVoice::JoeMedium,
                "hello".to_owned(),
                Variant::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::VoiceNotDownloaded);
        assert!(e.message.contains("voice settings"), "{}", e.message);
        assert!(!speaker.cancel_download(), "nothing to cancel");
        speaker.download(LocalVoice::JoeMedium).unwrap();
        assert_eq!(
            speaker.download(LocalVoice::JoeMedium).unwrap_err().code,
            Code::DownloadInProgress
        );
        let (state, why) = ended(&mut heard).await;
        assert_eq!(state, DownloadState::Failed);
        let voices = speaker.voices();
        assert_eq!(voices[0].failure, why);
        assert!(!voices[0].downloaded && !voices[0].downloading);
    }

    #[tokio::test]
    async fn the_voice_downloaded_and_checked_speaks_and_a_wrong_file_is_not_kept() {
        let (speaker, mut heard, dir) = new_speaker(&serve(&test_voices()));
        speaker.download(LocalVoice::JoeMedium).unwrap();
        assert_eq!(ended(&mut heard).await, (DownloadState::Done, None));
        assert!(speaker.voices()[0].downloaded);
        let wav = speaker
            .speak(
                LocalVoice::JoeMedium,
                "Sky needs you.".to_owned(),
                Variant::new(1).unwrap(),
            )
            .await
            .unwrap();
        let (samples, rate) = local::decode_wav(&wav).unwrap();
        assert!(rate > 22_050, "a higher variant: {rate}");
        assert!(samples.len() > rate as usize / 2);

        // A mirror serving another file in the voice's place: refused, nothing kept.
        let wrong = tempfile::tempdir().unwrap();
        for name in LocalVoice::JoeMedium.file_names() {
            std::fs::write(wrong.path().join(name), b"not the voice").unwrap();
        }
        let (other, mut heard, _other) = new_speaker(&serve(wrong.path()));
        other.download(LocalVoice::JoeMedium).unwrap();
        assert_eq!(ended(&mut heard).await.0, DownloadState::Failed);
        assert!(!other.voices()[0].downloaded);
        drop(dir);
    }
}
