//! The rounds of a distributed run on timely dataflow: one dataflow whose
//! input carries packets, exchanged to the worker each is addressed to,
//! where an operator hands them to the worker's [`Shard`]. A round is one
//! timestamp: the worker sends its packets at time t, advances its input
//! to t + 1 and steps the dataflow until the probe passes t — timely's
//! frontier is the barrier (every packet of round t, from every worker,
//! has then been taken), with no barrier code of ours.

use super::shard::Shard;
use super::wire::{Message, Packet};
use super::word::Word;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// A packet this large (bytes) is sent at once rather than grown.
pub(crate) const PACKET_BYTES: usize = 1 << 20;

pub(crate) struct Net<S, W> {
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Message>>>,
    probe: ProbeHandle<u64>,
    pub(crate) shard: Rc<RefCell<Shard<S, W>>>,
    round: u64,
}

impl<S, W> Net<S, W>
where
    S: Clone + 'static,
    W: Word,
{
    /// Builds the dataflow on `worker`, packets going to `shard`.
    pub(crate) fn new(worker: &mut Worker, shard: Shard<S, W>) -> Self {
        let shard = Rc::new(RefCell::new(shard));
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let receiver = Rc::clone(&shard);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|m: &Message| u64::from(m.0)),
                    "Receive",
                    move |_, _| {
                        move |input, _output| {
                            input.for_each(|cap, data| {
                                let time = *cap.least().expect("a message has a time");
                                let mut shard = receiver.borrow_mut();
                                for (_, packet) in data.drain(..) {
                                    shard.deliver(time, packet);
                                }
                            })
                        }
                    },
                )
                .probe_with(&probe);
        });
        Net {
            input,
            probe,
            shard,
            round: 0,
        }
    }

    /// Starts a round: packets of it that came early are taken now.
    pub(crate) fn begin(&mut self) {
        self.shard.borrow_mut().start_round(self.round);
    }

    /// Sends `packet` to worker `dest` now, and lets the dataflow move
    /// (this worker's share of what others sent is taken meanwhile).
    pub(crate) fn send(&mut self, worker: &mut Worker, dest: usize, packet: Packet) {
        self.input.send((dest as u32, packet));
        self.input.flush();
        worker.step_or_park(Some(Duration::ZERO));
    }

    /// One round in which this worker sends `packet` to every worker:
    /// every worker's packet of it, in no particular order. A worker
    /// missing from it left the run: this worker stops on `gone`.
    pub(crate) fn round_with_all(
        &mut self,
        worker: &mut Worker,
        packet: &Packet,
        gone: &str,
    ) -> Vec<Packet> {
        self.begin();
        for dest in 0..worker.peers() {
            self.send(worker, dest, packet.clone());
        }
        let all = self.end(worker);
        assert_eq!(all.len(), worker.peers(), "{gone}");
        all
    }

    /// Ends the round once every worker's packets of it have been taken;
    /// returns this worker's packets that were not candidates.
    pub(crate) fn end(&mut self, worker: &mut Worker) -> Vec<Packet> {
        self.round += 1;
        self.input.advance_to(self.round);
        while self.probe.less_than(self.input.time()) {
            // Parked rather than spinning: the other processes may share
            // the cores.
            worker.step_or_park(Some(Duration::from_millis(1)));
        }
        std::mem::take(&mut self.shard.borrow_mut().inbox)
    }
}
