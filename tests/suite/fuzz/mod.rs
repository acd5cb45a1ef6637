//! In-process fuzz tests (proptest): `inputs`, models and traces;
//! `surfaces`, what a run reads besides them (checkpoints, dumps,
//! baselines, hosts files, HTTP request heads).

mod inputs;
mod surfaces;

use proptest::test_runner::Config as ProptestConfig;

/// `default_cases` per property unless `MEMTX_FUZZ_CASES` says
/// otherwise; no persisted failures.
fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("MEMTX_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
