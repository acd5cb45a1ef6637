//! The model's [`StateCodec`]: a state as the store bit-packed over the
//! model's templates (`protocol::StorePacker`), so a level of tens of
//! millions of states fits in memory, followed, from the next byte, by the
//! invariants' monitor ([`encode_monitor`]).

use super::spec::ModelSpec;
use super::state::{implied_held_back, ModelState};
use crate::engine::StateCodec;
use crate::invariants::lifecycle::quarantine_allowed_from;
use crate::invariants::Monitor;
use crate::protocol::bits::{BitReader, BitWriter};
use crate::protocol::{Lifecycle, RecordId, RecordSet, Repair, StorePacker, StoreView};

pub struct ModelCodec {
    packer: StorePacker,
}

impl ModelCodec {
    pub fn new(spec: &ModelSpec) -> ModelCodec {
        ModelCodec {
            packer: StorePacker::new(
                spec.templates.iter().map(|t| t.proposal).collect(),
                spec.protocol().tools().to_vec(),
                spec.max_records,
                spec.agents,
            ),
        }
    }
}

impl StateCodec<ModelState> for ModelCodec {
    fn encode(&self, state: &ModelState, out: &mut Vec<u8>) {
        let mut w = BitWriter::new(out);
        self.packer.pack(&state.store, &mut w);
        w.finish();
        encode_monitor(&state.monitor, state.store.view(), out);
    }

    fn decode(&self, bytes: &[u8]) -> ModelState {
        let mut state = ModelState::default();
        self.decode_into(bytes, &mut state);
        state
    }

    fn decode_into(&self, bytes: &[u8], state: &mut ModelState) {
        let mut r = BitReader::new(bytes);
        self.packer.unpack_into(&mut r, &mut state.store);
        let used = r.bytes_used();
        let (monitor, rest) = decode_monitor(&bytes[used..], state.store.view());
        debug_assert_eq!(used + rest, bytes.len());
        state.monitor = monitor;
    }

    fn try_decode(&self, bytes: &[u8]) -> Option<ModelState> {
        let mut state = ModelState::default();
        let mut r = BitReader::new(bytes);
        self.packer.try_unpack(&mut r, &mut state.store)?;
        let used = r.bytes_used();
        let monitor = bytes.get(used..)?;
        // The monitor's parts are there whole, as its flags say.
        let flags = *monitor.first()?;
        let parts = [COVERED, RETRACTED, UNQUARANTINABLE];
        let length = 1
            + 2 * usize::from(flags & BREACHED != 0)
            + 8 * parts.iter().filter(|&&f| flags & f != 0).count();
        if flags & !(BREACHED | RETRACTED | COVERED | UNQUARANTINABLE) != 0
            || monitor.len() != length
            || state.store.view().records().len() > 64
        {
            return None;
        }
        state.monitor = decode_monitor(monitor, state.store.view()).0;
        Some(state)
    }
}

// The monitor as its departure from what the store's rollback log and
// records say: in a correct protocol the two agree, and the monitor costs
// the one flag byte the I1 bit used to. The encoding is exact whatever
// the protocol does; only its length depends on the agreement.
const BREACHED: u8 = 1;
const RETRACTED: u8 = 2;
const COVERED: u8 = 4;
const UNQUARANTINABLE: u8 = 8;
const HELD_BACK: u8 = 16;
const UNREPAIRED: u8 = 32;

/// The monitor the rollback log and the records of `store` imply: the
/// log's root entries, their descendants below each entry's horizon
/// (parents precede their children in a store the protocol built, so one
/// pass closes each), the records its entries revoked from a state that
/// allows no quarantine, the records quarantined without a commit
/// check's reason as held back, and nothing unrepaired.
fn implied_by_log(store: StoreView<'_>) -> Monitor {
    let mut m = Monitor::default();
    let records = store.records();
    for e in store.rollback_log() {
        if e.root {
            m.retracted.insert(e.record);
            let mut reach = RecordSet::single(e.record);
            let end = (e.horizon as usize).min(records.len());
            for (id, r) in records
                .iter()
                .enumerate()
                .take(end)
                .skip(e.record as usize + 1)
            {
                if r.derived_from().intersects(reach) {
                    reach.insert(id as RecordId);
                }
            }
            reach.remove(e.record);
            m.covered = m.covered.union(reach);
        }
        let revokes = e.repair != Repair::Quarantined;
        if revokes && e.from != Lifecycle::Revoked && !quarantine_allowed_from(e.from) {
            m.revoked_unquarantinable.insert(e.record);
        }
    }
    m.held_back = implied_held_back(store);
    m
}

