//! The files users attach to their messages: kept once each, by content, in `<data dir>/attachments`
//! (0700, each file 0600), found again when a message names one, and read back for the chat's thumbnails.
//!
//! Why a file is kept before its message is sent: the user pastes a screenshot and goes on typing, so the
//! upload runs meanwhile and the send that follows carries only ids; and a message queued while the hub
//! was unreachable names the same kept file however often it is sent again.
//!
//! A kept file is complete or absent: it is written under a temporary name, synced, and renamed to its
//! content's hash, so a crash never leaves a message naming half a file. A file no message names goes
//! after a week (`sweep.rs`).

mod identify;
mod sweep;

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use clawmux_core::wire::{
    clean_name, Attachment, AttachmentId, AttachmentRef, Code, MAX_ATTACHMENT, MAX_ATTACHMENTS,
};
use sha2::{Digest, Sha256};

use clawmux_store::Store;

use crate::error::HubError;
use identify::{identify, image_type};
pub use sweep::UNSENT_KEPT_FOR;

/// The folder of the kept files, under the data folder.
pub const FOLDER: &str = "attachments";

/// The user's attached files. Made once when the hub opens, with the data folder and the store (which
/// says what the messages name).
#[derive(Debug, Clone)]
pub struct Attachments {
    dir: PathBuf,
    store: Store,
}

impl Attachments {
    /// The files kept under `data_dir`.
    pub fn new(data_dir: &Path, store: Store) -> Attachments {
        Attachments {
            dir: data_dir.join(FOLDER),
            store,
        }
    }

    /// Sweeps the folder now and then once a day, until `tasks` stop.
    pub fn start(&self, tasks: &crate::tasks::Tasks) {
        let files = self.clone();
        tasks.spawn(async move {
            loop {
                match files.sweep(std::time::SystemTime::now()).await {
                    Ok(removed) if !removed.is_empty() => {
                        tracing::info!(
                            count = removed.len(),
                            "removed attached files no message names"
                        );
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %e.message, "could not sweep the attached files")
                    }
                }
                tokio::time::sleep(sweep::EVERY).await;
            }
        });
    }

    /// Removes the kept files no message names that were kept before `now` less [`UNSENT_KEPT_FOR`];
    /// their names.
    pub async fn sweep(&self, now: std::time::SystemTime) -> Result<Vec<String>, HubError> {
        let named = self
            .store
            .attachment_ids()
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?;
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || sweep::sweep(&dir, &named, now))
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
            .map_err(|e| HubError::new(Code::Internal, format!("cannot sweep {FOLDER}: {e}")))
    }

    /// Where the files are kept (the agents may read there).
    pub fn folder(&self) -> &Path {
        &self.dir
    }

    /// Keeps a file the user attached, named `name`: what it is, and where the agent will read it. The
    /// same content kept again is the same file.
    pub async fn keep(&self, name: &str, bytes: Vec<u8>) -> Result<Attachment, HubError> {
        let name = clean_name(name);
        if bytes.is_empty() {
            return Err(HubError::new(
                Code::BadAttachment,
                format!("`{name}` is empty: there is nothing to attach"),
            ));
        }
        let size = bytes.len() as u64;
        check_size(&name, size)?;
        let found = identify(&name, &bytes).map_err(|e| HubError::new(Code::BadAttachment, e))?;
        let dir = self.dir.clone();
        let kept = name.clone();
        let id = tokio::task::spawn_blocking(move || store(&dir, &bytes, found.ext.as_deref()))
            .await
            .map_err(|e| HubError::new(Code::Internal, e.to_string()))?
            .map_err(|e| HubError::new(Code::CannotSave, format!("cannot keep `{kept}`: {e}")))?;
        Ok(Attachment {
            path: self.dir.join(id.as_str()).display().to_string(),
            id,
            name,
            kind: found.kind,
            media_type: found.media_type.to_owned(),
            size,
        })
    }

    /// The files a message names, as the agent will read them; refuses too many, and any not kept.
    pub async fn resolve(&self, refs: &[AttachmentRef]) -> Result<Vec<Attachment>, HubError> {
        if refs.len() > MAX_ATTACHMENTS {
            return Err(HubError::new(
                Code::BadAttachment,
                format!(
                    "a message may carry at most {MAX_ATTACHMENTS} files, not {}",
                    refs.len()
                ),
            ));
        }
        let mut files = Vec::with_capacity(refs.len());
        for r in refs {
            let (path, size) = self.kept(&r.id).await?;
            // An image was found to be one when it was kept (its id says which): its first bytes confirm
            // it. Anything else is read whole, to tell text from other files again.
            let bytes = if image_type(r.id.ext()).is_some() {
                head(&path).await
            } else {
                tokio::fs::read(&path).await
            }
            .map_err(|_| unknown(&r.id))?;
            let name = clean_name(&r.name);
            let found = identify(&name, &bytes)
                .or_else(|_| identify(r.id.as_str(), &bytes))
                .map_err(|e| HubError::new(Code::BadAttachment, e))?;
            files.push(Attachment {
                id: r.id.clone(),
                name,
                kind: found.kind,
                media_type: found.media_type.to_owned(),
                size,
                path: path.display().to_string(),
            });
        }
        Ok(files)
    }

    /// A kept file's path and size; refuses one that is not kept (never, or gone since). Only a plain
    /// file of ours: never a link someone put in its place.
    async fn kept(&self, id: &AttachmentId) -> Result<(PathBuf, u64), HubError> {
        let path = self.dir.join(id.as_str());
        match tokio::fs::symlink_metadata(&path).await {
            Ok(m) if m.is_file() => Ok((path, m.len())),
            _ => Err(unknown(id)),
        }
    }

    /// A kept file named by a client's id (the chat's thumbnails and downloads): its bytes, and its media
    /// type when it was kept as an image. Refuses an id that is not one, and a file not kept.
    pub async fn read(&self, id: &str) -> Result<(Vec<u8>, Option<&'static str>), HubError> {
        let id = AttachmentId::parse(id)
            .map_err(|e| HubError::new(Code::UnknownAttachment, e.to_string()))?;
        let (path, _) = self.kept(&id).await?;
        let bytes = tokio::fs::read(&path).await.map_err(|_| unknown(&id))?;
        Ok((bytes, image_type(id.ext())))
    }
}

