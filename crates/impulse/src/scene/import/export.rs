//! Writing an imported model as a scene file (`impulse import FILE --to SCENE`): the same
//! descriptions the model builds, in the keys of `docs/scene-format.md`, so that loading the
//! scene gives the same multibody. Numbers are written in their shortest exact form; angles in
//! degrees, as scene files have them.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::{Model, ShapeSource};
use crate::dynamics::{BodyDesc, MassSpec, PlacedShape};
use crate::geometry::Shape;
use crate::math::{Pose, Quat, Vec3};
use crate::multibody::JointKind;

pub(super) fn write_scene(model: &Model, scene_path: &Path) -> String {
    let scene_dir = scene_path.parent().unwrap_or(Path::new(""));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The model `{}` imported from {} by `impulse import`.\n# Links carry the file's mass properties (`mass`, `center_of_mass`, `inertia`);\n# angles are in degrees. See docs/scene-format.md.\n",
        model.name,
        model.path.display()
    );
    let _ = writeln!(out, "[world]");
    let _ = writeln!(out, "name = {}", string(&model.name));
    let gravity = model.gravity.unwrap_or(Vec3::new(0.0, 0.0, -9.81));
    let _ = writeln!(out, "gravity = {}", vector(&gravity));
    for (body, sources) in model.fixed_bodies.iter().zip(&model.sources.fixed) {
        let _ = writeln!(out, "\n[[bodies]]");
        let _ = writeln!(out, "name = {}", string(&body.name));
        let _ = writeln!(out, "motion = \"fixed\"");
        write_pose(&mut out, &body.pose);
        write_shapes(&mut out, &body.shapes, sources, scene_dir);
        write_material(&mut out, body);
    }
    let Some(desc) = &model.multibody else {
        return out;
    };
    let _ = writeln!(out, "\n[[multibodies]]");
    let _ = writeln!(out, "name = {}", string(&desc.name));
    for (link, sources) in desc.links.iter().zip(&model.sources.links) {
        let _ = writeln!(out, "\n[[multibodies.links]]");
        let _ = writeln!(out, "name = {}", string(&link.name));
        if let MassSpec::Explicit {
            mass,
            center_of_mass,
            inertia,
        } = link.mass
        {
            let _ = writeln!(out, "mass = {}", number(mass));
            let _ = writeln!(out, "center_of_mass = {}", vector(&center_of_mass.coords));
            let i = inertia;
            let _ = writeln!(
                out,
                "inertia = [{}, {}, {}, {}, {}, {}]",
                number(i[(0, 0)]),
                number(i[(1, 1)]),
                number(i[(2, 2)]),
                number(i[(0, 1)]),
                number(i[(0, 2)]),
                number(i[(1, 2)])
            );
        }
        write_pose(&mut out, &link.pose);
        write_shapes(&mut out, &link.shapes, sources, scene_dir);
        write_material(&mut out, link);
    }
    for joint in &desc.joints {
        let _ = writeln!(out, "\n[[multibodies.joints]]");
        let _ = writeln!(out, "name = {}", string(&joint.name));
        let _ = writeln!(out, "type = \"{}\"", joint.kind.name());
        let _ = writeln!(out, "parent = {}", string(&joint.parent));
        let _ = writeln!(out, "child = {}", string(&joint.child));
        if joint.kind != JointKind::Floating {
            let _ = writeln!(out, "anchor = {}", vector(&joint.anchor));
        }
        let scalar = joint.kind.has_scalar_coordinates();
        if scalar {
            let _ = writeln!(out, "axis = {}", vector(&joint.axis));
        }
        if let Some(x) = joint.x_axis {
            let _ = writeln!(out, "x_axis = {}", vector(&x));
        }
        let p = &joint.passive;
        let first = |values: &[f64]| values.first().copied().unwrap_or(0.0);
        let angle = |k: usize, x: f64| {
            if joint.kind.is_angular_dof(k) {
                x.to_degrees()
            } else {
                x
            }
        };
        if first(&p.damping) != 0.0 {
            let _ = writeln!(out, "damping = {}", number(first(&p.damping)));
        }
        if first(&p.stiffness) != 0.0 {
            let _ = writeln!(out, "stiffness = {}", number(first(&p.stiffness)));
        }
        if scalar && first(&p.rest) != 0.0 {
            let _ = writeln!(out, "rest = {}", number(angle(0, first(&p.rest))));
        }
        if first(&p.armature) != 0.0 {
            let _ = writeln!(out, "armature = {}", number(first(&p.armature)));
        }
        if scalar
            && let Some(&(lo, hi)) = p.limits.first()
            && lo.is_finite()
            && hi.is_finite()
        {
            let _ = writeln!(
                out,
                "limits = [{}, {}]",
                number(angle(0, lo)),
                number(angle(0, hi))
            );
        }
    }
    for servo in &model.servos {
        let _ = writeln!(out, "\n[[multibodies.controllers]]");
        let _ = writeln!(out, "type = \"pd\"");
        let _ = writeln!(out, "joint = {}", string(&servo.joint));
        let _ = writeln!(out, "kp = {}", number(servo.kp));
        let _ = writeln!(out, "kv = {}", number(servo.kv));
        if servo.max_force.is_finite() {
            let _ = writeln!(out, "max_force = {}", number(servo.max_force));
        }
        let _ = writeln!(out, "rate = {}", number(servo.rate));
    }
    out
}

