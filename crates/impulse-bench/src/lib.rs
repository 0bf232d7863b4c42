//! Benchmark-only crate: see `benches/`.
