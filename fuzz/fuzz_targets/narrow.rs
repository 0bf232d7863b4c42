//! The narrow phase on random shape pairs and poses (see `narrow_input.rs`): every answer
//! finite with a unit normal, two spheres at their closed-form distance, and no panic, from a
//! new cache and from a used one.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../narrow_input.rs"]
mod narrow_input;

fuzz_target!(|data: &[u8]| narrow_input::run(data));
