//! Typed readers of an assembly scene's keys, one per kind of value: each reads the value under
//! a key of a table, and a missing (when required) or malformed value is reported at the key
//! by the scene reader, as every table of the file wants it.

use std::collections::HashMap;

use crate::math::Vec3;
use crate::scene::reader::{Table, Value};

/// The keys every joint and load table has besides its type's own.
const COMMON: [&str; 4] = ["name", "type", "body", "to"];

/// A required `[x, y, z]` (`what` says what it is when it is missing).
pub(super) fn vec3(t: &Table, key: &str, what: &str) -> Option<Vec3> {
    t.required(key, what).and_then(|v| v.vec3())
}

/// An optional `[x, y, z]`, `default` when absent.
pub(super) fn vec3_or(t: &Table, key: &str, default: Vec3) -> Option<Vec3> {
    t.get(key).map(|v| v.vec3()).unwrap_or(Some(default))
}

/// A required non-zero direction `[x, y, z]`.
pub(super) fn direction(t: &Table, key: &str) -> Option<Vec3> {
    t.required(key, "a direction [x, y, z]").and_then(|v| {
        let d = v.vec3()?;
        if d.norm() > 1e-12 {
            Some(d)
        } else {
            v.error("a zero direction: give a non-zero [x, y, z]");
            None
        }
    })
}

/// A required positive number.
pub(super) fn positive(t: &Table, key: &str, what: &str) -> Option<f64> {
    t.required(key, what).and_then(|v| v.positive())
}

/// An optional non-negative number, `default` when absent.
pub(super) fn non_negative_or(t: &Table, key: &str, default: f64) -> Option<f64> {
    t.get(key)
        .map(|v| v.non_negative())
        .unwrap_or(Some(default))
}

/// An optional true or false, `default` when absent.
pub(super) fn boolean_or(t: &Table, key: &str, default: bool) -> Option<bool> {
    t.get(key).map(|v| v.boolean()).unwrap_or(Some(default))
}

/// A required string.
pub(super) fn string(t: &Table, key: &str, what: &str) -> Option<String> {
    t.required(key, what)
        .and_then(|v| v.string().map(str::to_string))
}

/// `name`, or `default` when absent.
pub(super) fn name_or(t: &Table, default: String) -> Option<String> {
    match t.get("name") {
        Some(v) => v.string().map(str::to_string),
        None => Some(default),
    }
}

/// A joint's or load's keys: the common ones and its type's `specific` ones.
pub(super) fn reject_unknown(t: &Table, specific: &[&str]) {
    let known: Vec<&str> = COMMON.iter().chain(specific).copied().collect();
    t.reject_unknown(&known);
}

/// A joint's or load's `body` (its body A's index) and `to` (body B's index, `None` for the
/// world, the default).
pub(super) fn ends(
    t: &Table,
    bodies: &HashMap<String, usize>,
) -> (Option<usize>, Option<Option<usize>>) {
    let a = t
        .required("body", "the name of body A")
        .and_then(|v| body_ref(bodies, "body", v))
        .flatten();
    let b = match t.get("to") {
        Some(v) => body_ref(bodies, "to", v),
        None => Some(None),
    };
    (a, b)
}

/// A joint's or load's `body` or `to`: a body's index, or (for `to`) `None` for the world.
pub(super) fn body_ref(
    bodies: &HashMap<String, usize>,
    key: &str,
    v: Value,
) -> Option<Option<usize>> {
    let n = v.string()?;
    if key == "to" && n == "world" {
        return Some(None);
    }
    match bodies.get(n) {
        Some(&b) => Some(Some(b)),
        None => {
            let mut known: Vec<&str> = bodies.keys().map(String::as_str).collect();
            known.sort_unstable();
            v.error(format!(
                "no body named `{n}` (bodies: {}{})",
                known.join(", "),
                if key == "to" { "; or \"world\"" } else { "" }
            ));
            None
        }
    }
}
