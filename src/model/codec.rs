//! The model's [`StateCodec`]: a state as one bit for the I1 monitor and
//! the store bit-packed over the model's templates (`protocol::StorePacker`),
//! so a level of tens of millions of states fits in memory.

use super::{ModelSpec, ModelState};
use crate::engine::StateCodec;
use crate::protocol::bits::{BitReader, BitWriter};
use crate::protocol::StorePacker;

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
        w.put(u64::from(state.i1_breached), 1);
        self.packer.pack(&state.store, &mut w);
        w.finish();
    }

    fn decode(&self, bytes: &[u8]) -> ModelState {
        let mut r = BitReader::new(bytes);
        let i1_breached = r.get(1) != 0;
        let store = self.packer.unpack(&mut r);
        debug_assert_eq!(r.bytes_used(), bytes.len());
        ModelState { store, i1_breached }
    }
}
