//! What the program's tests share (each takes what it needs with `mod common;`): running the
//! `impulse` binary from the repository's root (and asserting it succeeded), fresh scratch
//! directories, and its output as text.

// Each test file uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `impulse` binary with `args` from the repository's root.
pub fn impulse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("the impulse binary runs")
}

/// Runs the `impulse` binary with `args` and asserts it succeeded (the message shows its
/// stderr).
pub fn succeeds(args: &[&str]) -> Output {
    let output = impulse(args);
    assert!(
        output.status.success(),
        "impulse {args:?} failed: {}",
        text(&output.stderr)
    );
    output
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch path `name` under the tests' temporary directory, emptied (not created).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Program output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `impulse run SCENE --duration DURATION --out OUT --quiet`, asserts it succeeded, and
/// returns its `summary.json`.
pub fn run_summary(scene: &str, duration: &str, out: &Path) -> serde_json::Value {
    let out = out.to_str().expect("a UTF-8 path");
    succeeds(&[
        "run",
        scene,
        "--duration",
        duration,
        "--out",
        out,
        "--quiet",
    ]);
    let summary =
        std::fs::read_to_string(Path::new(out).join("summary.json")).expect("summary.json");
    serde_json::from_str(&summary).expect("summary.json is JSON")
}
