//! MJCF geometry and actuators: `<geom>` elements as collision shapes and mass, and the
//! `<actuator>` section.

use roxmltree::Node;

use super::super::xml::elements;
use super::super::{Actuator, Geom, GeomShape, geom_mass, placed};
use super::{MAIN, Reader};
use crate::geometry::MassProperties;
use crate::math::{Quat, Vec3};

impl Reader<'_> {
    /// A geom and, if it has mass, its mass properties in the body frame.
    pub(super) fn geom(
        &mut self,
        node: Node<'_, '_>,
        class: &str,
    ) -> Option<(CollisionGeom, Option<MassProperties>)> {
        let el = self.element(node, class);
        let loc = el.loc();
        let type_name = el.text("type").unwrap_or_else(|| "sphere".into());
        let size = if el.has("size") {
            el.numbers("size", self.diag)?
        } else {
            Vec::new()
        };
        let fromto = if el.has("fromto") {
            Some(el.fixed::<6>("fromto", self.diag)?)
        } else {
            None
        };
        let mut pose = self.frame(&el)?;
        let need = |reader: &mut Self, n: usize, what: &str| -> Option<()> {
            if size.len() >= n && size[..n].iter().all(|&s| s > 0.0) {
                Some(())
            } else {
                reader.diag.error(
                    &el.loc_of("size"),
                    format!("a {type_name} geom needs size = {what} (positive)"),
                );
                None
            }
        };
        // `fromto` places capsules and cylinders between two points (half-length from them).
        let mut half_from_to = None;
        if let Some(ft) = fromto {
            if !matches!(type_name.as_str(), "capsule" | "cylinder") {
                self.diag.error(
                    &el.loc_of("fromto"),
                    format!("`fromto` on a {type_name} geom is not supported (capsules and cylinders only)"),
                );
                return None;
            }
            let a = Vec3::new(ft[0], ft[1], ft[2]);
            let b = Vec3::new(ft[3], ft[4], ft[5]);
            let Some(dir) = (b - a).try_normalize(1e-12) else {
                self.diag
                    .error(&el.loc_of("fromto"), "the two points coincide");
                return None;
            };
            let rotation = Quat::rotation_between(&Vec3::z(), &dir)
                .unwrap_or_else(|| Quat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::PI));
            pose = placed((a + b) / 2.0, rotation);
            half_from_to = Some((b - a).norm() / 2.0);
        }
        let shape = match type_name.as_str() {
            "sphere" => {
                need(self, 1, "[radius]")?;
                GeomShape::Sphere { radius: size[0] }
            }
            "capsule" | "cylinder" => {
                let half = match half_from_to {
                    Some(h) => {
                        need(self, 1, "[radius]")?;
                        h
                    }
                    None => {
                        need(self, 2, "[radius, half-length]")?;
                        size[1]
                    }
                };
                if type_name == "capsule" {
                    GeomShape::Capsule {
                        radius: size[0],
                        half_height: half,
                    }
                } else {
                    GeomShape::Cylinder {
                        radius: size[0],
                        half_height: half,
                    }
                }
            }
            "box" => {
                need(self, 3, "[x, y, z] half-sizes")?;
                GeomShape::Box {
                    half_extents: Vec3::new(size[0], size[1], size[2]),
                }
            }
            "ellipsoid" => {
                need(self, 3, "[x, y, z] radii")?;
                GeomShape::Ellipsoid {
                    radii: Vec3::new(size[0], size[1], size[2]),
                }
            }
            "plane" => GeomShape::Plane,
            "mesh" => {
                let Some(mesh) = el.text("mesh") else {
                    self.diag
                        .error(&loc, "a mesh geom needs `mesh` (a <mesh> asset's name)");
                    return None;
                };
                match self.meshes.get(&mesh) {
                    Some((file, scale)) => GeomShape::Mesh {
                        file: file.clone(),
                        scale: *scale,
                    },
                    None => {
                        // Not declared, or reported at its <mesh> already (missing, COLLADA).
                        self.diag.warning(
                            &el.loc_of("mesh"),
                            format!("no usable <mesh> asset named `{mesh}`: this geom is left out"),
                        );
                        return None;
                    }
                }
            }
            other => {
                self.diag.warning(
                    &el.loc_of("type"),
                    format!("geom type `{other}` is not supported: this geom is left out"),
                );
                return None;
            }
        };
        let geom = Geom { shape, pose, loc };
        // Mass: `mass` wins over `density` (default 1000, MuJoCo's).
        let density = if el.has("density") {
            el.number("density", self.diag)?
        } else {
            1000.0
        };
        let mass = if el.has("mass") {
            let m = el.number("mass", self.diag)?;
            let unit = geom_mass(&geom, 1.0)
                .map_err(|e| self.diag.error(&geom.loc, e))
                .ok()?;
            unit.filter(|_| m > 0.0).map(|u| u.with_mass(m))
        } else if density > 0.0 && geom.shape != GeomShape::Plane {
            geom_mass(&geom, density)
                .map_err(|e| self.diag.error(&geom.loc, e))
                .ok()?
        } else {
            None
        };
        // Geoms that collide with nothing (contype = conaffinity = 0: visual geoms) weigh but
        // do not collide.
        let collides = !(el.text("contype").as_deref() == Some("0")
            && el.text("conaffinity").as_deref() == Some("0"));
        Some((CollisionGeom { geom, collides }, mass))
    }

    pub(super) fn actuators(&mut self, node: Node<'_, '_>) -> Vec<Actuator> {
        let mut out = Vec::new();
        for element in elements(node) {
            let el = self.element(element, MAIN);
            let tag = element.tag_name().name();
            let loc = el.loc();
            let Some(joint) = el.text("joint") else {
                self.diag.warning(
                    &loc,
                    format!("<{tag}> does not act on a joint (tendon, site or body transmissions are not supported): left out"),
                );
                continue;
            };
            let gear = if el.has("gear") {
                el.numbers("gear", self.diag)
                    .and_then(|g| g.first().copied())
                    .unwrap_or(1.0)
            } else {
                1.0
            };
            let max_force = match el.fixed::<2>("forcerange", self.diag) {
                Some([lo, hi]) if el.text("forcelimited").as_deref() != Some("false") => {
                    lo.abs().max(hi.abs()) * gear.abs()
                }
                _ => f64::INFINITY,
            };
            // A servo's force kp (ctrl − gear q) − kv gear q̇ acts on the joint through the
            // gear: Q = gear · force, so the joint gains are kp gear² and kv gear².
            let g2 = gear * gear;
            let number = |reader: &mut Self, key: &str, default: f64| {
                if el.has(key) {
                    el.number(key, reader.diag).unwrap_or(default)
                } else {
                    default
                }
            };
            let (kp, kv) = match tag {
                "position" => (number(self, "kp", 1.0), number(self, "kv", 0.0)),
                "velocity" => (0.0, number(self, "kv", 1.0)),
                "motor" => {
                    self.diag.warning(
                        &loc,
                        format!("motor on joint `{joint}`: a torque input has no counterpart in a scene (its command would stay 0), so it is left out"),
                    );
                    continue;
                }
                other => {
                    self.diag.warning(
                        &loc,
                        format!("<{other}> actuators are not supported (position and velocity servos are): left out"),
                    );
                    continue;
                }
            };
            out.push(Actuator {
                joint,
                kp: kp * g2,
                kv: kv * g2,
                max_force,
                loc,
            });
        }
        out
    }
}

/// A geom and whether it takes part in collisions.
pub(super) struct CollisionGeom {
    geom: Geom,
    collides: bool,
}

impl CollisionGeom {
    pub(super) fn filter_collider(self) -> Option<Geom> {
        self.collides.then_some(self.geom)
    }
}
