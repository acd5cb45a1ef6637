//! How a model's states are held between levels: as bytes.

/// Turns a model's states into bytes and back, so that the level waiting
/// to be expanded is held compactly; `decode(encode(s)) == s` must hold
/// for every reachable state.
pub trait StateCodec<S>: Sync {
    /// Appends the encoding of `state` to `out`.
    fn encode(&self, state: &S, out: &mut Vec<u8>);
    /// The state encoded by exactly `bytes`.
    fn decode(&self, bytes: &[u8]) -> S;
    /// The state `bytes` encode, or `None` for bytes this codec could not
    /// have written: for what a run did not write itself (a checkpoint's
    /// frontier, read back before it is resumed). The default trusts the
    /// bytes; a codec whose [`StateCodec::decode`] may panic on others
    /// checks them.
    fn try_decode(&self, bytes: &[u8]) -> Option<S> {
        Some(self.decode(bytes))
    }
    /// [`StateCodec::decode`] into `state`, which a codec may reuse (its
    /// heap buffers): the engine decodes every state it expands into one
    /// such state.
    fn decode_into(&self, bytes: &[u8], state: &mut S) {
        *state = self.decode(bytes);
    }
    /// The state encoded by `bytes`, decoded into `scratch`: through
    /// [`StateCodec::decode_into`] when it already holds a state (one
    /// decoded before, whose buffers are reused), else freshly. A loop
    /// that visits many encoded states keeps one `scratch` for them all.
    fn decode_reusing<'s>(&self, bytes: &[u8], scratch: &'s mut Option<S>) -> &'s S {
        let state = match scratch.take() {
            Some(mut state) => {
                self.decode_into(bytes, &mut state);
                state
            }
            None => self.decode(bytes),
        };
        scratch.insert(state)
    }
}
