//! Transition labels: a model may tag each transition with up to 128
//! labels (a bit set), and the engine counts, per label, the transitions
//! that carried it and the first depth at which one was taken.
//!
//! A label is counted for exactly the transitions that `growth.csv`
//! counts: within the boundary, duplicates and self-loops included, each
//! under the depth of its target level. A model may also label an
//! *attempt*: an action it offers that is no transition (say, one the
//! system under test refuses); those labels are counted the same way,
//! under the depth the transition would have had, but the attempt is
//! never counted as a transition. Counts are sums and first depths
//! minima over levels processed in order, so they are the same for every
//! thread count. With `stop_on_violation`, the level whose expansion was
//! cut short is counted neither in the levels nor in the labels.
//!
//! Plain stateright models go through the [`Unlabelled`] adapter, whose
//! label is `()`: counting it compiles to nothing, so the unlabelled path
//! pays nothing for labels. The same trait carries the symmetry hook
//! (`symmetry::Reduced` wraps either adapter) and how a successor is
//! taken: `Transitions::next_into` writes it into one state the engine
//! reuses for every transition, which a [`StepInto`] model (through the
//! `InPlace` adapter) or a [`LabelledModel`] overriding
//! `attempt_labelled_into` fills without allocating; any other model's
//! successor is moved in.

use stateright::Model;

/// The most labels a model may name (the bits of a `u128`).
pub const MAX_LABELS: usize = 128;

/// A model whose transitions carry labels, e.g. which branches of the
/// protocol a step took.
pub trait LabelledModel: Model {
    /// `next_state`, with the labels of the transition as a bit set (bit
    /// `i` for `label_names()[i]`). It must return the same successor as
    /// `next_state` (traces are replayed through `next_state`).
    fn next_state_labelled(
        &self,
        state: &Self::State,
        action: Self::Action,
    ) -> Option<(Self::State, u128)>;

    /// What the engine calls: the transition with its labels, or, for an
    /// offered action that is no transition, the labels of the attempt
    /// (counted, but not as a transition). By default an attempt carries
    /// no label.
    fn attempt_labelled(
        &self,
        state: &Self::State,
        action: Self::Action,
    ) -> Result<(Self::State, u128), u128> {
        self.next_state_labelled(state, action).ok_or(0)
    }

    /// [`LabelledModel::attempt_labelled`] written into `into`, which the
    /// engine reuses for every transition: a model whose states own heap
    /// data overrides it to reuse that heap (by default the successor is
    /// moved in). On an attempt that is no transition, `into` holds no
    /// state of interest.
    fn attempt_labelled_into(
        &self,
        state: &Self::State,
        action: Self::Action,
        into: &mut Self::State,
    ) -> Result<u128, u128> {
        self.attempt_labelled(state, action).map(|(next, labels)| {
            *into = next;
            labels
        })
    }

    /// The label names, bit `i` named by entry `i`; at most [`MAX_LABELS`].
    fn label_names(&self) -> Vec<&'static str>;
}

/// One label's count in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelCount {
    pub name: &'static str,
    /// Transitions that carried the label.
    pub transitions: u64,
    /// The depth of the target level of the first such transition; `None`
    /// when no transition carried it.
    pub first_depth: Option<usize>,
    /// Per depth `d`, the transitions into level `d` that carried it
    /// (index 0 is level 0, which no transition enters); `None` when the
    /// run resumed from a checkpoint that did not keep them.
    pub by_depth: Option<Vec<u64>>,
}

/// How the engine takes a transition and what label it gets: the engine is
/// generic over this so that one loop serves plain and labelled models.
/// Public only so that [`super::Engine`]'s strategy parameter may be
/// bounded by it; the module is private, so no one outside the engine
/// names or implements it (a sealed trait).
pub trait Transitions<M: Model> {
    /// The label of one transition.
    type Label: Labels;
    /// The transition and its label, or the label of an attempt that is
    /// no transition.
    fn next(
        model: &M,
        state: &M::State,
        action: M::Action,
    ) -> Result<(M::State, Self::Label), Self::Label>;
    /// [`Transitions::next`] written into `into`, a state the engine
    /// reuses for every transition; by default the successor is moved in.
    #[inline(always)]
    fn next_into(
        model: &M,
        state: &M::State,
        action: M::Action,
        into: &mut M::State,
    ) -> Result<Self::Label, Self::Label> {
        Self::next(model, state, action).map(|(next, label)| {
            *into = next;
            label
        })
    }
    /// The labels' names: none, unless labelled.
    fn label_names(_model: &M) -> Vec<&'static str> {
        Vec::new()
    }
    /// States are replaced by representatives (see `symmetry`).
    const REDUCED: bool = false;
    /// The state the engine stores for `state`: itself, unless `REDUCED`.
    #[inline(always)]
    fn canonical(_model: &M, state: M::State) -> M::State {
        state
    }
}

/// The adapter for a plain stateright model: no labels (an [`Engine`]'s
/// start).
///
/// [`Engine`]: super::Engine
pub enum Unlabelled {}

impl<M: Model> Transitions<M> for Unlabelled {
    type Label = ();
    #[inline(always)]
    fn next(model: &M, state: &M::State, action: M::Action) -> Result<(M::State, ()), ()> {
        model
            .next_state(state, action)
            .map(|next| (next, ()))
            .ok_or(())
    }
}

