//! memtx-check: a model checker and invariant verifier for the MemTX
//! transactional belief-commit protocol.
//!
//! A model is a JSON configuration: bounds, the tiers agents open
//! transactions at, the tools, the record templates an agent may stage,
//! and the protocol variant. The engine enumerates every interleaving of
//! the protocol's operations within the bounds, level by level, and judges
//! each state against the invariants. Below, one transaction at tier
//! external_action may stage a shared belief and call an irreversible tool
//! on it. With the action gate in force, I1 (action-safety gating) holds on
//! all 15 reachable states; with the gate ablated, the engine finds a
//! shortest counterexample of 4 actions: open, stage, commit, then the
//! call executes although the transaction's snapshot, taken when it
//! opened, holds no action_safe record (the gate, card §3.3; I1, §3.5).
//!
//! ```
//! use memtx_check::config::ModelConfig;
//! use memtx_check::engine::{Engine, EngineOptions, Verdict};
//! use memtx_check::model::{MemtxModel, ModelSpec};
//!
//! let tiny = |variant: &str| {
//!     let json = format!(
//!         r#"{{
//!             "bounds": {{ "records": 2, "transactions": 1 }},
//!             "tiers": ["external_action"],
//!             "tools": [{{ "name": "issue_refund", "irreversible": true }}],
//!             "templates": [{{
//!                 "name": "lookup", "kind": "belief", "scope": "shared",
//!                 "entity": "order841", "attribute": "refund_eligible", "value": "yes",
//!                 "source": "lookup", "authority": 0.7, "confidence": 0.8
//!             }}],
//!             "variant": {variant}
//!         }}"#
//!     );
//!     let config = ModelConfig::parse(&json, "tiny.json").expect("a valid model");
//!     MemtxModel::new(ModelSpec::from_config(&config))
//! };
//! // No depth bound: explore until a level adds no new state.
//! let options = EngineOptions::new(None, 1);
//!
//! let gated = Engine::new(&tiny("{}")).options(&options).run();
//! assert!(gated.complete);
//! assert_eq!(gated.unique_states, 15);
//! assert!(matches!(gated.property("I1"), Some(Verdict::Holds)));
//!
//! let ungated = Engine::new(&tiny(r#"{ "ablate": ["gate"] }"#)).options(&options).run();
//! assert!(matches!(
//!     ungated.property("I1"),
//!     Some(Verdict::Violated { depth: 4, .. })
//! ));
//! ```
//!
//! What each module owns, and the layers they import by (each only its
//! own and those below, which `tests/suite/layering.rs` checks), are
//! docs/architecture.md's. The library's public surface is what the
//! binary, the integration tests, the benches and the doc tests use; the
//! other modules are `pub(crate)`, so that the compiler names dead code
//! in them. (No `///` on a `pub mod` here: rustdoc would then resolve the
//! links in that module's own `//!` page from this file.)

pub(crate) mod build_info;
pub mod check;
pub(crate) mod ci;
pub mod cli;
pub mod config;
pub(crate) mod conform;
pub mod diff;
pub mod distributed;
pub(crate) mod driver;
pub mod engine;
pub mod explore;
pub(crate) mod human;
pub mod input;
pub mod invariants;
pub mod model;
pub(crate) mod outcome_text;
pub mod outputs;
pub mod protocol;
pub(crate) mod random;
pub mod replay;
pub mod trace;
