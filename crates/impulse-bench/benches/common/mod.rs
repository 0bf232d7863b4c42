//! What the benchmarks share.

use std::time::Duration;

use criterion::Criterion;

/// Short runs: 20 samples over 2 s after half a second's warm-up. The figures are printed for
/// reading, not compared against a saved baseline.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
}
