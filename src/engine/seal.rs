//! A checkpoint file's seal: its length and a stable 64-bit checksum of
//! its bytes, taken as the file is written and recorded in the level's
//! `meta.json`, then compared as a resume reads the file back. A file that
//! was truncated, altered or replaced is refused in one line instead of
//! resumed into wrong counts or a crash; a length read from inside a file
//! is never trusted past the bytes the file has left, so no count in a
//! file can make a reader allocate more than the file holds.
//!
//! The checksum is [`StableHasher`] over the file's bytes sixteen at a
//! time, whatever sizes they were written or read in, then over the tail
//! and the length: the same bytes give the same seal on every build of
//! this scheme and every platform.

use super::fingerprint::StableHasher;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::hash::Hasher;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// What a file held when it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Seal {
    pub(crate) len: u64,
    pub(crate) sum: u64,
}

/// The running checksum of a stream of bytes (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Summer {
    hasher: StableHasher,
    pending: [u8; 16],
    held: usize,
    len: u64,
}

impl Summer {
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.held > 0 {
            let take = (16 - self.held).min(bytes.len());
            self.pending[self.held..self.held + take].copy_from_slice(&bytes[..take]);
            self.held += take;
            bytes = &bytes[take..];
            if self.held < 16 {
                return;
            }
            self.hasher.write_u128(u128::from_le_bytes(self.pending));
            self.held = 0;
        }
        let mut blocks = bytes.chunks_exact(16);
        for block in &mut blocks {
            let word = u128::from_le_bytes(block.try_into().expect("16 bytes"));
            self.hasher.write_u128(word);
        }
        let tail = blocks.remainder();
        self.pending[..tail.len()].copy_from_slice(tail);
        self.held = tail.len();
    }

    /// The seal of the bytes so far.
    pub(crate) fn seal(&self) -> Seal {
        let mut h = self.hasher.clone();
        h.write(&self.pending[..self.held]);
        h.write_u64(self.len);
        Seal {
            len: self.len,
            sum: h.finish(),
        }
    }
}

/// The seal of `bytes`.
pub(crate) fn seal_of(bytes: &[u8]) -> Seal {
    let mut s = Summer::default();
    s.update(bytes);
    s.seal()
}

/// A writer that seals what passes through it.
pub(crate) struct SealingWriter<W> {
    inner: W,
    summer: Summer,
}

impl<W: Write> SealingWriter<W> {
    pub(crate) fn new(inner: W) -> Self {
        SealingWriter {
            inner,
            summer: Summer::default(),
        }
    }

    pub(crate) fn seal(&self) -> Seal {
        self.summer.seal()
    }

