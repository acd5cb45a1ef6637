//! A property's deciding state, as a worker found it: the engine's
//! decision (`engine::decisions`, whose recording and verdicts the
//! workers use too), found at its level (`None`) or, at the last level,
//! by its link from its parent (`Some`), the parent named by fingerprint.

use super::shard::Link;
use crate::engine;

/// The state that decided a property.
pub(crate) type Decision<W> = engine::Decision<W, Option<Link<W>>>;

/// Per property: the decision, if any.
pub(crate) type Decisions<W> = engine::Decisions<W, Option<Link<W>>>;