/// A model that writes a successor into a state it is handed, reusing
/// that state's heap: the engine steps every transition into one state, so
/// such a model's transitions allocate nothing ([`Engine::in_place`]).
///
/// [`Engine::in_place`]: super::Engine::in_place
pub trait StepInto: Model {
    /// `next_state(state, action)` written into `into`; false when the
    /// action is no transition (`into` then holds no state of interest).
    fn next_state_into(
        &self,
        state: &Self::State,
        action: Self::Action,
        into: &mut Self::State,
    ) -> bool;
}

/// The adapter for a [`StepInto`] model: no labels, successors written in
/// place ([`Engine::in_place`]).
///
/// [`Engine::in_place`]: super::Engine::in_place
pub enum InPlace {}

impl<M: StepInto> Transitions<M> for InPlace {
    type Label = ();
    #[inline(always)]
    fn next(model: &M, state: &M::State, action: M::Action) -> Result<(M::State, ()), ()> {
        Unlabelled::next(model, state, action)
    }
    #[inline(always)]
    fn next_into(
        model: &M,
        state: &M::State,
        action: M::Action,
        into: &mut M::State,
    ) -> Result<(), ()> {
        if model.next_state_into(state, action, into) {
            Ok(())
        } else {
            Err(())
        }
    }
}

/// The adapter for a [`LabelledModel`]: its own labels
/// ([`Engine::labelled`]).
///
/// [`Engine::labelled`]: super::Engine::labelled
pub enum Labelled {}

impl<M: LabelledModel> Transitions<M> for Labelled {
    type Label = u128;
    #[inline(always)]
    fn next(model: &M, state: &M::State, action: M::Action) -> Result<(M::State, u128), u128> {
        model.attempt_labelled(state, action)
    }
    #[inline(always)]
    fn next_into(
        model: &M,
        state: &M::State,
        action: M::Action,
        into: &mut M::State,
    ) -> Result<u128, u128> {
        model.attempt_labelled_into(state, action, into)
    }
    fn label_names(model: &M) -> Vec<&'static str> {
        model.label_names()
    }
}

/// A transition's labels, counted into one counter per label (public, and
/// sealed, as [`Transitions`] is).
pub trait Labels: Copy {
    fn count_into(self, counts: &mut [u64]);
}

impl Labels for () {
    #[inline(always)]
    fn count_into(self, _: &mut [u64]) {}
}

impl Labels for u128 {
    #[inline]
    fn count_into(self, counts: &mut [u64]) {
        let mut bits = self;
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            match counts.get_mut(bit) {
                Some(n) => *n += 1,
                None => panic!(
                    "a transition carries label bit {bit}, but the model names only {} labels",
                    counts.len()
                ),
            }
            bits &= bits - 1;
        }
    }
}

/// A run's label counts so far, level by level.
pub(crate) struct LabelTally {
    names: Vec<&'static str>,
    transitions: Vec<u64>,
    first_depth: Vec<Option<usize>>,
    /// Each level's counts, by depth (`None`: lost to an old checkpoint).
    levels: Option<Vec<Vec<u64>>>,
}

/// What a checkpoint keeps of a [`LabelTally`]: per label the transitions
/// so far and the first depth, and each level's counts.
pub(crate) type TallyCounts = (Vec<u64>, Vec<Option<usize>>, Option<Vec<Vec<u64>>>);

impl LabelTally {
    pub(crate) fn new(names: Vec<&'static str>) -> Self {
        assert!(
            names.len() <= MAX_LABELS,
            "a model names at most {MAX_LABELS} labels, not {}",
            names.len()
        );
        LabelTally {
            transitions: vec![0; names.len()],
            first_depth: vec![None; names.len()],
            levels: Some(Vec::new()),
            names,
        }
    }

    /// How many labels there are (counters per chunk and per level).
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Adds the label counts of the transitions into level `depth`.
    pub(crate) fn add_level(&mut self, depth: usize, counts: &[u64]) {
        if let Some(levels) = self.levels.as_mut() {
            if levels.len() <= depth {
                levels.resize(depth + 1, vec![0; self.names.len()]);
            }
            for (n, &c) in levels[depth].iter_mut().zip(counts) {
                *n += c;
            }
        }
        for ((total, first), &n) in self
            .transitions
            .iter_mut()
            .zip(&mut self.first_depth)
            .zip(counts)
        {
            *total += n;
            if n > 0 && first.is_none() {
                *first = Some(depth);
            }
        }
    }

    /// Per label: transitions so far and first depth, and each level's
    /// counts (for a checkpoint).
    pub(crate) fn counts(&self) -> TallyCounts {
        (
            self.transitions.clone(),
            self.first_depth.clone(),
            self.levels.clone(),
        )
    }

    /// Continues from [`LabelTally::counts`]' output.
    pub(crate) fn restore(&mut self, (transitions, first_depth, levels): TallyCounts) {
        assert_eq!(
            transitions.len(),
            self.names.len(),
            "a checkpoint of another model"
        );
        self.transitions = transitions;
        self.first_depth = first_depth;
        self.levels = levels.filter(|l| l.iter().all(|c| c.len() == self.names.len()));
    }

    pub(crate) fn into_counts(self) -> Vec<LabelCount> {
        let levels = self.levels;
        self.names
            .into_iter()
            .zip(self.transitions)
            .zip(self.first_depth)
            .enumerate()
            .map(|(i, ((name, transitions), first_depth))| LabelCount {
                name,
                transitions,
                first_depth,
                by_depth: levels
                    .as_ref()
                    .map(|l| l.iter().map(|level| level[i]).collect()),
            })
            .collect()
    }
}
