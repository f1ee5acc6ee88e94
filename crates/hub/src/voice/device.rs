//! Speech to text on the device: the model the hub keeps loaded, and its download. [`DeviceVoice`] owns
//! both and their rules (one download at a time, a cancel only of one under way, a model loaded in place
//! of another, one transcription at a time), with unit tests of its own that need no hub.
//!
//! Loading a model takes a moment (base.en: a few hundred milliseconds), so the UI asks the hub to warm it
//! when recording starts (`warm_voice`); the transcription that follows finds it loaded. One transcription
//! runs at a time, on whisper.cpp's own threads (at most [`THREADS`]), off the async ones. A download runs
//! one at a time too, and is told on the UI feed (`model_download`: progress, then how it ended) so the
//! window shows it; `clawmux voice download` shows the same on a terminal.

use std::path::PathBuf;
use std::sync::Arc;

use clawmux_core::wire::Code;
use clawmux_voice::local::{self, Engine, LocalModel, ModelFile};
use tokio::sync::broadcast;

use super::downloads::Downloads;
use crate::error::HubError;
pub use crate::ui_event::DownloadState;
use crate::ui_event::UiEvent;
pub use clawmux_api::voice::ModelState;

/// whisper.cpp's threads for one transcription: the machine's cores, at most four (more buys little for
/// these models, and the agents need the machine too).
pub const THREADS: usize = 4;

/// Speech to text on the device, as the hub keeps it: where the models are and come from, the one loaded,
/// and the download under way.
pub(crate) struct DeviceVoice {
    /// The folder of the downloaded models.
    dir: PathBuf,
    /// Where models are published instead of whisper.cpp's repository (`CLAWMUX_MODELS_URL`).
    models_url: Option<String>,
    /// The UI feed, where a download is told.
    feed: broadcast::Sender<UiEvent>,
    /// The loaded model (an async lock: a transcription waits for a load under way rather than start
    /// another).
    engine: tokio::sync::Mutex<Option<(LocalModel, Arc<Engine>)>>,
    /// One transcription at a time.
    running: tokio::sync::Mutex<()>,
    downloads: Arc<Downloads<LocalModel>>,
}

impl DeviceVoice {
    /// The device's voice with its models in `dir`, downloaded from `models_url` when given, its downloads
    /// told on `feed`.
    pub(crate) fn new(
        dir: PathBuf,
        models_url: Option<String>,
        feed: broadcast::Sender<UiEvent>,
    ) -> DeviceVoice {
        DeviceVoice {
            dir,
            models_url,
            feed,
            engine: tokio::sync::Mutex::new(None),
            running: tokio::sync::Mutex::new(()),
            downloads: Arc::default(),
        }
    }

    /// Where `model` is published (`CLAWMUX_MODELS_URL` replaces whisper.cpp's repository, for a mirror).
    fn model_file(&self, model: LocalModel) -> ModelFile {
        let mut file = model.file();
        if let Some(base) = &self.models_url {
            file.url = format!("{}/{}", base.trim_end_matches('/'), model.file_name());
        }
        file
    }

    /// Every model the device can use: its size, whether it is downloaded, how far a download is.
    pub(crate) fn models(&self) -> Vec<ModelState> {
        let downloading = self.downloads.under_way();
        LocalModel::ALL
            .into_iter()
            .map(|m| ModelState {
                model: m,
                size: m.file().size,
                downloaded: m.path(&self.dir).is_file(),
                partial: std::fs::metadata(local::part_path(&m.path(&self.dir)))
                    .map(|md| md.len())
                    .ok(),
                downloading: downloading == Some(m),
                failure: self.downloads.failure(m),
            })
            .collect()
    }

