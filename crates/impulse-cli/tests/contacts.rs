//! `impulse contacts`: the contact problem at one instant, as text and JSON.

mod common;

use common::*;

#[test]
fn contacts_reports_the_inconsistent_rod_as_json() {
    // scenes/constraint/rod_inconsistent.toml (Baraff Fig. 10.3): one sliding contact, q = −g
    // (eq. 10-13), no forces, a ray.
    let out = impulse(&[
        "contacts",
        "scenes/constraint/rod_inconsistent.toml",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["consistency"], "inconsistent");
    assert_eq!(report["contacts"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["contacts"][0]["sliding"], true);
    let q = report["vector"][0].as_f64().expect("q");
    assert!((q + 9.81).abs() < 1e-9, "q = {q}");
    assert!(report["ray"][0].is_array());
}

#[test]
fn contacts_reports_a_resting_stack_as_text() {
    // The stack of five at 1 s: five interfaces (the ground's and four between boxes) of four
    // corners each, 20 contacts, a consistent problem.
    let out = impulse(&[
        "contacts",
        "scenes/constraint/stack_of_five.toml",
        "--at",
        "1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("t = 1 s: 20 contacts"), "{stdout}");
    assert!(
        stdout.contains("consistent: contact forces exist"),
        "{stdout}"
    );
}

#[test]
fn contacts_refuses_a_negative_time() {
    let out = impulse(&[
        "contacts",
        "scenes/constraint/box_on_slope.toml",
        "--at",
        "-1",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--at -1: expected a time ≥ 0"),
        "{}",
        text(&out.stderr)
    );
}
