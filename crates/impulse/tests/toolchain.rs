//! The workspace's declared `rust-version` is one every locked dependency builds with (issue
//! 41, item 7: it said 1.85 while the locked nalgebra 0.35 declares 1.89, so a user on 1.85 was
//! told the project builds and then met a dependency that does not).

use std::path::{Path, PathBuf};

/// `major.minor[.patch]` as three numbers (a missing patch is 0).
fn version(text: &str) -> [u64; 3] {
    let mut out = [0; 3];
    for (slot, part) in out.iter_mut().zip(text.split('.')) {
        *slot = part.parse().unwrap_or(0);
    }
    out
}

/// The registry sources cargo unpacked (`$CARGO_HOME/registry/src/*/`).
fn registry_sources() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    std::fs::read_dir(home.join("registry/src"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

#[test]
fn the_declared_rust_version_covers_every_locked_dependency() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let declared = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("workspace.package.rust-version");
    let lock: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.lock")).unwrap()).unwrap();
    let sources = registry_sources();
    let mut checked = Vec::new();
    let mut too_new = Vec::new();
    for package in lock["package"].as_array().unwrap() {
        let (name, number) = (
            package["name"].as_str().unwrap(),
            package["version"].as_str().unwrap(),
        );
        // Only the packages this build unpacked (others are for other platforms).
        let Some(text) = sources.iter().find_map(|s| {
            std::fs::read_to_string(s.join(format!("{name}-{number}/Cargo.toml"))).ok()
        }) else {
            continue;
        };
        let Ok(theirs) = toml::from_str::<toml::Table>(&text) else {
            continue;
        };
        if let Some(needed) = theirs
            .get("package")
            .and_then(|p| p.get("rust-version"))
            .and_then(|v| v.as_str())
        {
            if version(needed) > version(declared) {
                too_new.push(format!("{name} {number} needs Rust {needed}"));
            }
            checked.push(name.to_string());
        }
    }
    // The test must have seen the dependencies it is about, or it proves nothing.
    assert!(
        checked.iter().any(|n| n == "nalgebra"),
        "no unpacked registry sources found (looked in {sources:?})"
    );
    assert!(
        too_new.is_empty(),
        "rust-version = \"{declared}\" but: {}",
        too_new.join(", ")
    );
}
