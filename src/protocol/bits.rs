//! Bit-level writing and reading, for the packed store encoding: fields
//! of any width, least significant bit first, back to back.

/// Appends fields to a byte vector, bit by bit.
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    used: u32,
}

impl<'a> BitWriter<'a> {
    /// A writer appending to `out`; call [`BitWriter::finish`] at the end.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            used: 0,
        }
    }

    /// Writes the low `bits` bits of `value` (`bits` ≤ 32).
    #[inline(always)]
    pub fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32 && value >> bits == 0);
        // `used` < 32 here, so the field fits the accumulator; whole
        // 32-bit words leave it four bytes at a time.
        self.acc |= value << self.used;
        self.used += bits;
        if self.used >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.used -= 32;
        }
    }

    /// Writes `value` (any width up to 64 bits) in `bits` bits.
    #[inline(always)]
    pub fn put_wide(&mut self, value: u64, bits: u32) {
        if bits > 32 {
            self.put(value & 0xffff_ffff, 32);
            self.put(value >> 32, bits - 32);
        } else {
            self.put(value, bits);
        }
    }

    /// A small count: three bits at a time, each group followed by a bit
    /// saying whether more follow (4 bits below 8, 8 below 64).
    #[inline(always)]
    pub fn put_count(&mut self, mut n: u64) {
        loop {
            let more = n >= 8;
            self.put(n & 7 | u64::from(more) << 3, 4);
            n >>= 3;
            if !more {
                return;
            }
        }
    }

    /// Flushes the last partial byte (zero-padded).
    pub fn finish(self) {
        let bytes = self.used.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// Reads fields written by a [`BitWriter`].
pub struct BitReader<'a> {
    bytes: &'a [u8],
    at: usize,
    acc: u64,
    have: u32,
}

impl<'a> BitReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        BitReader {
            bytes,
            at: 0,
            acc: 0,
            have: 0,
        }
    }

    /// Reads a field of `bits` bits (≤ 32).
    #[inline(always)]
    pub fn get(&mut self, bits: u32) -> u64 {
        debug_assert!(bits <= 32);
        if self.have < bits {
            self.refill(bits);
        }
        let value = self.acc & ((1u64 << bits) - 1);
        self.acc >>= bits;
        self.have -= bits;
        value
    }

    /// Tops the accumulator (holding fewer than `bits` ≤ 32 bits) up to at
    /// least `bits`: four bytes at once where the input has them, else
    /// byte by byte, zeros past its end.
    #[inline(always)]
    fn refill(&mut self, bits: u32) {
        if let Some(word) = self.bytes.get(self.at..self.at + 4) {
            let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            self.acc |= u64::from(word) << self.have;
            self.at += 4;
            self.have += 32;
            return;
        }
        self.refill_at_end(bits);
    }

    /// [`BitReader::refill`] within four bytes of the end: out of line, so
    /// that the common path inlined into every read stays short.
    #[cold]
    #[inline(never)]
    fn refill_at_end(&mut self, bits: u32) {
        while self.have < bits {
            let byte = self.bytes.get(self.at).copied().unwrap_or(0);
            self.acc |= u64::from(byte) << self.have;
            self.at += 1;
            self.have += 8;
        }
    }

    /// Reads a field written by [`BitWriter::put_wide`].
    #[inline(always)]
    pub fn get_wide(&mut self, bits: u32) -> u64 {
        if bits > 32 {
            let lo = self.get(32);
            lo | self.get(bits - 32) << 32
        } else {
            self.get(bits)
        }
    }

    /// Reads a count written by [`BitWriter::put_count`].
    #[inline(always)]
    pub fn get_count(&mut self) -> u64 {
        let (mut n, mut shift) = (0, 0);
        loop {
            let group = self.get(4);
            // No count this writer wrote needs 60 bits: a longer one (bits
            // of no count) stays finite, for its reader to refuse.
            n |= (group & 7) << shift.min(60);
            if group & 8 == 0 {
                return n;
            }
            shift += 3;
        }
    }

    /// The bits of the input not read yet (none past its end).
    pub fn bits_left(&self) -> u64 {
        (self.bytes.len().saturating_sub(self.at) * 8) as u64 + u64::from(self.have)
    }

    /// Whole bytes consumed so far.
    pub fn bytes_used(&self) -> usize {
        self.at - (self.have / 8) as usize
    }
}

/// Bits needed to write every value `0..=max`.
pub fn bits_for(max: u64) -> u32 {
    64 - max.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let mut out = vec![0xAA];
        let mut w = BitWriter::new(&mut out);
        let fields = [
            (5, 3),
            (0, 0),
            (1, 1),
            (0xABCD, 16),
            (u64::MAX >> 1, 63),
            (300, 9),
        ];
        for &(v, b) in &fields {
            w.put_wide(v, b);
        }
        for n in [0, 7, 8, 63, 64, 1000] {
            w.put_count(n);
        }
        w.finish();
        let written = out.len();
        // What follows an encoding (the next state's) is read ahead but
        // not counted as used.
        out.extend_from_slice(&[0xFF; 7]);
        let mut r = BitReader::new(&out[1..]);
        for &(v, b) in &fields {
            assert_eq!(r.get_wide(b), v);
        }
        for n in [0, 7, 8, 63, 64, 1000] {
            assert_eq!(r.get_count(), n);
        }
        assert_eq!(r.bytes_used(), written - 1);
        assert_eq!(
            (bits_for(0), bits_for(1), bits_for(4), bits_for(255)),
            (0, 1, 3, 8)
        );
    }
}
