//! Downloading what the device's voice needs (a speech model, a voice's files): one download of a kind at
//! a time, cancellable, its failure remembered for the next look, its progress told as it goes. The
//! files themselves are fetched and checked by `clawmux_voice::local::download`; this is the bookkeeping
//! the hub keeps around it, for any kind of thing downloaded (`K`: which one).

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use clawmux_core::wire::Code;
use clawmux_voice::local::{self, ModelFile, Progress, Timeouts};

use crate::error::HubError;
pub use crate::ui_event::DownloadState;
use clawmux_core::sync::Locked;

/// How often a download's progress is told, at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// What a download tells as it goes and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Told {
    /// Bytes downloaded.
    pub done: u64,
    /// Bytes in all.
    pub total: u64,
    /// Under way, or how it ended.
    pub state: DownloadState,
    /// Why it failed or stopped.
    pub message: Option<String>,
}

/// The download under way, and how each one's last download failed or stopped: shared with the
/// download's thread, which ends it.
pub(crate) struct Downloads<K> {
    current: Mutex<Option<(K, Arc<AtomicBool>)>>,
    failures: Mutex<HashMap<K, String>>,
}

impl<K> Default for Downloads<K> {
    fn default() -> Downloads<K> {
        Downloads {
            current: Mutex::new(None),
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Copy + Eq + Hash + Display + Send + 'static> Downloads<K> {
    fn current(&self) -> MutexGuard<'_, Option<(K, Arc<AtomicBool>)>> {
        self.current.locked()
    }

    fn failures(&self) -> MutexGuard<'_, HashMap<K, String>> {
        self.failures.locked()
    }

    /// What is being downloaded now.
    pub(crate) fn under_way(&self) -> Option<K> {
        self.current().as_ref().map(|(k, _)| *k)
    }

    /// How `key`'s last download failed or stopped, if it did.
    pub(crate) fn failure(&self, key: K) -> Option<String> {
        self.failures().get(&key).cloned()
    }

    /// Starts downloading `files` of `key`, one after the other, into their paths (one download at a
    /// time); `tell` hears its progress and its end, from the download's thread.
    pub(crate) fn start(
        self: &Arc<Self>,
        key: K,
        files: Vec<(ModelFile, PathBuf)>,
        mut tell: impl FnMut(K, Told) + Send + 'static,
    ) -> Result<(), HubError> {
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut current = self.current();
            if let Some((k, _)) = current.as_ref() {
                return Err(HubError::new(
                    Code::DownloadInProgress,
                    format!("{k} is being downloaded already"),
                ));
            }
            *current = Some((key, cancel.clone()));
        }
        self.failures().remove(&key);
        let downloads = self.clone();
        tokio::task::spawn_blocking(move || {
            let total = files.iter().map(|(f, _)| f.size).sum();
            let result = fetch_all(&files, &cancel, |done| {
                tell(
                    key,
                    Told {
                        done,
                        total,
                        state: DownloadState::Running,
                        message: None,
                    },
                );
            });
            let done = on_disk(&files);
            let (state, message) = how_it_ended(result);
            match &message {
                Some(why) => {
                    tracing::warn!(%key, why, "the download ended");
                    downloads.failures().insert(key, why.clone());
                }
                None => tracing::info!(%key, "downloaded"),
            }
            *downloads.current() = None;
            tell(
                key,
                Told {
                    done,
                    total,
                    state,
                    message,
                },
            );
        });
        Ok(())
    }

    /// Cancels the download under way, if there is one (its partial files are kept for the next try).
    pub(crate) fn cancel(&self) -> bool {
        match self.current().as_ref() {
            Some((_, cancel)) => {
                cancel.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }
}

/// What the tests of the downloads share.
/// Downloads `files` one after the other, telling `running` the bytes done (of them all) every
/// [`PROGRESS_EVERY`]; the first failure ends it.
fn fetch_all(
    files: &[(ModelFile, PathBuf)],
    cancel: &AtomicBool,
    mut running: impl FnMut(u64),
) -> Result<(), clawmux_voice::VoiceError> {
    let mut told = Instant::now() - PROGRESS_EVERY;
    let mut before = 0;
    for (file, dest) in files {
        let mut progress = |p: Progress| {
            if told.elapsed() >= PROGRESS_EVERY {
                told = Instant::now();
                running(before + p.done);
            }
        };
        local::download(file, dest, Timeouts::default(), cancel, &mut progress)?;
        before += file.size;
    }
    Ok(())
}

/// The bytes of `files` on disk: whole, or partial.
fn on_disk(files: &[(ModelFile, PathBuf)]) -> u64 {
    files
        .iter()
        .map(|(_, dest)| {
            std::fs::metadata(dest)
                .or_else(|_| std::fs::metadata(local::part_path(dest)))
                .map_or(0, |m| m.len())
        })
        .sum()
}

/// How a download ended, as the window is told: its state, and why when it did not finish.
fn how_it_ended(result: Result<(), clawmux_voice::VoiceError>) -> (DownloadState, Option<String>) {
    match result {
        Ok(()) => (DownloadState::Done, None),
        Err(e) if e.code == Code::DownloadCancelled => (DownloadState::Cancelled, Some(e.message)),
        Err(e) => (DownloadState::Failed, Some(e.message)),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use tokio::sync::broadcast;

    use super::DownloadState;
    use crate::ui_event::UiEvent;

    /// The end of the download `heard` tells: its state and why (`told` reads them from the kind of
    /// event the download sends).
    pub(crate) async fn ended(
        heard: &mut broadcast::Receiver<UiEvent>,
        told: impl Fn(UiEvent) -> Option<(DownloadState, Option<String>)>,
    ) -> (DownloadState, Option<String>) {
        loop {
            match tokio::time::timeout(std::time::Duration::from_secs(60), heard.recv()).await {
                Ok(Ok(event)) => match told(event) {
                    Some((state, message)) if state != DownloadState::Running => {
                        return (state, message)
                    }
                    Some(_) | None => {}
                },
                Ok(Err(e)) => panic!("the feed broke: {e}"),
                Err(_) => panic!("the download never ended"),
            }
        }
    }
}