fn write_pose(out: &mut String, pose: &Pose) {
    let _ = writeln!(out, "position = {}", vector(&pose.translation.vector));
    if pose.rotation != Quat::identity() {
        let _ = writeln!(out, "orientation = {}", quaternion(&pose.rotation));
    }
}

fn write_material(out: &mut String, body: &BodyDesc) {
    let default = crate::dynamics::Material::default();
    if body.material.friction != default.friction {
        let _ = writeln!(out, "friction = {}", number(body.material.friction));
    }
    if body.material.restitution != default.restitution {
        let _ = writeln!(out, "restitution = {}", number(body.material.restitution));
    }
}

fn write_shapes(out: &mut String, shapes: &[PlacedShape], sources: &[ShapeSource], dir: &Path) {
    if shapes.is_empty() {
        return;
    }
    let _ = writeln!(out, "shapes = [");
    for (placed, source) in shapes.iter().zip(sources) {
        let body = match (&placed.shape, source) {
            (_, ShapeSource::Mesh { file, scale }) => format!(
                "type = \"convex\", mesh = {}, scale = {}",
                string(&relative(file, dir).to_string_lossy()),
                vector(scale)
            ),
            (Shape::Sphere { radius }, _) => {
                format!("type = \"sphere\", radius = {}", number(*radius))
            }
            (Shape::Box { half_extents }, _) => {
                format!("type = \"box\", size = {}", vector(&(half_extents * 2.0)))
            }
            (
                Shape::Cylinder {
                    radius,
                    half_height,
                },
                _,
            ) => format!(
                "type = \"cylinder\", radius = {}, height = {}",
                number(*radius),
                number(half_height * 2.0)
            ),
            (
                Shape::Capsule {
                    radius,
                    half_height,
                },
                _,
            ) => format!(
                "type = \"capsule\", radius = {}, length = {}",
                number(*radius),
                number(half_height * 2.0)
            ),
            (Shape::Ellipsoid { radii }, _) => {
                format!("type = \"ellipsoid\", radii = {}", vector(radii))
            }
            (Shape::HalfSpace, _) => "type = \"halfspace\"".to_string(),
            // Imported shapes are primitives or mesh hulls.
            (Shape::Convex(_) | Shape::Polyhedron(_), ShapeSource::Primitive) => continue,
        };
        let mut line = format!(
            "    {{ {body}, position = {}",
            vector(&placed.pose.translation.vector)
        );
        if placed.pose.rotation != Quat::identity() {
            let _ = write!(
                line,
                ", orientation = {}",
                quaternion(&placed.pose.rotation)
            );
        }
        let _ = writeln!(out, "{line} }},");
    }
    let _ = writeln!(out, "]");
}

/// `path` relative to `dir` where they share a root (else as it is).
fn relative(path: &Path, dir: &Path) -> PathBuf {
    let absolute = |p: &Path| -> PathBuf {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        // Lexically normalised (`..` and `.` removed), since the scene's folder may not exist.
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    };
    let (path, dir) = (absolute(path), absolute(dir));
    let common = path
        .components()
        .zip(dir.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in dir.components().skip(common) {
        out.push("..");
    }
    for c in path.components().skip(common) {
        out.push(c);
    }
    out
}

fn number(x: f64) -> String {
    // Shortest representation that reads back exactly; TOML takes it as a float or integer.
    let mut buffer = ryu::Buffer::new();
    let s = buffer.format(x);
    s.strip_suffix(".0").unwrap_or(s).to_string()
}

fn vector(v: &Vec3) -> String {
    format!("[{}, {}, {}]", number(v.x), number(v.y), number(v.z))
}

fn quaternion(q: &Quat) -> String {
    let q = q.quaternion();
    format!(
        "[{}, {}, {}, {}]",
        number(q.w),
        number(q.i),
        number(q.j),
        number(q.k)
    )
}

fn string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
