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

#[test]
fn compare_runs_a_scene_under_all_four_models() {
    // scenes/constraint/box_on_slope.toml for 0.2 s under each model: four rows, all
    // completed, the files written. The constraint model holds the box with forces that do no
    // work: its energy falls (the landing) and never rises by more than the drift correction's
    // lift of its 4.9 N weight through a micrometre.
    let dir = scratch("compare_box_on_slope");
    let out = impulse(&[
        "compare",
        "scenes/constraint/box_on_slope.toml",
        "--duration",
        "0.2",
        "--out",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for file in [
        "compare.csv",
        "compare.json",
        "energy.csv",
        "energy.svg",
        "energy.png",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("compare.json")).expect("json"))
            .expect("JSON");
    let models = json["models"].as_array().expect("models");
    let names: Vec<&str> = models.iter().filter_map(|m| m["model"].as_str()).collect();
    assert_eq!(names, ["impulse", "switching", "constraint", "penalty"]);
    for m in models {
        assert_eq!(m["status"], "completed", "{m}");
        assert!((m["sim_time"].as_f64().expect("time") - 0.2).abs() < 1e-12);
    }
    let rise = models[2]["largest_energy_rise"].as_f64().expect("rise");
    assert!(rise < 4.905 * 1e-6, "constraint energy rose {rise} J");
}
