//! The desktop app's push-to-talk recorder: where it records from (the microphone, or a WAV file given
//! with `--microphone-file`) and the one recording under way. The window's commands drive it
//! (`recording.rs`); it knows nothing of them, or of the app's state.

use std::sync::{Arc, Mutex, PoisonError};

use clawmux_capture::{Recording, Source};
use clawmux_core::wire::Code;
use clawmux_hub::HubError;

/// The app's recorder: where it records from, and the recording under way.
pub struct Recorder {
    source: Source,
    current: Mutex<Option<(String, Recording)>>,
}

impl Recorder {
    /// A recorder for `source`.
    pub fn new(source: Source) -> Arc<Recorder> {
        Arc::new(Recorder {
            source,
            current: Mutex::new(None),
        })
    }

    /// Starts recording under a new id; returns once the source records. Blocking: it opens the device.
    pub fn begin(&self) -> Result<String, HubError> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.is_some() {
            return Err(HubError::new(
                Code::AlreadyRecording,
                "a recording is already under way",
            ));
        }
        let recording = clawmux_capture::start(&self.source)
            .map_err(|e| HubError::new(Code::NoMicrophone, e.to_string()))?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        *current = Some((id.clone(), recording));
        Ok(id)
    }

    /// The recording under way, if any, taken from the recorder.
    pub fn take(&self) -> Option<(String, Recording)> {
        self.current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}
