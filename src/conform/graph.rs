//! The model's state graph breadth-first, as the conformance suites read
//! it: level by level from the empty store, each state's offered actions
//! in the model's order, each state reached first (in that order) kept
//! with a link to its parent and the action, so [`Graph::path`] gives a
//! shortest action sequence to it. A state is the store an implementation
//! holds: two model states with one store (they differ only in the
//! invariants' monitor) are one state here, since a driver cannot tell
//! them apart. The order is fixed by the model alone, so the traces the
//! suites cut from it are the same on every run.

use crate::engine::fingerprint;
use crate::model::{Action, MemtxModel, ModelState};
use stateright::Model;
use std::collections::HashSet;

/// A state of the graph: its depth and its index in its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeId {
    pub depth: usize,
    pub index: u32,
}

/// How a state was first reached.
struct Link {
    parent: u32,
    action: Action,
}

/// One offered action out of a state, as the walk meets it.
pub struct Edge {
    pub from: NodeId,
    pub action: Action,
    /// The branch labels of the transition, or of the refused attempt.
    pub labels: u128,
    pub target: Target,
}

/// Where an offered action leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A state first reached here (a tree edge).
    New(NodeId),
    /// A state already reached (by a shorter or an earlier path).
    Known,
    /// No transition: the protocol refused it, or it would pass the
    /// model's record bound.
    Refused,
    /// Offered to no transaction: an open naming another id than the
    /// next one (no implementation can be sent it).
    NotOffered,
}

/// What a suite does with what the walk meets.
pub trait Visitor {
    /// An offered action; `false` stops the walk.
    fn edge(&mut self, graph: &Graph, edge: &Edge) -> bool;
    /// A state below the depth bound whose actions were all visited, and
    /// how many were transitions.
    fn expanded(&mut self, _graph: &Graph, _node: NodeId, _transitions: usize) {}
    /// The bytes of the largest collection the visitor grows as it is
    /// told of edges (the memory guard allows for its next reallocation).
    fn largest_bytes(&self) -> usize {
        0
    }
}

/// The links of every level walked.
pub struct Graph {
    levels: Vec<Vec<Link>>,
}

/// The walk stopped because the memory it would need passed the bound
/// (the memory guard's, [`crate::engine::default_max_memory`] by
/// default; see [`crate::engine::growth_over_bound`]), before the
/// allocator could fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBound {
    /// The depth of the states being expanded.
    pub depth: usize,
    /// Cutting random walks instead: the walks cut so far.
    pub walks: Option<u64>,
    /// What the walk would need with its largest collection grown.
    pub needed: u64,
    pub limit: u64,
}

impl std::fmt::Display for MemoryBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (needed, limit) = (
            crate::human::bytes(self.needed),
            crate::human::bytes(self.limit),
        );
        match self.walks {
            Some(walks) => write!(
                f,
                "cutting the suite's random walks would need {needed} of memory after {} walks, more than the bound of {limit} (fewer --walks, or more memory)",
                crate::human::count(walks)
            ),
            None => write!(
                f,
                "cutting the suite from the model's graph would need {needed} of memory at depth {}, more than the bound of {limit} (--depth smaller, or more memory)",
                self.depth
            ),
        }
    }
}

/// Edges walked (or walks cut) between two looks at the memory.
pub(super) const GUARD_EVERY: u32 = 1 << 12;

/// How far a walk went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walked {
    /// The deepest level whose states' actions were all visited, plus one:
    /// every state within this many actions was reached.
    pub depth: usize,
    /// Distinct stores reached.
    pub states: u64,
    /// A level added no state: the whole graph was walked.
    pub complete: bool,
    /// The memory bound stopped it.
    pub stopped: Option<MemoryBound>,
}

impl Graph {
    /// The actions from the empty store to `node`, a shortest sequence.
    pub fn path(&self, node: NodeId) -> Vec<Action> {
        let mut actions = Vec::with_capacity(node.depth);
        let mut index = node.index;
        for depth in (1..=node.depth).rev() {
            let link = &self.levels[depth - 1][index as usize];
            actions.push(link.action);
            index = link.parent;
        }
        actions.reverse();
        actions
    }