    /// The engine with `model` loaded (loading it, in place of another, if need be).
    pub(crate) async fn engine(&self, model: LocalModel) -> Result<Arc<Engine>, HubError> {
        let mut loaded = self.engine.lock().await;
        if let Some((m, engine)) = loaded.as_ref() {
            if *m == model {
                return Ok(engine.clone());
            }
        }
        let path = model.path(&self.dir);
        if !path.is_file() {
            return Err(HubError::new(
                Code::ModelNotDownloaded,
                format!(
                    "the speech model {model} is not downloaded yet ({} MiB): download it in the voice settings, or with `clawmux voice download {model}`; the recording is kept",
                    model.file().size >> 20
                ),
            ));
        }
        // The old model goes first: two in memory at once is what a small machine cannot afford.
        *loaded = None;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(THREADS));
        let engine = tokio::task::spawn_blocking(move || Engine::load(&path, threads))
            .await
            .map_err(|e| {
                HubError::new(Code::Internal, format!("loading the model failed: {e}"))
            })??;
        let engine = Arc::new(engine);
        *loaded = Some((model, engine.clone()));
        Ok(engine)
    }

    /// The words of a WAV recording, heard with `model`.
    pub(crate) async fn transcribe(
        &self,
        model: LocalModel,
        content_type: &str,
        audio: std::sync::Arc<Vec<u8>>,
        prompt: Option<String>,
    ) -> Result<String, HubError> {
        if !content_type.starts_with("audio/wav") && !content_type.starts_with("audio/x-wav") {
            return Err(HubError::new(
                Code::NotAudio,
                format!("the on-device engine takes WAV recordings, not `{content_type}`"),
            ));
        }
        let engine = self.engine(model).await?;
        let _one = self.running.lock().await;
        tokio::task::spawn_blocking(move || {
            let (samples, rate) = local::decode_wav(&audio)?;
            engine.transcribe(&local::to_16k(&samples, rate)?, prompt.as_deref())
        })
        .await
        .map_err(|e| HubError::new(Code::Internal, format!("the transcription failed: {e}")))?
        .map_err(HubError::from)
    }

    /// Starts downloading `model` (one download at a time); its progress and end go out on the UI feed.
    pub(crate) fn download(&self, model: LocalModel) -> Result<(), HubError> {
        let feed = self.feed.clone();
        let files = vec![(self.model_file(model), model.path(&self.dir))];
        self.downloads.start(model, files, move |model, told| {
            // No receiver means no UI is open: not an error.
            let _ = feed.send(UiEvent::ModelDownload {
                model,
                done: told.done,
                total: told.total,
                state: told.state,
                message: told.message,
            });
        })
    }

    /// Cancels the download under way (its partial file is kept for the next try).
    pub(crate) fn cancel_download(&self) -> Result<(), HubError> {
        if self.downloads.cancel() {
            Ok(())
        } else {
            Err(HubError::new(Code::NotPending, "no download is under way"))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    use super::*;

    fn device(models_url: &str) -> (DeviceVoice, broadcast::Receiver<UiEvent>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let (feed, heard) = broadcast::channel(64);
        let voice = DeviceVoice::new(dir.path().join("models"), Some(models_url.to_owned()), feed);
        (voice, heard, dir)
    }

    /// The end of the download `heard` tells: its state and why.
    async fn ended(heard: &mut broadcast::Receiver<UiEvent>) -> (DownloadState, Option<String>) {
        crate::voice::downloads::testing::ended(heard, |e| {
            if let UiEvent::ModelDownload { state, message, .. } = e {
                Some((state, message))
            } else {
                None
            }
        })
        .await
    }

    /// A server that answers every request with the start of a large body, then holds the connection.
    fn trickle() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\nsome bytes");
                held.push(stream);
            }
        });
        url
    }

    #[tokio::test]
    async fn one_download_at_a_time_and_a_cancel_ends_the_one_under_way() {
        let (voice, mut heard, _dir) = device(&trickle());
        assert_eq!(
            voice.cancel_download().unwrap_err().code,
            Code::NotPending,
            "nothing to cancel yet"
        );
        voice.download(LocalModel::TinyEn).unwrap();
        assert_eq!(
            voice.download(LocalModel::BaseEn).unwrap_err().code,
            Code::DownloadInProgress
        );
        let models = voice.models();
        assert_eq!(models[0].model, LocalModel::TinyEn);
        assert!(models[0].downloading);
        assert!(!models[1].downloading);
        voice.cancel_download().unwrap();
        assert_eq!(ended(&mut heard).await.0, DownloadState::Cancelled);
        assert!(!voice.models()[0].downloading);
        assert_eq!(
            voice.cancel_download().unwrap_err().code,
            Code::NotPending,
            "the cancelled download is over"
        );
    }

    #[tokio::test]
    async fn a_failed_download_is_told_and_remembered() {
        // Nothing listens on the discard port of the loopback.
        let (voice, mut heard, _dir) = device("http://127.0.0.1:9");
        voice.download(LocalModel::TinyEn).unwrap();
        let (state, why) = ended(&mut heard).await;
        assert_eq!(state, DownloadState::Failed);
        let why = why.unwrap();
        let models = voice.models();
        assert_eq!(models[0].failure.as_deref(), Some(why.as_str()));
        assert!(!models[0].downloaded);
        assert_eq!(models[1].failure, None);
    }

    #[tokio::test]
    async fn a_model_not_here_and_a_recording_not_wav_are_refused_with_why() {
        let (voice, _heard, _dir) = device("http://127.0.0.1:9");
        let e = voice.engine(LocalModel::BaseEn).await.err().unwrap();
        assert_eq!(e.code, Code::ModelNotDownloaded);
        assert!(
            e.message.contains("clawmux voice download base.en"),
            "{}",
            e.message
        );
        let e = voice
            .transcribe(LocalModel::BaseEn, "audio/webm", vec![1, 2, 3].into(), None)
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::NotAudio);
    }
}
