//! The scene reader on arbitrary text: errors are fine, a panic is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = impulse::scene::parse(std::path::Path::new("fuzz.toml"), text);
    }
});
