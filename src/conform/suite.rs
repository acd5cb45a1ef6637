//! The three suites of traces a conformance run sends, each a list of
//! action sequences from the empty store, in an order fixed by the model
//! (and the seed) alone:
//!
//! - `branches`: per protocol branch the model reaches within the depth,
//!   the first action in breadth-first order that takes it (a transition,
//!   or an attempt the protocol refuses: `gate.refused.*`) after a
//!   shortest path to its state, so each trace is as short as the branch
//!   allows; a trace that is a prefix of another is dropped, and its
//!   branches credited to the longer one at the same step;
//! - `transitions`: every transition up to the depth, each the shortest
//!   path to its source then the action, prefixes merged: a tree edge
//!   into a state that has transitions of its own is a prefix of theirs;
//! - `random`: the walks `memtx-check random` makes with the seed, walk
//!   `i` seeded by `(seed, i)` alone.

use super::graph::{self, Edge, Graph, NodeId, Target, Visitor, Walked};
use crate::model::coverage::{Coverage, BRANCHES, BRANCH_COUNT};
use crate::model::{Action, MemtxModel};
use crate::random::{walk::walk as random_walk, walk::Seen, walk_seed};
use std::collections::HashSet;

/// Which traces to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// One trace per reached branch, exploring to `depth` actions.
    Branches { depth: Option<usize> },
    /// Every transition up to `depth` actions.
    Transitions { depth: usize },
    /// `walks` random walks of at most `steps` steps.
    Random { walks: u64, steps: usize, seed: u64 },
}

impl Suite {
    pub fn name(&self) -> &'static str {
        match self {
            Suite::Branches { .. } => "branches",
            Suite::Transitions { .. } => "transitions",
            Suite::Random { .. } => "random",
        }
    }
}

/// A branch and where the suite takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchCover {
    pub branch: &'static str,
    /// The trace (index into the suite's traces) and the step (0-based)
    /// that takes it.
    pub trace: usize,
    pub step: usize,
}

/// The traces of a suite, and what the walk that cut them saw.
pub struct Traces {
    pub traces: Vec<Vec<Action>>,
    /// `branches` only: every reached branch, in [`BRANCHES`] order.
    pub covers: Vec<BranchCover>,
    /// `branches` only: the branches no trace takes, in order.
    pub unreached: Vec<&'static str>,
    /// The graph walk behind `branches` and `transitions` (for
    /// `random`, only where the memory bound stopped the cutting).
    pub walked: Option<Walked>,
}

/// The traces of `suite` on `model`. Cutting them stops when the memory
/// they would need passes `max_memory` (`Traces::walked` says so).
pub fn traces(model: &MemtxModel, suite: Suite, max_memory: Option<u64>) -> Traces {
    match suite {
        Suite::Branches { depth } => branches(model, depth, max_memory),
        Suite::Transitions { depth } => transitions(model, depth, max_memory),
        Suite::Random { walks, steps, seed } => random(model, (walks, steps, seed), max_memory),
    }
}

/// The random suite's walks, cut one by one (never a list sized by
/// `--walks` up front) and held to the memory guard's bound as the graph
/// walk is ([`graph::GUARD_EVERY`] walks apart): past it, the walks cut so
/// far and `walked` saying why it stopped.
fn random(
    model: &MemtxModel,
    (walks, steps, seed): (u64, usize, u64),
    max_memory: Option<u64>,
) -> Traces {
    let mut traces: Vec<Vec<Action>> = Vec::new();
    let mut stopped = None;
    for i in 0..walks {
        if let Some(limit) = max_memory.filter(|_| i % u64::from(graph::GUARD_EVERY) == 0) {
            let largest = (traces.capacity() * size_of::<Vec<Action>>()) as u64;
            if let Some((needed, limit)) = crate::engine::growth_over_bound(limit, largest) {
                stopped = Some(graph::MemoryBound {
                    depth: 0,
                    walks: Some(i),
                    needed,
                    limit,
                });
                break;
            }
        }
        let seen = Seen {
            states: &mut HashSet::new(),
            coverage: &mut Coverage::new(),
        };
        traces.push(random_walk(model, walk_seed(seed, i), steps, seen, true).actions);
    }
    Traces {
        traces,
        covers: Vec::new(),
        unreached: Vec::new(),
        walked: stopped.map(|m| Walked {
            depth: 0,
            states: 0,
            complete: false,
            stopped: Some(m),
        }),
    }
}

