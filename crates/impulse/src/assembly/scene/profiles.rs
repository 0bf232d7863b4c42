//! The keys of time functions that are not polynomials (issue 36's drivers and trajectories):
//! a driver's `angle` or `position`, a torque load's `torque`, a circle path's `angle`, and a
//! `point_on_path` joint's `path`, given as a harmonic or as a table of times and values. A
//! scalar function is an array (the polynomial's coefficients, as before) or a table
//! `{ type = "harmonic" | "table", … }`.

use crate::math::Vec3;
use crate::scene::reader::{Table, Value};

use super::super::Path;
use super::super::path::PathTable;
use super::super::profile::{Profile, TimeTable, check_times};
use super::coefficients;
use super::keys::{vec3, vec3_or};

/// A scalar function of time under `key`: `[a₀, a₁, …]` (a polynomial, `what` says of what),
/// or a harmonic or table.
pub(super) fn read_profile(t: &Table, key: &str, what: &str) -> Option<Profile> {
    let v = t.required(
        key,
        &format!("{what}, or a table {{ type = \"harmonic\" | \"table\", … }}"),
    )?;
    if !v.is_table() {
        return coefficients(t, key, what).map(Profile::Polynomial);
    }
    let p = v.table()?;
    let kind = p
        .required("type", "\"harmonic\" or \"table\"")
        .and_then(|v| v.choice(&["harmonic", "table"]))?;
    if kind == "harmonic" {
        p.reject_unknown(&["type", "offset", "amplitude", "frequency", "phase"]);
        let number_or = |key: &str| p.get(key).map(|v| v.number()).unwrap_or(Some(0.0));
        let (offset, phase) = (number_or("offset"), number_or("phase"));
        let amplitude = p
            .required(
                "amplitude",
                "a number: x(t) = offset + amplitude sin(2π frequency t + phase)",
            )
            .and_then(|v| v.number());
        let frequency = p
            .required("frequency", "cycles per unit time (not negative)")
            .and_then(|v| v.non_negative());
        return Some(Profile::Harmonic {
            offset: offset?,
            amplitude: amplitude?,
            frequency: frequency?,
            phase: phase?,
        });
    }
    p.reject_unknown(&["type", "times", "values"]);
    let times = numbers(&p, "times", "the times [t₀, t₁, …], strictly increasing");
    let values = numbers(&p, "values", "the values [x₀, x₁, …], one per time");
    let (times, values) = (times?, values?);
    // The times were checked at their key; what is left is about the values.
    match TimeTable::new(times, values) {
        Ok(table) => Some(Profile::Table(table)),
        Err(message) => {
            if let Some(v) = p.get("values") {
                v.error(message);
            }
            None
        }
    }
}

/// A `path` of type `harmonic` or `table` (the other types are read by the caller).
pub(super) fn read_path(p: &Table, kind: &str) -> Option<Path> {
    if kind == "harmonic" {
        p.reject_unknown(&["type", "offset", "amplitude", "frequency", "phase"]);
        let offset = vec3(
            p,
            "offset",
            "[x, y, z], the centre of each coordinate's swing",
        );
        let amplitude = vec3(p, "amplitude", "[x, y, z], each coordinate's amplitude");
        let frequency = p
            .required(
                "frequency",
                "[fx, fy, fz] in cycles per unit time (not negative)",
            )
            .and_then(|v| {
                let f = v.vec3()?;
                if f.iter().all(|x| *x >= 0.0) {
                    Some(f)
                } else {
                    v.error(format!(
                        "frequencies are cycles per unit time and must not be negative, found {:?}",
                        [f.x, f.y, f.z]
                    ));
                    None
                }
            });
        let phase = vec3_or(p, "phase", Vec3::zeros());
        return Some(Path::Harmonic {
            offset: offset?,
            amplitude: amplitude?,
            frequency: frequency?,
            phase: phase?,
        });
    }
    p.reject_unknown(&["type", "times", "points"]);
    let times = numbers(p, "times", "the times [t₀, t₁, …], strictly increasing");
    let points = p
        .required("points", "the points [[x, y, z], …], one per time")
        .and_then(|v| {
            let items = v.array()?;
            let points: Vec<Vec3> = items.iter().filter_map(Value::vec3).collect();
            (points.len() == items.len()).then_some(points)
        });
    let (times, points) = (times?, points?);
    // The times were checked at their key; what is left is about the points.
    match PathTable::new(times, points) {
        Ok(table) => Some(Path::Table(table)),
        Err(message) => {
            if let Some(v) = p.get("points") {
                v.error(message);
            }
            None
        }
    }
}

/// A required array of numbers under `key`; a table's times are checked here, at the key.
fn numbers(t: &Table, key: &str, what: &str) -> Option<Vec<f64>> {
    let v = t.required(key, what)?;
    let items = v.array()?;
    let x: Vec<f64> = items.iter().filter_map(Value::number).collect();
    if x.len() != items.len() {
        return None;
    }
    if key == "times"
        && let Err(message) = check_times(&x)
    {
        v.error(message);
        return None;
    }
    Some(x)
}
