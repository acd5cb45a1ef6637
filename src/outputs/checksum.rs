//! [`Checksum`]: the size and FNV-1a 64-bit hash of a file's bytes, as a
//! report set's manifest records them, so a reader can tell a file of the
//! run the manifest names from a file of another run. FNV-1a is no
//! defence against forgery, only against mixing; it needs no dependency.

use serde::{Deserialize, Serialize};
use std::io::{self, Write};

/// A file's size and hash, as the manifest writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checksum {
    pub bytes: u64,
    /// 16 lowercase hex digits.
    pub fnv1a64: String,
}

/// A writer that passes bytes through and checksums them.
pub struct Summing<W> {
    inner: W,
    bytes: u64,
    hash: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl<W: Write> Summing<W> {
    pub fn new(inner: W) -> Self {
        Summing {
            inner,
            bytes: 0,
            hash: FNV_OFFSET,
        }
    }

    /// The checksum of what went through, and the writer.
    pub fn finish(self) -> (Checksum, W) {
        (
            Checksum {
                bytes: self.bytes,
                fnv1a64: format!("{:016x}", self.hash),
            },
            self.inner,
        )
    }
}

impl<W: Write> Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        for &b in &buf[..n] {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The checksum of `bytes`.
pub fn checksum(bytes: &[u8]) -> Checksum {
    let mut s = Summing::new(io::sink());
    // A sink takes every byte.
    let _ = s.write_all(bytes);
    s.finish().0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_of_known_strings() {
        // The reference values of the FNV specification.
        assert_eq!(checksum(b"").fnv1a64, "cbf29ce484222325");
        assert_eq!(checksum(b"a").fnv1a64, "af63dc4c8601ec8c");
        assert_eq!(checksum(b"foobar").fnv1a64, "85944171f73967e8");
        assert_eq!(checksum(b"foobar").bytes, 6);
    }
}
