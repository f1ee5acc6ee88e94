//! Speech to text on the device: the model the hub keeps loaded, and its download.
//!
//! Loading a model takes a moment (base.en: a few hundred milliseconds), so the UI asks the hub to warm it
//! when recording starts ([`Hub::warm_voice`]); the transcription that follows finds it loaded. One
//! transcription runs at a time, on whisper.cpp's own threads (at most [`THREADS`]), off the async ones.
//! A download runs one at a time too, and is told on the UI feed (`model_download`: progress, then how
//! it ended) so the window shows it; `clawmux voice download` shows the same on a terminal.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clawmux_core::wire::Code;
use clawmux_voice::local::{self, Engine, LocalModel, ModelFile, Progress, Timeouts};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::HubError;
use crate::hub::Hub;
use crate::ui_event::UiEvent;

/// whisper.cpp's threads for one transcription: the machine's cores, at most four (more buys little for
/// these models, and the agents need the machine too).
pub const THREADS: usize = 4;
/// How often a download's progress is told, at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The device's engine, as the hub keeps it.
#[derive(Default)]
pub(crate) struct DeviceVoice {
    /// The loaded model (an async lock: a transcription waits for a load under way rather than start
    /// another).
    engine: tokio::sync::Mutex<Option<(LocalModel, Arc<Engine>)>>,
    /// One transcription at a time.
    running: tokio::sync::Mutex<()>,
    /// The download under way: its model, and the flag that cancels it.
    download: Mutex<Option<(LocalModel, Arc<AtomicBool>)>>,
    /// How each model's last download failed or stopped, if it did (for `clawmux voice download`).
    failures: Mutex<std::collections::HashMap<LocalModel, String>>,
}

/// How a download stands, on the UI feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DownloadState {
    /// Bytes are arriving.
    Running,
    /// The model is in place.
    Done,
    /// It failed; the message says why.
    Failed,
    /// The user cancelled it; the partial file is kept.
    Cancelled,
}

impl DownloadState {
    /// Every state.
    pub const ALL: [DownloadState; 4] = [
        DownloadState::Running,
        DownloadState::Done,
        DownloadState::Failed,
        DownloadState::Cancelled,
    ];
}

impl Hub {
    /// The folder of the downloaded models.
    pub fn models_dir(&self) -> PathBuf {
        self.data_dir().join("models")
    }

    /// Where `model` is published (`CLAWMUX_MODELS_URL` replaces whisper.cpp's repository, for a mirror).
    fn model_file(&self, model: LocalModel) -> ModelFile {
        let mut file = model.file();
        if let Some(base) = &self.options().models_url {
            file.url = format!("{}/{}", base.trim_end_matches('/'), model.file_name());
        }
        file
    }