    /// `path(edge.from)` followed by the edge's action.
    pub fn trace_of(&self, edge: &Edge) -> Vec<Action> {
        let mut actions = self.path(edge.from);
        actions.push(edge.action);
        actions
    }
}

/// Walks `model`'s graph breadth-first, expanding the states of depth
/// below `max_depth` (every depth when `None`), telling `visitor` of each
/// offered action; stops when the memory it would need passes
/// `max_memory`.
pub fn walk(
    model: &MemtxModel,
    max_depth: Option<usize>,
    max_memory: Option<u64>,
    visitor: &mut dyn Visitor,
) -> Walked {
    let mut edges = 0u32;
    let mut graph = Graph { levels: Vec::new() };
    let initial = ModelState::default();
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(fingerprint(&initial.store));
    let mut frontier = vec![initial];
    let mut offered = Vec::new();
    let mut depth = 0;
    loop {
        if max_depth.is_some_and(|d| depth >= d) {
            return Walked {
                depth,
                states: seen.len() as u64,
                complete: false,
                stopped: None,
            };
        }
        let last = max_depth.is_some_and(|d| depth + 1 >= d);
        let mut links = Vec::new();
        let mut next = Vec::new();
        for (index, state) in frontier.iter().enumerate() {
            let from = NodeId {
                depth,
                index: index as u32,
            };
            offered.clear();
            model.actions(state, &mut offered);
            let mut transitions = 0;
            for &action in &offered {
                edges = edges.wrapping_add(1);
                if let Some(limit) = max_memory.filter(|_| edges % GUARD_EVERY == 1) {
                    let largest = [
                        seen.capacity() * (size_of::<u64>() + 1),
                        next.capacity() * size_of::<ModelState>(),
                        links.capacity() * size_of::<Link>(),
                        visitor.largest_bytes(),
                    ];
                    let largest = largest.into_iter().max().unwrap_or(0) as u64;
                    if let Some((needed, limit)) = crate::engine::growth_over_bound(limit, largest)
                    {
                        return Walked {
                            depth,
                            states: seen.len() as u64,
                            complete: false,
                            stopped: Some(MemoryBound {
                                depth,
                                walks: None,
                                needed,
                                limit,
                            }),
                        };
                    }
                }
                let attempt = if model.admit(state, &action).is_err() {
                    Err(None)
                } else {
                    crate::engine::LabelledModel::attempt_labelled(model, state, action)
                        .map_err(Some)
                };
                let (labels, target) = match attempt {
                    Ok((after, labels)) => {
                        transitions += 1;
                        if seen.insert(fingerprint(&after.store)) {
                            let id = NodeId {
                                depth: depth + 1,
                                index: links.len() as u32,
                            };
                            links.push(Link {
                                parent: index as u32,
                                action,
                            });
                            if !last {
                                next.push(after);
                            }
                            (labels, Target::New(id))
                        } else {
                            (labels, Target::Known)
                        }
                    }
                    Err(Some(labels)) => (labels, Target::Refused),
                    Err(None) => (0, Target::NotOffered),
                };
                let edge = Edge {
                    from,
                    action,
                    labels,
                    target,
                };
                // The links of the level being expanded are visible to
                // the visitor only once the level is done; an edge's own
                // path needs only the levels before.
                if !visitor.edge(&graph, &edge) {
                    graph.levels.push(links);
                    return Walked {
                        depth,
                        states: seen.len() as u64,
                        complete: false,
                        stopped: None,
                    };
                }
            }
            visitor.expanded(&graph, from, transitions);
        }
        graph.levels.push(links);
        depth += 1;
        if graph.levels[depth - 1].is_empty() {
            return Walked {
                depth,
                states: seen.len() as u64,
                complete: true,
                stopped: None,
            };
        }
        frontier = next;
    }
}
