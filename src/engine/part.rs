//! One shard's part of a level: the storage of a level's states, as
//! values or, with a codec, as encodings back to back, with their
//! fingerprints.

use super::StateCodec;
use std::borrow::Cow;

/// One shard's part of a level (of the frontier, or of the level being
/// built). A level is its 64 parts in shard order; a state's *position* is
/// its index in that concatenation. Parts are reused from level to level so
/// their buffers stay allocated.
pub(super) struct Part<S> {
    /// The states themselves, when there is no codec.
    states: Vec<S>,
    /// With a codec: the states' encodings back to back, and where each
    /// one ends.
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// The states' fingerprints, in the same order.
    pub(super) fps: Vec<u64>,
    /// States of the last level counted but not held (not even their
    /// fingerprints, which the visited set already has).
    unheld: usize,
}

impl<S: Clone> Part<S> {
    pub(super) fn new() -> Self {
        Part {
            states: Vec::new(),
            bytes: Vec::new(),
            ends: Vec::new(),
            fps: Vec::new(),
            unheld: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.fps.len() + self.unheld
    }

    pub(super) fn clear(&mut self) {
        self.states.clear();
        self.bytes.clear();
        self.ends.clear();
        self.fps.clear();
        self.unheld = 0;
    }

    /// Counts a state of the last level without holding it.
    pub(super) fn push_unheld(&mut self) {
        self.unheld += 1;
    }

    pub(super) fn push(&mut self, state: S, fp: u64, codec: Option<&dyn StateCodec<S>>) {
        match codec {
            None => self.states.push(state),
            Some(c) => {
                c.encode(&state, &mut self.bytes);
                let end = u32::try_from(self.bytes.len())
                    .expect("one shard of one level holds less than 4 GiB of encoded states");
                self.ends.push(end);
            }
        }
        self.fps.push(fp);
    }

    /// Appends state `i` of `from` with fingerprint `fp`, copying its
    /// encoding as it is when there is a codec.
    pub(super) fn push_from(
        &mut self,
        from: &Part<S>,
        i: usize,
        fp: u64,
        codec: Option<&dyn StateCodec<S>>,
    ) {
        match codec {
            None => self.states.push(from.states[i].clone()),
            Some(_) => {
                let start = if i == 0 { 0 } else { from.ends[i - 1] as usize };
                self.bytes
                    .extend_from_slice(&from.bytes[start..from.ends[i] as usize]);
                let end = u32::try_from(self.bytes.len())
                    .expect("one shard of one level holds less than 4 GiB of encoded states");
                self.ends.push(end);
            }
        }
        self.fps.push(fp);
    }

    pub(super) fn get(&self, i: usize, codec: Option<&dyn StateCodec<S>>) -> Cow<'_, S> {
        match codec {
            None => Cow::Borrowed(&self.states[i]),
            Some(c) => {
                let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
                Cow::Owned(c.decode(&self.bytes[start..self.ends[i] as usize]))
            }
        }
    }
}