    /// The writer it wrote through.
    pub(crate) fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for SealingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.summer.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Reads a sealed file: every method fails, in one line naming the file,
/// rather than read past its end, and [`SealedReader::finish`] checks that
/// all of it was read and matches its seal.
pub(crate) struct SealedReader {
    path: PathBuf,
    input: BufReader<File>,
    left: u64,
    summer: Summer,
    seal: Seal,
}

/// Reads the whole file `path` against `seal` without keeping it.
pub(crate) fn check_file(path: &Path, seal: Seal) -> Result<(), String> {
    let mut input = SealedReader::open(path, seal)?;
    input.skip_rest()?;
    input.finish()
}

/// Reads the whole file `path` against `seal` as records of `size`
/// bytes, each judged by `sound`: `Err` in one line naming the file and
/// what does not hold, its seal first (a damaged file), then the first
/// record that is not sound (it `what`: a file resealed over damage).
pub(crate) fn check_records(
    path: &Path,
    seal: Seal,
    size: usize,
    what: &str,
    mut sound: impl FnMut(&[u8]) -> bool,
) -> Result<(), String> {
    let mut input = SealedReader::open(path, seal)?;
    let mut buf = vec![0; (1 << 16) / size * size];
    let (mut index, mut unsound) = (0u64, None);
    while input.left > 0 {
        let n = input.left.min(buf.len() as u64) as usize;
        input.fill(&mut buf[..n])?;
        for record in buf[..n].chunks(size) {
            if unsound.is_none() && (record.len() < size || !sound(record)) {
                unsound = Some(index);
            }
            index += 1;
        }
    }
    input.finish()?;
    match unsound {
        Some(index) => Err(damaged(path, format_args!("record {index} {what}"))),
        None => Ok(()),
    }
}

/// Why a checkpoint cannot be resumed, ending with what to do.
pub(crate) fn damaged(path: &Path, what: impl std::fmt::Display) -> String {
    format!(
        "{}: {what}: the checkpoint is damaged or was altered; resume an intact copy or run the check afresh",
        path.display()
    )
}

impl SealedReader {
    /// Opens `path`, which must be a regular file of `seal.len` bytes.
    pub(crate) fn open(path: &Path, seal: Seal) -> Result<Self, String> {
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(damaged(path, "not a regular file"));
        }
        if meta.len() != seal.len {
            return Err(damaged(
                path,
                format_args!(
                    "{} bytes, where the checkpoint recorded {}",
                    meta.len(),
                    seal.len
                ),
            ));
        }
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(SealedReader {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(1 << 16, file),
            left: seal.len,
            summer: Summer::default(),
            seal,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Fills `buf`, failing if the file has fewer bytes left.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), String> {
        if buf.len() as u64 > self.left {
            return Err(damaged(
                &self.path,
                format_args!(
                    "needs {} more bytes where {} are left",
                    buf.len(),
                    self.left
                ),
            ));
        }
        self.input
            .read_exact(buf)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        self.summer.update(buf);
        self.left -= buf.len() as u64;
        Ok(())
    }

    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// The next `n` units of `size` bytes, as one buffer: refused before
    /// anything is allocated when the file has fewer bytes left.
    pub(crate) fn bytes(&mut self, n: u64, size: usize) -> Result<Vec<u8>, String> {
        let total = n
            .checked_mul(size as u64)
            .filter(|&t| t <= self.left)
            .ok_or_else(|| {
                damaged(
                    &self.path,
                    format_args!(
                        "holds {n} items of {size} bytes where {} bytes are left",
                        self.left
                    ),
                )
            })?;
        let mut buf = vec![0; total as usize];
        self.fill(&mut buf)?;
        Ok(buf)
    }

    /// Reads the rest of the file, in pieces, only to check it.
    fn skip_rest(&mut self) -> Result<(), String> {
        let mut buf = vec![0; 1 << 16];
        while self.left > 0 {
            let n = self.left.min(buf.len() as u64) as usize;
            self.fill(&mut buf[..n])?;
        }
        Ok(())
    }

    /// Checks that the whole file was read and matches its seal.
    pub(crate) fn finish(self) -> Result<(), String> {
        if self.left > 0 {
            return Err(damaged(
                &self.path,
                format_args!("{} bytes past the end of its contents", self.left),
            ));
        }
        if self.summer.seal() != self.seal {
            return Err(damaged(
                &self.path,
                "its checksum differs from the recorded one",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_does_not_depend_on_how_the_bytes_were_split() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = seal_of(&bytes);
        for cut in [1, 3, 15, 16, 17, 500] {
            let mut s = Summer::default();
            for piece in bytes.chunks(cut) {
                s.update(piece);
            }
            assert_eq!(s.seal(), whole, "pieces of {cut}");
        }
        assert_eq!(whole.len, 1000);
    }

    #[test]
    fn a_seal_tells_apart_one_flipped_bit_and_a_trailing_zero() {
        let bytes = vec![0u8; 4096];
        let whole = seal_of(&bytes);
        for at in [0, 17, 4095] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1;
            assert_ne!(seal_of(&flipped).sum, whole.sum, "bit at byte {at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_ne!(seal_of(&longer).sum, whole.sum);
        assert_ne!(seal_of(&bytes[..4095]).sum, whole.sum);
    }

    #[test]
    fn a_reader_refuses_counts_past_the_end_and_altered_bytes() {
        let dir = std::env::temp_dir().join(format!("memtx-seal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        let mut bytes = 3u64.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[1, 2, 3]);
        std::fs::write(&path, &bytes).unwrap();
        let seal = seal_of(&bytes);

        let mut r = SealedReader::open(&path, seal).unwrap();
        let n = r.u64().unwrap();
        assert_eq!(r.bytes(n, 1).unwrap(), vec![1, 2, 3]);
        r.finish().unwrap();

        let mut r = SealedReader::open(&path, seal).unwrap();
        r.u64().unwrap();
        let huge = r.bytes(u64::MAX / 2, 8).unwrap_err();
        assert!(huge.contains("items of 8 bytes"), "{huge}");

        let mut r = SealedReader::open(&path, seal).unwrap();
        r.u64().unwrap();
        assert!(r.finish().unwrap_err().contains("3 bytes past the end"));

        check_file(&path, seal).unwrap();
        bytes[9] = 9;
        std::fs::write(&path, &bytes).unwrap();
        assert!(check_file(&path, seal)
            .unwrap_err()
            .contains("checksum differs"));

        let short = SealedReader::open(&path, Seal { len: 5, ..seal })
            .err()
            .unwrap();
        assert!(
            short.contains("11 bytes, where the checkpoint recorded 5"),
            "{short}"
        );
        let not_file = SealedReader::open(&dir, seal).err().unwrap();
        assert!(not_file.contains("not a regular file"), "{not_file}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
