//! How a model's states are held between levels: as bytes.

/// Turns a model's states into bytes and back, so that the level waiting
/// to be expanded is held compactly; `decode(encode(s)) == s` must hold
/// for every reachable state.
pub trait StateCodec<S>: Sync {
    /// Appends the encoding of `state` to `out`.
    fn encode(&self, state: &S, out: &mut Vec<u8>);
    /// The state encoded by exactly `bytes`.
    fn decode(&self, bytes: &[u8]) -> S;
    /// [`StateCodec::decode`] into `state`, which a codec may reuse (its
    /// heap buffers): the engine decodes every state it expands into one
    /// such state.
    fn decode_into(&self, bytes: &[u8], state: &mut S) {
        *state = self.decode(bytes);
    }
}
