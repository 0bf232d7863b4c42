//! Benchmark-only crate: see `benches/`. The library holds what the benches share and can be
//! tested without running them: the pile scenes of `benches/piles.rs` ([`piles`]).

pub mod piles;
