//! Where a transcript was read to, and what proves the file is still the one read: Claude Code rewrites
//! transcripts in place (its clean-up trims them) and replaces them, so a byte offset alone may point into
//! the middle of other lines. A file with another inode, shorter than the offset, or whose bytes just before
//! the offset are not the ones read there, is read again from its start, and the reader is told so
//! (`started_over`): it then counts nothing it had counted (`transcript.rs`).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::READ_CHUNK;

/// How many of the last bytes read are kept to recognise the file.
const TAIL: usize = 256;

/// A transcript read up to `offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Reading {
    offset: u64,
    /// The file's inode when last read.
    ino: Option<u64>,
    /// The last bytes before `offset`, at most [`TAIL`].
    tail: Vec<u8>,
}

/// What a read brought.
pub(super) struct Chunk {
    /// The bytes after the offset (or from the start).
    pub(super) bytes: Vec<u8>,
    /// Whether the file was read from its start again, being another or rewritten.
    pub(super) started_over: bool,
}

impl Reading {
    /// A transcript to read from `offset` on (where the file ended when the watch began).
    pub(super) fn from(offset: u64) -> Reading {
        Reading {
            offset,
            ..Reading::default()
        }
    }

    /// Reads at most [`READ_CHUNK`] bytes after the offset, or from the start of a file that is not the
    /// one read; moves on past them.
    pub(super) async fn next(&mut self, path: &Path) -> std::io::Result<Chunk> {
        let (path, known) = (path.to_owned(), self.clone());
        let (read, reading) = tokio::task::spawn_blocking(move || read(&path, known))
            .await
            .map_err(std::io::Error::other)??;
        *self = reading;
        Ok(read)
    }
}

fn read(path: &Path, known: Reading) -> std::io::Result<(Chunk, Reading)> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let mut same = known.ino.is_none_or(|ino| ino == meta.ino()) && meta.len() >= known.offset;
    if same && !known.tail.is_empty() {
        same = bytes_before(&mut file, known.offset, known.tail.len())? == known.tail;
    }
    let start = if same { known.offset } else { 0 };
    let mut tail = if same { known.tail } else { Vec::new() };
    if tail.is_empty() && start > 0 {
        tail = bytes_before(&mut file, start, TAIL)?;
    }
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.by_ref()
        .take(READ_CHUNK as u64)
        .read_to_end(&mut bytes)?;
    tail.extend_from_slice(&bytes[bytes.len().saturating_sub(TAIL)..]);
    tail.drain(..tail.len().saturating_sub(TAIL));
    let offset = start + u64::try_from(bytes.len()).unwrap_or(0);
    let reading = Reading {
        offset,
        ino: Some(meta.ino()),
        tail,
    };
    Ok((
        Chunk {
            bytes,
            started_over: !same,
        },
        reading,
    ))
}

/// The (at most `n`) bytes of `file` just before `offset`.
fn bytes_before(file: &mut std::fs::File, offset: u64, n: usize) -> std::io::Result<Vec<u8>> {
    let n = offset.min(n as u64);
    file.seek(SeekFrom::Start(offset - n))?;
    let mut before = Vec::new();
    file.by_ref().take(n).read_to_end(&mut before)?;
    Ok(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(path: &Path, reading: &mut Reading) -> (String, bool) {
        let (read, next) = read(path, reading.clone()).unwrap();
        *reading = next;
        (String::from_utf8(read.bytes).unwrap(), read.started_over)
    }

    #[test]
    fn a_file_grown_is_read_on_and_one_rewritten_or_replaced_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "a1\na2\n").unwrap();
        let mut reading = Reading::from(3);
        assert_eq!(read_all(&path, &mut reading), ("a2\n".into(), false));
        std::fs::write(&path, "a1\na2\na3\n").unwrap();
        assert_eq!(read_all(&path, &mut reading), ("a3\n".into(), false));
        // Trimmed in place and grown past the offset: the bytes before it are others.
        std::fs::write(&path, "a3\na4\na5\na6\n").unwrap();
        assert_eq!(
            read_all(&path, &mut reading),
            ("a3\na4\na5\na6\n".into(), true)
        );
        // Shorter.
        std::fs::write(&path, "b\n").unwrap();
        assert_eq!(read_all(&path, &mut reading), ("b\n".into(), true));
        // Replaced by another file with the same bytes: another inode.
        let other = dir.path().join("new.jsonl");
        std::fs::write(&other, "b\nc\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(read_all(&path, &mut reading), ("b\nc\n".into(), true));
        assert_eq!(read_all(&path, &mut reading), (String::new(), false));
    }
}
