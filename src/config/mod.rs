//! Model configurations (`models/*.json`, DESIGN.md "Formats"): what a run
//! fixes — bounds, agents, risk tiers, tools, clock, record templates, the
//! protocol variant and the expected verdict per invariant (and, in
//! [`verdicts`]' form, the clause a violation must break).
//!
//! Text is read through [`crate::input`] into the raw structs of `raw`
//! (close to the JSON, unknown fields refused), then validated into a
//! [`ModelConfig`] against the [`limits`], then [`ModelConfig::compile`]d
//! into the protocol's interned form. Every error is one line naming the
//! file, the field path and the offending value. [`flags`] validates the
//! command line's bounds and thread count against the same limits.

mod compile;
mod expect_edit;
pub mod flags;
pub mod limits;
mod model_config;
mod raw;
mod record;
mod validate;
mod verdicts;
mod wire;

#[cfg(test)]
pub(crate) mod tests;

pub use compile::Compiled;
pub use expect_edit::replace_expect;
pub use flags::BoundOverrides;
pub use model_config::{
    Bounds, Depth, Expect, ExpectCoverage, Expectations, ModelConfig, ParentRule, Template,
    ToolConfig,
};
pub(crate) use raw::RawConfig;
pub use record::{record_set, RecordSpec};
pub(crate) use record::{record_spec, RawRecord, RecordJson};
pub(crate) use validate::validate_config;