    /// Every model the device can use: its size, whether it is downloaded, how far a download is.
    pub fn voice_models(&self) -> Value {
        let dir = self.models_dir();
        let downloading = self
            .device_voice()
            .download
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|(m, _)| *m);
        let failures = self
            .device_voice()
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let models: Vec<Value> = LocalModel::ALL
            .into_iter()
            .map(|m| {
                let part = std::fs::metadata(local::part_path(&m.path(&dir)))
                    .map(|md| md.len())
                    .ok();
                json!({
                    "model": m,
                    "size": m.file().size,
                    "downloaded": m.path(&dir).is_file(),
                    "partial": part,
                    "downloading": downloading == Some(m),
                    "failure": failures.get(&m),
                })
            })
            .collect();
        json!({ "models": models })
    }

    /// Loads the model the settings name, if speech becomes text on the device and the model is here:
    /// called when the user starts talking, so the words are not kept waiting for it.
    pub async fn warm_voice(&self) -> Result<(), HubError> {
        let settings = self.voice_settings().await?;
        if settings.speech_to_text() != clawmux_voice::SpeechToText::Device {
            return Ok(());
        }
        match self.engine(settings.local_model).await {
            // Nothing to warm yet: the recording that follows says so, and keeps itself.
            Err(e) if e.code == Code::ModelNotDownloaded => Ok(()),
            other => other.map(drop),
        }
    }

    /// The engine with `model` loaded (loading it, in place of another, if need be).
    async fn engine(&self, model: LocalModel) -> Result<Arc<Engine>, HubError> {
        let mut loaded = self.device_voice().engine.lock().await;
        if let Some((m, engine)) = loaded.as_ref() {
            if *m == model {
                return Ok(engine.clone());
            }
        }
        let path = model.path(&self.models_dir());
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

    /// The words of a WAV recording, heard on the device with the model the settings name.
    pub(crate) async fn transcribe_on_device(
        &self,
        model: LocalModel,
        content_type: &str,
        audio: Vec<u8>,
    ) -> Result<String, HubError> {
        if !content_type.starts_with("audio/wav") && !content_type.starts_with("audio/x-wav") {
            return Err(HubError::new(
                Code::NotAudio,
                format!("the on-device engine takes WAV recordings, not `{content_type}`"),
            ));
        }
        let engine = self.engine(model).await?;
        let _one = self.device_voice().running.lock().await;
        tokio::task::spawn_blocking(move || {
            let (samples, rate) = local::decode_wav(&audio)?;
            engine.transcribe(&local::to_16k(&samples, rate)?)
        })
        .await
        .map_err(|e| HubError::new(Code::Internal, format!("the transcription failed: {e}")))?
        .map_err(HubError::from)
    }

    /// Starts downloading `model` (one download at a time); its progress and end go out on the UI feed.
    pub fn download_model(&self, model: LocalModel) -> Result<(), HubError> {
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut current = self
                .device_voice()
                .download
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some((m, _)) = current.as_ref() {
                return Err(HubError::new(
                    Code::DownloadInProgress,
                    format!("{m} is being downloaded already"),
                ));
            }
            *current = Some((model, cancel.clone()));
        }
        self.device_voice()
            .failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&model);
        let (hub, file, dest) = (
            self.clone(),
            self.model_file(model),
            model.path(&self.models_dir()),
        );
        tokio::task::spawn_blocking(move || {
            let total = file.size;
            let mut told = Instant::now() - PROGRESS_EVERY;
            let mut tell = |p: Progress| {
                if told.elapsed() >= PROGRESS_EVERY {
                    told = Instant::now();
                    hub.broadcast(UiEvent::ModelDownload {
                        model,
                        done: p.done,
                        total: p.total,
                        state: DownloadState::Running,
                        message: None,
                    });
                }
            };
            let result = local::download(&file, &dest, Timeouts::default(), &cancel, &mut tell);
            let done = std::fs::metadata(&dest)
                .or_else(|_| std::fs::metadata(local::part_path(&dest)))
                .map(|m| m.len())
                .unwrap_or(0);
            let (state, message) = match result {
                Ok(()) => (DownloadState::Done, None),
                Err(e) if e.code == Code::DownloadCancelled => {
                    (DownloadState::Cancelled, Some(e.message))
                }
                Err(e) => (DownloadState::Failed, Some(e.message)),
            };
            match &message {
                Some(why) => {
                    tracing::warn!(%model, why, "the model's download ended");
                    hub.device_voice()
                        .failures
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(model, why.clone());
                }
                None => tracing::info!(%model, "the model is downloaded"),
            }
            *hub.device_voice()
                .download
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = None;
            hub.broadcast(UiEvent::ModelDownload {
                model,
                done,
                total,
                state,
                message,
            });
        });
        Ok(())
    }

    /// Cancels the download under way (its partial file is kept for the next try).
    pub fn cancel_download(&self) -> Result<(), HubError> {
        match self
            .device_voice()
            .download
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            Some((_, cancel)) => {
                cancel.store(true, Ordering::SeqCst);
                Ok(())
            }
            None => Err(HubError::new(Code::NotPending, "no download is under way")),
        }
    }
}