/// Why a file named by a message cannot be found.
fn unknown(id: &AttachmentId) -> HubError {
    HubError::new(
        Code::UnknownAttachment,
        format!("no attached file {id}: attach it again"),
    )
}

/// The first bytes of a file: enough for an image's signature.
async fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::with_capacity(16);
    tokio::fs::File::open(path)
        .await?
        .take(16)
        .read_to_end(&mut bytes)
        .await?;
    Ok(bytes)
}

/// A file's bytes from the base64 a command carries: a file over the limit is refused before it is
/// decoded, and what is not base64 is refused whole.
pub fn decode(name: &str, data: &str) -> Result<Vec<u8>, HubError> {
    use base64::Engine;
    let name = clean_name(name);
    check_size(&name, (data.len() as u64 / 4) * 3)?;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| {
            HubError::new(
                Code::BadAttachment,
                format!("`{name}` did not arrive whole (not base64: {e})"),
            )
        })
}

/// Refuses a file over [`MAX_ATTACHMENT`], saying both sizes.
fn check_size(name: &str, size: u64) -> Result<(), HubError> {
    if size > MAX_ATTACHMENT {
        return Err(HubError::new(
            Code::AttachmentTooLarge,
            format!(
                "`{name}` is {}; a file may be at most {}",
                megabytes(size),
                megabytes(MAX_ATTACHMENT)
            ),
        ));
    }
    Ok(())
}

/// A size in megabytes, one decimal.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// Writes `bytes` under their hash (synced, then renamed into place), unless a file of that content is
/// kept already. The folder is made 0700.
fn store(dir: &Path, bytes: &[u8], ext: Option<&str>) -> std::io::Result<AttachmentId> {
    let hash = clawmux_core::hex::hex(&Sha256::digest(bytes));
    let id = AttachmentId::new(&hash, ext).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    let path = dir.join(id.as_str());
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
    {
        // Kept again: its week starts again (`sweep.rs`).
        sweep::renew(&path)?;
        return Ok(id);
    }
    let tmp = dir.join(format!(".{hash}.{:08x}", fastrand::u32(..)));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(bytes)?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(id)
}

#[cfg(test)]
mod tests;
