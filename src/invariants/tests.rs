//! The checkers against the protocol on generated operation sequences
//! ([`crate::protocol::generate`]): every accepted operation keeps I1 on
//! its transition and I2 and G3 on its state, G3 not under the `snapshot`
//! tool basis, where DESIGN.md expects it to break.

use super::{Context, Invariant, Monitor};
use crate::protocol::generate::{config, scenario};
use crate::protocol::Symbols;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_sequences_keep_i1_i2_and_g3((setup, ops) in scenario()) {
        let ctx = Context::new(&setup.tools(&mut Symbols::new()));
        let g3_applies = !setup.basis_snapshot;
        let mut monitor = Monitor::default();
        for s in setup.run(&ops).0.iter().filter(|s| s.result.is_ok()) {
            let (before, op, after) = (s.before.view(), &s.op, s.after.view());
            for v in monitor.judge(&ctx, before, op, after) {
                if g3_applies || v.invariant != Invariant::G3 {
                    prop_assert!(false, "after {:?}: {}", op, v);
                }
            }
        }
    }
}
