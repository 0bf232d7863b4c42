//! The OBJ and STL readers and the solid check on arbitrary bytes: errors are fine, a panic is
//! a bug (an OBJ face index of i64::MIN was one, issue 42).
#![no_main]

use impulse::geometry::mesh_io::{parse_obj, parse_stl};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz");
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(mesh) = parse_obj(path, text)
    {
        let _ = mesh.validate_solids();
    }
    if let Ok(mesh) = parse_stl(path, data) {
        let _ = mesh.validate_solids();
    }
});
