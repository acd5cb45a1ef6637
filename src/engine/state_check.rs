//! The check a checkpoint's states pass before a resume trusts them
//! (issue 51.12): a state's bytes, read back from a file whose seal a
//! forger can recompute, must decode, encode back to themselves and have
//! the fingerprint recorded beside them.

use super::codec::StateCodec;
use super::fp::{FingerprintWidth, Fp};
use super::part::Part;
use super::seal::damaged;
use std::hash::Hash;
use std::path::Path;

/// How a resume judges the states a checkpoint's frontier holds before
/// it trusts them (issue 51.12): each encoding must decode
/// ([`StateCodec::try_decode`]), encode back to the same bytes, and have
/// the fingerprint recorded beside it. A seal proves a file is the one
/// its meta names, not that a run wrote it: content damaged and resealed
/// would otherwise be resumed into a panic.
pub struct StateCheck<'a> {
    sound: Box<Sound<'a>>,
}

/// Whether an encoding (its bytes) is sound beside a fingerprint (its
/// bytes).
type Sound<'a> = dyn Fn(&[u8], &[u8]) -> bool + Sync + 'a;

impl<'a> StateCheck<'a> {
    /// The check of states encoded by `codec`, fingerprinted `width` wide.
    pub fn new<S: Hash + 'a>(codec: &'a dyn StateCodec<S>, width: FingerprintWidth) -> Self {
        let fp_of = move |state: &S, out: &mut Vec<u8>| match width {
            FingerprintWidth::Bits64 => u64::of(state).write(out),
            FingerprintWidth::Bits128 => u128::of(state).write(out),
        };
        StateCheck {
            sound: Box::new(move |bytes, fp| {
                let Some(state) = codec.try_decode(bytes) else {
                    return false;
                };
                let mut again = Vec::with_capacity(bytes.len() + fp.len());
                codec.encode(&state, &mut again);
                let encoded = again.len();
                fp_of(&state, &mut again);
                again[..encoded] == *bytes && again[encoded..] == *fp
            }),
        }
    }

    /// `Ok` if every state of `part` is sound, else `Err` in one line
    /// naming `file`, which holds it.
    pub(crate) fn part<W: Fp>(&self, file: &Path, part: &Part<(), W>) -> Result<(), String> {
        let mut fp_bytes = Vec::with_capacity(W::BYTES);
        for (i, (fp, bytes)) in part.encodings().enumerate() {
            fp_bytes.clear();
            fp.write(&mut fp_bytes);
            if !(self.sound)(bytes, &fp_bytes) {
                return Err(damaged(
                    file,
                    format_args!(
                        "state {i} of its shard {} is not one this model's run stored (it does not decode to a state of that fingerprint)",
                        fp.shard()
                    ),
                ));
            }
        }
        Ok(())
    }
}
