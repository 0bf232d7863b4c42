//! The solids of an assembly scene: `shape` / `shapes` on `[[bodies]]` (the keys of ordinary
//! scene bodies), their mass properties when `inertia` is not given, `[[fixed]]` solids, and
//! the `[contact]` pair lists.

use std::collections::HashMap;

use crate::dynamics::PlacedShape;
use crate::geometry::{MassProperties, Shape};
use crate::math::{Mat3, Pose, Quat, Vec3, pose};
use crate::scene::read_orientation;
use crate::scene::read_shape_table;
use crate::scene::reader::{Context, Table, Value};

/// The keys of a `[[fixed]]` table.
pub(super) const FIXED_KEYS: &[&str] = &[
    "name",
    "shape",
    "shapes",
    "position",
    "orientation",
    "restitution",
    "friction",
];

/// A solid's own `restitution` and `friction` as given (either may be left to `[contact]`'s).
pub(super) type OwnMaterial = (Option<f64>, Option<f64>);

/// A body's or fixed solid's `restitution` (in [0, 1]) and `friction` (≥ 0), which only a
/// solid (a body with shapes, a fixed solid) may give; `None` after an error, which is
/// reported.
pub(super) fn read_material(t: &Table, has_shapes: bool) -> Option<OwnMaterial> {
    let (e, mu) = (t.get("restitution"), t.get("friction"));
    if !has_shapes && let Some(v) = e.as_ref().or(mu.as_ref()) {
        v.error("`restitution` and `friction` are a solid's: give the body a `shape` (or `shapes`), or set them for every contact in `[contact]`");
        return None;
    }
    let restitution = match e {
        Some(v) => match v.number() {
            Some(x) if (0.0..=1.0).contains(&x) => Some(Some(x)),
            Some(x) => {
                v.error(format!("restitution must be in [0, 1], found {x}"));
                None
            }
            None => None,
        },
        None => Some(None),
    };
    let friction = match mu {
        Some(v) => v.non_negative().map(Some),
        None => Some(None),
    };
    Some((restitution?, friction?))
}

/// A body's or fixed solid's `shape` or `shapes` (empty when neither is given; `None` after an
/// error, which is reported).
pub(super) fn read_shapes(ctx: &Context, t: &Table) -> Option<Vec<PlacedShape>> {
    match (t.get("shape"), t.get("shapes")) {
        (Some(v), Some(_)) => {
            v.error("give either `shape` (one shape) or `shapes` (a list), not both");
            None
        }
        (Some(v), None) => read_shape_table(ctx, &v).map(|s| vec![s]),
        (None, Some(v)) => {
            let items = v.array()?;
            if items.is_empty() {
                v.error("expected at least one shape");
                return None;
            }
            let shapes: Vec<PlacedShape> = items
                .iter()
                .filter_map(|item| read_shape_table(ctx, item))
                .collect();
            (shapes.len() == items.len()).then_some(shapes)
        }
        (None, None) => Some(Vec::new()),
    }
}

/// Mass and inertia of a body from its shapes (`mass` or `density`, exactly one), whose
/// centre of mass must be the body frame's origin (the body's `position` is its centre of
/// mass).
pub(super) fn shape_mass(t: &Table, shapes: &[PlacedShape]) -> Option<(f64, Mat3)> {
    if shapes.iter().any(|s| matches!(s.shape, Shape::HalfSpace)) {
        t.error("a half-space has no mass; only a `[[fixed]]` solid may be one");
        return None;
    }
    let (mass, density) = (t.get("mass"), t.get("density"));
    let density_of = |s: &PlacedShape, d: f64| s.density.unwrap_or(d);
    let parts = |d: f64| -> Option<MassProperties> {
        let parts: Option<Vec<MassProperties>> = shapes
            .iter()
            .map(|s| {
                s.shape
                    .mass_properties(density_of(s, d))
                    .map(|m| m.transformed(&s.pose))
            })
            .collect();
        parts.map(|p| MassProperties::combine(&p))
    };
    let props = match (mass, density) {
        (Some(m), None) => {
            let m = m.positive()?;
            if shapes.iter().any(|s| s.density.is_some()) {
                t.error("per-shape `density` needs the body's `density`, not `mass`");
                return None;
            }
            parts(1.0)?.with_mass(m)
        }
        (None, Some(d)) => parts(d.positive()?)?,
        (Some(v), Some(_)) => {
            v.error("give either `mass` or `density`, not both");
            return None;
        }
        (None, None) => {
            t.error("missing key `mass` or `density` (the mass properties come from the shapes when `inertia` is not given)");
            return None;
        }
    };
    let size = shapes
        .iter()
        .map(|s| s.shape.bounding_radius() + s.pose.translation.vector.norm())
        .fold(0.0, f64::max);
    let c = props.center_of_mass.coords;
    if c.norm() > 1e-9 * size.max(f64::MIN_POSITIVE) {
        t.error(format!(
            "the shapes' centre of mass is at [{}, {}, {}] in the body frame, not at its origin: an assembly body's `position` is its centre of mass, so move the shapes by the opposite, or give `inertia` (then the shapes only collide)",
            c.x, c.y, c.z
        ));
        return None;
    }
    Some((props.mass, props.inertia))
}

/// A `[[fixed]]` table: its name, shapes and placement.
pub(super) fn read_fixed(
    ctx: &Context,
    t: &Table,
    i: usize,
) -> Option<(String, Vec<PlacedShape>, Pose)> {
    t.reject_unknown(FIXED_KEYS);
    let name = match t.get("name") {
        Some(v) => v.string().map(str::to_string),
        None => Some(format!("fixed{i}")),
    };
    let shapes = read_shapes(ctx, t);
    if shapes.as_ref().is_some_and(Vec::is_empty) {
        t.error("missing key `shape` (a shape table such as { type = \"halfspace\" }) or `shapes` (a list of them)");
        return None;
    }
    let position = t
        .get("position")
        .map(|v| v.vec3())
        .unwrap_or(Some(Vec3::zeros()));
    let orientation = match t.get("orientation") {
        Some(v) => read_orientation(&v),
        None => Some(Quat::identity()),
    };
    Some((name?, shapes?, pose(position?, orientation?)))
}

/// A pair list `[["a", "b"], …]` of solid names (bodies with shapes, fixed solids).
pub(super) fn read_pairs(
    v: &Value,
    solids: &HashMap<String, usize>,
) -> Option<Vec<(usize, usize)>> {
    let mut pairs = Vec::new();
    for item in v.array()? {
        let names = item.array()?;
        let ok = names.len() == 2 && names.iter().all(Value::is_string);
        if !ok {
            item.error("expected a pair of names [\"a\", \"b\"]");
            return None;
        }
        let mut ends = [0; 2];
        for (end, n) in ends.iter_mut().zip(&names) {
            let name = n.string()?;
            match solids.get(name) {
                Some(&s) => *end = s,
                None => {
                    let mut known: Vec<&str> = solids.keys().map(String::as_str).collect();
                    known.sort_unstable();
                    n.error(format!(
                        "no body with shapes or fixed solid named `{name}` (solids: {})",
                        known.join(", ")
                    ));
                    return None;
                }
            }
        }
        if ends[0] == ends[1] {
            item.error("a pair of one solid with itself");
            return None;
        }
        pairs.push((ends[0], ends[1]));
    }
    Some(pairs)
}
