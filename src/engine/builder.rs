//! The engine's one entry point: [`Engine`], a builder in the shape of
//! stateright's `CheckerBuilder`. `Engine::new(&model)` starts a plain run;
//! [`Engine::options`], [`Engine::codec`] and [`Engine::stream`] say how it
//! runs, and [`Engine::labelled`], [`Engine::in_place`] and
//! [`Engine::symmetric`] how it takes transitions; [`Engine::run`] runs it.
//!
//! How transitions are taken changes what the model must implement, so
//! those three are typestate transitions: each changes the builder's
//! strategy parameter (the `labels::Transitions` adapter the run loop is
//! generic over) and exists only when the model implements the trait it
//! needs ([`LabelledModel`], [`StepInto`], [`Symmetric`]). The run is
//! monomorphised for the strategy and the fingerprint width, as each of
//! the former `enumerate_*` functions was: the builder costs nothing on the
//! hot path.

use super::bfs;
use super::codec::StateCodec;
use super::fp::FingerprintWidth;
use super::labels::{InPlace, Labelled, LabelledModel, StepInto, Transitions, Unlabelled};
use super::observer::StateStream;
use super::options::EngineOptions;
use super::report::EngineReport;
use super::symmetry::{Reduced, Reducible, Symmetric};
use stateright::Model;
use std::hash::Hash;
use std::marker::PhantomData;

/// A run of the engine on a model, being set up; [`Engine::run`] runs it.
/// `T` is how transitions are taken: [`Unlabelled`] (a plain
/// `stateright::Model`, the start), [`Labelled`], [`InPlace`], or
/// [`Reduced`] around one of the first two.
///
/// ```
/// use memtx_check::engine::{Engine, EngineOptions};
/// # use stateright::Model;
/// # struct Count;
/// # impl Model for Count {
/// #     type State = u8;
/// #     type Action = ();
/// #     fn init_states(&self) -> Vec<u8> { vec![0] }
/// #     fn actions(&self, s: &u8, a: &mut Vec<()>) { if *s < 9 { a.push(()) } }
/// #     fn next_state(&self, s: &u8, _: ()) -> Option<u8> { Some(s + 1) }
/// # }
/// let options = EngineOptions::new(Some(4), 2);
/// let report = Engine::new(&Count).options(&options).run();
/// assert_eq!(report.unique_states, 5);
/// ```
#[must_use = "this sets up a run; call run() to explore"]
pub struct Engine<'a, M: Model, T = Unlabelled> {
    model: &'a M,
    opts: Option<&'a EngineOptions>,
    codec: Option<&'a dyn StateCodec<M::State>>,
    stream: Option<&'a dyn StateStream<M>>,
    transitions: PhantomData<T>,
}

impl<'a, M: Model> Engine<'a, M> {
    /// A run on `model`: plain transitions (`next_state`), states held as
    /// values, [`EngineOptions::default`] (no depth bound, one thread)
    /// until [`Engine::options`] says otherwise.
    pub fn new(model: &'a M) -> Self {
        Engine {
            model,
            opts: None,
            codec: None,
            stream: None,
            transitions: PhantomData,
        }
    }

    /// Counts the labels of a [`LabelledModel`]'s transitions
    /// ([`EngineReport::labels`]); counts, verdicts and traces are those of
    /// the plain run.
    pub fn labelled(self) -> Engine<'a, M, Labelled>
    where
        M: LabelledModel,
    {
        self.to()
    }

    /// Steps every transition of a [`StepInto`] model into one reused
    /// state: the same results, without a heap allocation per transition.
    pub fn in_place(self) -> Engine<'a, M, InPlace>
    where
        M: StepInto,
    {
        self.to()
    }
}

impl<'a, M: Model, T: Reducible> Engine<'a, M, T> {
    /// Replaces each state of a [`Symmetric`] model by its representative
    /// before it is fingerprinted: counts are of classes, traces real
    /// traces of the model (see `symmetry`). After [`Engine::labelled`]
    /// when labels are counted too; not with [`Engine::in_place`].
    pub fn symmetric(self) -> Engine<'a, M, Reduced<T>>
    where
        M: Symmetric,
    {
        self.to()
    }
}

impl<'a, M: Model, T> Engine<'a, M, T> {
    /// Runs with `opts`: depth bound, threads, observer, fingerprint
    /// width, memory guard, checkpoint, resume, disk (see
    /// [`EngineOptions`]).
    pub fn options(self, opts: &'a EngineOptions) -> Self {
        Engine {
            opts: Some(opts),
            ..self
        }
    }

    /// Holds each level's states encoded by `codec` rather than as values:
    /// the same results, a fraction of the memory when states own heap
    /// data. A `disk` run needs one.
    pub fn codec(self, codec: &'a dyn StateCodec<M::State>) -> Self {
        Engine {
            codec: Some(codec),
            ..self
        }
    }

    /// Tells `stream` of every state and transition as the run takes them
    /// (see [`StateStream`]).
    pub fn stream(self, stream: &'a dyn StateStream<M>) -> Self {
        Engine {
            stream: Some(stream),
            ..self
        }
    }

    /// This run, its transitions taken as `U` takes them.
    fn to<U>(self) -> Engine<'a, M, U> {
        Engine {
            model: self.model,
            opts: self.opts,
            codec: self.codec,
            stream: self.stream,
            transitions: PhantomData,
        }
    }
}

impl<M, T> Engine<'_, M, T>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
{
    /// Enumerates the states of the model breadth-first, level by level;
    /// docs/architecture.md, "The engine's semantics", says exactly what
    /// it promises.
    ///
    /// Panics if a trace cannot be replayed, which means the model is not
    /// deterministic (`init_states`/`actions`/`next_state` vary between
    /// calls) or two states collided on their fingerprint.
    pub fn run(self) -> EngineReport<M::State, M::Action> {
        let default;
        let opts = match self.opts {
            Some(opts) => opts,
            None => {
                default = EngineOptions::default();
                &default
            }
        };
        match opts.fingerprint {
            FingerprintWidth::Bits64 => {
                bfs::run::<M, T, u64>(self.model, opts, self.codec, self.stream)
            }
            FingerprintWidth::Bits128 => {
                bfs::run::<M, T, u128>(self.model, opts, self.codec, self.stream)
            }
        }
    }
}
