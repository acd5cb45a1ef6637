//! Symmetry reduction, engine side: a model whose states fall into classes
//! of equivalent states (e.g. equal up to a renaming of interchangeable
//! ids) names one representative per class, and the engine fingerprints,
//! stores, counts and expands representatives only.
//!
//! Soundness is the model's to argue: every property must have the same
//! value on all states of a class, and the successors of equivalent states
//! must be equivalent. Counts are then counts of classes. Counterexamples
//! stay real: the engine's parent links lead through representatives, and
//! `path` rebuilds a trace of the unreduced model by replaying from a real
//! initial state, choosing at each step an action whose successor's
//! representative has the recorded fingerprint.

use super::labels::{Labelled, Transitions, Unlabelled};
use stateright::Model;
use std::marker::PhantomData;

/// A model with a symmetry: [`Symmetric::representative`] maps each state
/// to the one state the engine keeps for its class.
pub trait Symmetric: Model {
    /// The representative of `state`'s class: equal for equivalent states,
    /// and itself equivalent to `state`.
    fn representative(&self, state: &Self::State) -> Self::State;

    /// [`Symmetric::representative`] of a state the caller owns, which a
    /// model may turn into its representative in place (the engine calls
    /// this on every successor, so a copy saved is saved per transition).
    fn representative_owned(&self, state: Self::State) -> Self::State {
        self.representative(&state)
    }
}

/// Transitions taken as `T` takes them, each successor replaced by its
/// representative ([`Engine::symmetric`]).
///
/// [`Engine::symmetric`]: super::Engine::symmetric
pub struct Reduced<T>(PhantomData<T>);

/// The adapters [`Reduced`] may wrap: the plain and the labelled one (a
/// reduced in-place run would step through `next`, in place no longer).
/// Public and sealed, as `Transitions` is.
pub trait Reducible {}

impl Reducible for Unlabelled {}

impl Reducible for Labelled {}

impl<M: Symmetric, T: Transitions<M>> Transitions<M> for Reduced<T> {
    type Label = T::Label;
    const REDUCED: bool = true;

    #[inline]
    fn next(
        model: &M,
        state: &M::State,
        action: M::Action,
    ) -> Result<(M::State, T::Label), T::Label> {
        T::next(model, state, action).map(|(next, label)| (model.representative_owned(next), label))
    }

    fn label_names(model: &M) -> Vec<&'static str> {
        T::label_names(model)
    }

    #[inline]
    fn canonical(model: &M, state: M::State) -> M::State {
        model.representative_owned(state)
    }
}
