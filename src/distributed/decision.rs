//! A property's deciding state, as a worker found it.

use super::shard::Link;

/// The state that decided a property: at its level (`link` `None`), or
/// at the last level, found by `link`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decision<W> {
    pub(crate) depth: usize,
    pub(crate) fp: W,
    pub(crate) link: Option<Link<W>>,
}
