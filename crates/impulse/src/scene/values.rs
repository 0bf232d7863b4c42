//! Values that tables of every kind share: orientations and coefficients of restitution.

use crate::math::Quat;

use super::reader::Value;

pub(super) fn restitution(value: &Value<'_, '_>) -> Option<f64> {
    let e = value.number()?;
    if (0.0..=1.0).contains(&e) {
        Some(e)
    } else {
        value.error(format!(
            "expected a coefficient of restitution from 0 to 1, found {e}"
        ));
        None
    }
}

/// `[w, x, y, z]` (unit quaternion) or `{ axis = [x, y, z], angle = degrees }`.
pub(crate) fn read_orientation(value: &Value<'_, '_>) -> Option<Quat> {
    // A list of rotations, applied in turn about the fixed axes: q = q_n ⋯ q_2 q_1.
    if let Some(items) = value.is_array().then(|| value.array()).flatten()
        && items.first().is_some_and(Value::is_table)
    {
        let mut total = Quat::identity();
        for item in &items {
            if !item.is_table() {
                item.error("expected a rotation { axis = [x, y, z], angle = degrees }, like the others in this list");
                return None;
            }
            total = read_orientation(item)? * total;
        }
        return Some(total);
    }
    if value.is_table() {
        let t = value.table()?;
        t.reject_unknown(&["axis", "angle"]);
        let axis = t.required("axis", "[x, y, z]").and_then(|v| {
            let a = v.vec3()?;
            if a.norm() > 0.0 {
                Some(a)
            } else {
                v.error("the rotation axis has zero length; give a non-zero direction");
                None
            }
        });
        let angle = t
            .required("angle", "an angle in degrees")
            .and_then(|v| v.number());
        return Some(Quat::from_axis_angle(
            &nalgebra::Unit::new_normalize(axis?),
            angle?.to_radians(),
        ));
    }
    if !value.is_array() {
        value.error("expected an orientation: a quaternion [w, x, y, z] or { axis = [x, y, z], angle = degrees }");
        return None;
    }
    if value.is_array() && value.array().is_some_and(|items| items.len() == 3) {
        value.error("three numbers look like Euler angles, which are ambiguous (about which axes, in which order?); write the rotation as { axis = [x, y, z], angle = degrees } (for example { axis = [0, 1, 0], angle = 30 } tilts 30° about y), or several applied in turn as [{ axis = [0, 0, 1], angle = 45 }, { axis = [1, 0, 0], angle = 30 }], or a quaternion [w, x, y, z]");
        return None;
    }
    let [w, x, y, z] = value.numbers::<4>()?;
    let q = nalgebra::Quaternion::new(w, x, y, z);
    let norm = q.norm();
    if (norm - 1.0).abs() > 1e-6 {
        value.error(format!(
            "the quaternion [w, x, y, z] has norm {norm:.6}; orientation quaternions must have unit length (or use {{ axis = [x, y, z], angle = degrees }})"
        ));
        return None;
    }
    Some(Quat::from_quaternion(q))
}
