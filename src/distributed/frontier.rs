//! A level a worker holds: its states in fingerprint order, their
//! encodings (the model's codec) in one arena.

/// A worker's states of one level: `(fingerprint, start, length)` of
/// each encoding in `arena`, in fingerprint order.
pub(crate) struct Frontier<W> {
    pub(crate) states: Vec<(W, usize, u32)>,
    pub(crate) arena: Vec<u8>,
}

impl<W> Default for Frontier<W> {
    fn default() -> Self {
        Frontier {
            states: Vec::new(),
            arena: Vec::new(),
        }
    }
}