/// The first edge taking each branch.
struct FirstTakers {
    found: Vec<Option<Vec<Action>>>,
    left: usize,
}

impl Visitor for FirstTakers {
    fn edge(&mut self, graph: &Graph, edge: &Edge) -> bool {
        let mut bits = edge.labels;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.found[b].is_none() {
                self.found[b] = Some(graph.trace_of(edge));
                self.left -= 1;
            }
        }
        self.left > 0
    }
}

fn branches(model: &MemtxModel, depth: Option<usize>, max_memory: Option<u64>) -> Traces {
    let mut takers = FirstTakers {
        found: vec![None; BRANCH_COUNT],
        left: BRANCH_COUNT,
    };
    let walked = graph::walk(model, depth, max_memory, &mut takers);
    let (traces, covers) = merge_prefixes(&takers.found);
    let unreached = BRANCHES
        .iter()
        .zip(&takers.found)
        .filter(|(_, t)| t.is_none())
        .map(|(b, _)| *b)
        .collect();
    Traces {
        traces,
        covers,
        unreached,
        walked: Some(walked),
    }
}

/// The branch traces with every one that is a prefix of another (or
/// equal to an earlier one) dropped, and each branch's place in what is
/// kept: the first longest trace it is a prefix of.
fn merge_prefixes(found: &[Option<Vec<Action>>]) -> (Vec<Vec<Action>>, Vec<BranchCover>) {
    let all: Vec<(usize, &Vec<Action>)> = found
        .iter()
        .enumerate()
        .filter_map(|(b, t)| Some((b, t.as_ref()?)))
        .collect();
    let extends = |long: &Vec<Action>, short: &Vec<Action>| long.starts_with(short);
    let mut kept: Vec<Vec<Action>> = Vec::new();
    for (i, (_, t)) in all.iter().enumerate() {
        let covered = all
            .iter()
            .enumerate()
            .any(|(j, (_, u))| j != i && extends(u, t) && (u.len() > t.len() || j < i));
        if !covered {
            kept.push((*t).clone());
        }
    }
    let covers = all
        .iter()
        .map(|(b, t)| {
            let trace = kept
                .iter()
                .position(|k| extends(k, t))
                .expect("every trace is kept or a prefix of one kept");
            BranchCover {
                branch: BRANCHES[*b],
                trace,
                step: t.len() - 1,
            }
        })
        .collect();
    (kept, covers)
}

/// Every transition, prefixes merged (see the module docs).
struct EveryTransition {
    depth: usize,
    traces: Vec<Vec<Action>>,
}

impl Visitor for EveryTransition {
    fn edge(&mut self, graph: &Graph, edge: &Edge) -> bool {
        match edge.target {
            Target::Refused | Target::NotOffered => {}
            // A tree edge below the bound is a prefix of the traces out
            // of its target, unless that has none (`expanded`).
            Target::New(NodeId { depth, .. }) if depth < self.depth => {}
            Target::New(_) | Target::Known => self.traces.push(graph.trace_of(edge)),
        }
        true
    }

    fn expanded(&mut self, graph: &Graph, node: NodeId, transitions: usize) {
        if transitions == 0 && node.depth > 0 {
            self.traces.push(graph.path(node));
        }
    }

    fn largest_bytes(&self) -> usize {
        self.traces.capacity() * size_of::<Vec<Action>>()
    }
}

fn transitions(model: &MemtxModel, depth: usize, max_memory: Option<u64>) -> Traces {
    let mut every = EveryTransition {
        depth,
        traces: Vec::new(),
    };
    let walked = graph::walk(model, Some(depth), max_memory, &mut every);
    Traces {
        traces: every.traces,
        covers: Vec::new(),
        unreached: Vec::new(),
        walked: Some(walked),
    }
}
