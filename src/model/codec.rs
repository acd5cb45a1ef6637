//! The model's [`StateCodec`]: a state as one byte for the I1 monitor and
//! the store packed over the model's templates (`protocol::StorePacker`),
//! so a level of tens of millions of states fits in memory.

use super::{ModelSpec, ModelState};
use crate::engine::StateCodec;
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
            ),
        }
    }
}

impl StateCodec<ModelState> for ModelCodec {
    fn encode(&self, state: &ModelState, out: &mut Vec<u8>) {
        out.push(u8::from(state.i1_breached));
        self.packer.pack(&state.store, out);
    }

    fn decode(&self, bytes: &[u8]) -> ModelState {
        let (store, used) = self.packer.unpack(&bytes[1..]);
        debug_assert_eq!(used + 1, bytes.len());
        ModelState {
            store,
            i1_breached: bytes[0] != 0,
        }
    }
}
