//! The model's [`StateCodec`]: a state as the store packed over the
//! model's templates (`protocol::StorePacker`), so a level of tens of
//! millions of states fits in memory, followed by the invariants' monitor
//! ([`encode_monitor`]).

use super::{ModelSpec, ModelState};
use crate::engine::StateCodec;
use crate::invariants::lifecycle::quarantine_allowed_from;
use crate::invariants::Monitor;
use crate::protocol::{Lifecycle, Repair, StorePacker, StoreView};

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
            ),
        }
    }
}

impl StateCodec<ModelState> for ModelCodec {
    fn encode(&self, state: &ModelState, out: &mut Vec<u8>) {
        self.packer.pack(&state.store, out);
        encode_monitor(&state.monitor, state.store.view(), out);
    }

    fn decode(&self, bytes: &[u8]) -> ModelState {
        let (store, used) = self.packer.unpack(bytes);
        let (monitor, rest) = decode_monitor(&bytes[used..], store.view());
        debug_assert_eq!(used + rest, bytes.len());
        ModelState { store, monitor }
    }
}

// The monitor as its departure from what the store's rollback log says:
// in a correct protocol the two agree, and the monitor costs the one flag
// byte the I1 bit used to. The encoding is exact whatever the protocol
// does; only its length depends on the agreement.
const BREACHED: u8 = 1;
const RETRACTED: u8 = 2;
const HORIZONS: u8 = 4;
const UNQUARANTINABLE: u8 = 8;

/// The monitor the rollback log of `store` implies: its root entries with
/// their horizons, and the records its entries revoked from a state that
/// allows no quarantine.
fn implied_by_log(store: StoreView<'_>) -> Monitor {
    let mut m = Monitor::default();
    for e in store.rollback_log() {
        if e.root {
            m.retracted.insert(e.record);
            m.horizon[e.record as usize] = e.horizon;
        }
        let revokes = e.repair != Repair::Quarantined;
        if revokes && e.from != Lifecycle::Revoked && !quarantine_allowed_from(e.from) {
            m.revoked_unquarantinable.insert(e.record);
        }
    }
    m
}

/// Appends `monitor`: a flag byte, then each part that differs from what
/// `store`'s log implies (breached bits, the retracted set as an XOR, the
/// retracted records' horizons, the unquarantinable set as an XOR).
pub fn encode_monitor(monitor: &Monitor, store: StoreView<'_>, out: &mut Vec<u8>) {
    let log = implied_by_log(store);
    let retracted = monitor.retracted.bits() ^ log.retracted.bits();
    let unquarantinable =
        monitor.revoked_unquarantinable.bits() ^ log.revoked_unquarantinable.bits();
    let horizons_differ = monitor
        .retracted
        .iter()
        .any(|r| monitor.horizon[r as usize] != log.horizon[r as usize]);
    let flags = (monitor.breached != 0) as u8 * BREACHED
        | (retracted != 0) as u8 * RETRACTED
        | horizons_differ as u8 * HORIZONS
        | (unquarantinable != 0) as u8 * UNQUARANTINABLE;
    out.push(flags);
    if flags & BREACHED != 0 {
        out.extend_from_slice(&monitor.breached.to_le_bytes());
    }
    if flags & RETRACTED != 0 {
        out.extend_from_slice(&retracted.to_le_bytes());
    }
    if flags & HORIZONS != 0 {
        out.extend(
            monitor
                .retracted
                .iter()
                .map(|r| monitor.horizon[r as usize]),
        );
    }
    if flags & UNQUARANTINABLE != 0 {
        out.extend_from_slice(&unquarantinable.to_le_bytes());
    }
}

/// Reads what [`encode_monitor`] wrote for the same store; returns the
/// monitor and the bytes read.
pub fn decode_monitor(bytes: &[u8], store: StoreView<'_>) -> (Monitor, usize) {
    let log = implied_by_log(store);
    let flags = bytes[0];
    let mut at = 1;
    let mut take = |n: usize| {
        let part = &bytes[at..at + n];
        at += n;
        part
    };
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    let mut m = Monitor::default();
    if flags & BREACHED != 0 {
        m.breached = u16::from_le_bytes(take(2).try_into().expect("two bytes"));
    }
    let mut retracted = log.retracted.bits();
    if flags & RETRACTED != 0 {
        retracted ^= word(take(8));
    }
    m.retracted = crate::protocol::RecordSet::from_bits(retracted);
    if flags & HORIZONS != 0 {
        let roots = m.retracted;
        for (r, &h) in roots.iter().zip(take(roots.len())) {
            m.horizon[r as usize] = h;
        }
    } else {
        for r in m.retracted.iter() {
            m.horizon[r as usize] = log.horizon[r as usize];
        }
    }
    let mut unquarantinable = log.revoked_unquarantinable.bits();
    if flags & UNQUARANTINABLE != 0 {
        unquarantinable ^= word(take(8));
    }
    m.revoked_unquarantinable = crate::protocol::RecordSet::from_bits(unquarantinable);
    (m, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{RecordSet, Store};

    #[test]
    fn a_monitor_that_departs_from_the_log_round_trips() {
        let store = Store::new();
        let mut m = Monitor::default();
        let mut bytes = Vec::new();
        encode_monitor(&m, store.view(), &mut bytes);
        assert_eq!(bytes, [0], "agreement with the log costs one byte");
        m.breached = 0b1010_0000_0001;
        m.retracted = [1, 5, 63].into_iter().collect::<RecordSet>();
        m.horizon[1] = 3;
        m.horizon[5] = 9;
        m.horizon[63] = 64;
        m.revoked_unquarantinable = RecordSet::single(7);
        bytes.clear();
        encode_monitor(&m, store.view(), &mut bytes);
        bytes.push(0xAA); // what follows is not read
        let (back, used) = decode_monitor(&bytes, store.view());
        assert_eq!(back, m);
        assert_eq!(used, bytes.len() - 1);
    }
}