/// Appends `monitor`: a flag byte, then each part that differs from what
/// `store`'s log and records imply (the breached bits, then the
/// retracted, covered, unquarantinable, held-back and unrepaired sets as
/// XORs with the implied ones).
pub fn encode_monitor(monitor: &Monitor, store: StoreView<'_>, out: &mut Vec<u8>) {
    let log = implied_by_log(store);
    let parts = [
        (RETRACTED, monitor.retracted.bits() ^ log.retracted.bits()),
        (COVERED, monitor.covered.bits() ^ log.covered.bits()),
        (
            UNQUARANTINABLE,
            monitor.revoked_unquarantinable.bits() ^ log.revoked_unquarantinable.bits(),
        ),
        (HELD_BACK, monitor.held_back.bits() ^ log.held_back.bits()),
        (
            UNREPAIRED,
            monitor.unrepaired.bits() ^ log.unrepaired.bits(),
        ),
    ];
    let mut flags = if monitor.breached != 0 { BREACHED } else { 0 };
    for (flag, diff) in parts {
        if diff != 0 {
            flags |= flag;
        }
    }
    out.push(flags);
    if flags & BREACHED != 0 {
        out.extend_from_slice(&monitor.breached.to_le_bytes());
    }
    for (flag, diff) in parts {
        if flags & flag != 0 {
            out.extend_from_slice(&diff.to_le_bytes());
        }
    }
}

/// Reads what [`encode_monitor`] wrote for the same store; returns the
/// monitor and the bytes read.
pub fn decode_monitor(bytes: &[u8], store: StoreView<'_>) -> (Monitor, usize) {
    let mut m = implied_by_log(store);
    let flags = bytes[0];
    let mut at = 1;
    if flags & BREACHED != 0 {
        m.breached = u16::from_le_bytes([bytes[1], bytes[2]]);
        at += 2;
    }
    for (flag, set) in [
        (RETRACTED, &mut m.retracted),
        (COVERED, &mut m.covered),
        (UNQUARANTINABLE, &mut m.revoked_unquarantinable),
        (HELD_BACK, &mut m.held_back),
        (UNREPAIRED, &mut m.unrepaired),
    ] {
        if flags & flag != 0 {
            let word: [u8; 8] = bytes[at..at + 8].try_into().expect("eight bytes");
            *set = RecordSet::from_bits(set.bits() ^ u64::from_le_bytes(word));
            at += 8;
        }
    }
    (m, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Store;

    #[test]
    fn a_monitor_that_departs_from_the_log_round_trips() {
        let store = Store::new();
        let mut m = Monitor::default();
        let mut bytes = Vec::new();
        encode_monitor(&m, store.view(), &mut bytes);
        assert_eq!(bytes, [0], "agreement with the log costs one byte");
        m.breached = 0b1010_0000_0001;
        m.retracted = [1, 5, 63].into_iter().collect::<RecordSet>();
        m.covered = [2, 6].into_iter().collect::<RecordSet>();
        m.revoked_unquarantinable = RecordSet::single(7);
        m.held_back = RecordSet::single(3);
        m.unrepaired = [4, 9].into_iter().collect::<RecordSet>();
        bytes.clear();
        encode_monitor(&m, store.view(), &mut bytes);
        bytes.push(0xAA); // what follows is not read
        let (back, used) = decode_monitor(&bytes, store.view());
        assert_eq!(back, m);
        assert_eq!(used, bytes.len() - 1);
    }
}
