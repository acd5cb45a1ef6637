//! A round's candidates on their way to their owners: each successor
//! the engine's phase 1 hands over is packed for the worker owning its
//! fingerprint (`wire::CANDIDATES`, or at the last level
//! `wire::LEAF_CANDIDATES`), a packet sent once full and the rest at the
//! round's end.

use super::net::{Net, PACKET_BYTES};
use super::wire::{Packet, LEAF_CANDIDATES};
use super::word::Word;
use crate::engine::Successor;
use timely::worker::Worker;

/// A round's candidates being packed, one packet per owner; a packet is
/// sent once full, the rest at the round's end.
pub(crate) struct Outbox {
    packets: Vec<Packet>,
    kind: u8,
}

impl Outbox {
    pub(crate) fn new(peers: usize, kind: u8) -> Self {
        Outbox {
            packets: (0..peers).map(|_| Packet::new(kind)).collect(),
            kind,
        }
    }

    /// Packs `successor` for its owner (see `wire::CANDIDATES` and
    /// `wire::LEAF_CANDIDATES`).
    pub(crate) fn push<S: Clone + 'static, W: Word>(
        &mut self,
        net: &mut Net<S, W>,
        worker: &mut Worker,
        successor: &Successor<'_, W>,
    ) {
        let dest = successor.fp.owner(self.packets.len());
        let packet = &mut self.packets[dest];
        packet.word(successor.fp).word(successor.parent);
        packet.u32(successor.action);
        if self.kind == LEAF_CANDIDATES {
            packet.u64(successor.decides);
        } else {
            packet.u32(successor.encoding.len() as u32);
            packet.buffer().extend_from_slice(successor.encoding);
        }
        if packet.len() >= PACKET_BYTES {
            let full = std::mem::replace(packet, Packet::new(self.kind));
            net.send(worker, dest, full);
        }
    }

    /// Sends what is left.
    pub(crate) fn flush<S: Clone + 'static, W: Word>(
        self,
        net: &mut Net<S, W>,
        worker: &mut Worker,
    ) {
        for (dest, packet) in self.packets.into_iter().enumerate() {
            if packet.len() > 0 {
                net.send(worker, dest, packet);
            }
        }
    }
}
