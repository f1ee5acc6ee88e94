//! The desktop app's recorder: where it records from (the microphone, or a WAV file given with
//! `--microphone-file`), the one push-to-talk recording under way and the hands-free listening. The
//! window's commands drive it (`recording.rs`, `listening.rs`); it knows nothing of them, or of the app's
//! state.

use std::sync::{Arc, Mutex};

use clawmux_capture::listen::{self, Heard, Listening};
use clawmux_capture::{Recording, Source};
use clawmux_core::sync::Locked;
use clawmux_core::wire::Code;
use clawmux_hub::HubError;

/// The app's recorder: where it records from, the recording under way and the listening.
pub struct Recorder {
    source: Source,
    current: Mutex<Option<(String, Recording)>>,
    listening: Mutex<Option<Listening>>,
}

impl Recorder {
    /// A recorder for `source`.
    pub fn new(source: Source) -> Arc<Recorder> {
        Arc::new(Recorder {
            source,
            current: Mutex::new(None),
            listening: Mutex::new(None),
        })
    }

    /// Starts recording under a new id; returns once the source records. Blocking: it opens the device.
    pub fn begin(&self) -> Result<String, HubError> {
        let mut current = self.current.locked();
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
        self.current.locked().take()
    }

    /// Listens hands-free until [`Recorder::stop_listening`], giving `on` what is heard (on the
    /// listener's thread); a listening already under way stops first. Blocking: it opens the device.
    pub fn listen(&self, on: impl FnMut(Heard) + Send + 'static) -> Result<(), HubError> {
        self.stop_listening();
        let listening = listen::listen(&self.source, on)
            .map_err(|e| HubError::new(Code::NoMicrophone, e.to_string()))?;
        *self.listening() = Some(listening);
        Ok(())
    }

    /// What the window says while it listens: the app is speaking, the user muted it.
    pub fn hint(&self, speaking: bool, muted: bool) {
        if let Some(listening) = self.listening().as_ref() {
            listening.hints.set_speaking(speaking);
            listening.hints.set_muted(muted);
        }
    }

    /// Stops listening; what was being said is dropped. Blocking: it joins the listener's thread.
    pub fn stop_listening(&self) {
        let listening = self.listening().take();
        drop(listening);
    }

    fn listening(&self) -> std::sync::MutexGuard<'_, Option<Listening>> {
        self.listening.locked()
    }
}
