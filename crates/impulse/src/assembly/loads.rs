//! Applied loads between bodies (issue 36's drivers and passive forces): a spring-damper between
//! two bodies' points, and a torque prescribed in time about an axis, acting on a body and, in
//! reaction, on another (a motor between them) or on the fixed world. Loads are applied forces:
//! their work is part of `Assembly::applied_work`, so `ΔE = W_applied + W_constraint` still
//! balances (a spring's stored energy shows as the work it did).

use crate::math::{Pose, Vec3};

use super::profile::Profile;
use super::rows::Side;
use super::{Assembly, AssemblyError};

/// A load between body `a` and body `b` (`None`: the fixed world).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadDesc {
    /// Name (for messages).
    pub name: String,
    /// Index of body A.
    pub a: usize,
    /// Index of body B, or `None` for the world.
    pub b: Option<usize>,
    /// What it is, in world coordinates at the initial pose.
    pub kind: LoadKind,
}

/// The kinds of load.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadKind {
    /// A linear spring-damper from A's point at `point_a` to B's at `point_b`: the force on A is
    /// `−(k (ℓ − ℓ₀) + c ℓ̇) n̂` along `n̂ = (p_a − p_b)/ℓ`, B takes the opposite (none while the
    /// points coincide, where no direction exists).
    Spring {
        point_a: Vec3,
        point_b: Vec3,
        /// k (force per length, ≥ 0).
        stiffness: f64,
        /// c (force per speed, ≥ 0).
        damping: f64,
        /// ℓ₀ (≥ 0).
        rest_length: f64,
    },
    /// A torque `τ(t)` (a polynomial, a harmonic or a table) about `axis` (unit after
    /// checking; it turns with B) on A, and `−τ(t)` on B.
    Torque { axis: Vec3, torque: Profile },
    /// Kalra's piston force (§6.3, kalra.md §4.3): A's point at `point` (the wrist pin) moves
    /// in B's cylinder from `bottom` to `top` (points on its axis); with `y = 1` at the top and
    /// 0 at the bottom, the force on A is `−force · y` along the axis (towards the bottom) while
    /// the piston moves down, and nothing while it moves up (B takes the reaction). It switches
    /// on where the piston's speed along the axis turns from up to down (the top: "firing of a
    /// spark plug") and off where it turns back up; each switch is located inside its step
    /// (`step::advance`), so the jump in the force costs no accuracy. At the start it fires if
    /// the piston moves down, or is at rest in the upper half of its stroke.
    Piston {
        point: Vec3,
        top: Vec3,
        bottom: Vec3,
        force: f64,
    },
}

/// A load fixed in its bodies' frames.
#[derive(Clone, Debug)]
pub(crate) struct Load {
    a: usize,
    b: Option<usize>,
    kind: Compiled,
}

#[derive(Clone, Debug)]
enum Compiled {
    Spring {
        p_a: Vec3,
        p_b: Vec3,
        stiffness: f64,
        damping: f64,
        rest_length: f64,
    },
    Torque {
        axis_b: Vec3,
        torque: Profile,
    },
    Piston {
        p_a: Vec3,
        top_b: Vec3,
        bottom_b: Vec3,
        force: f64,
        firing: bool,
    },
}

impl LoadDesc {
    /// Why the load cannot be used, if it cannot.
    fn check(&self, bodies: usize) -> Result<(), String> {
        if self.a >= bodies {
            return Err(format!("body A (index {}) does not exist", self.a));
        }
        if let Some(b) = self.b {
            if b >= bodies {
                return Err(format!("body B (index {b}) does not exist"));
            }
            if b == self.a {
                return Err("acts between a body and itself".into());
            }
        }
        let finite = |v: &Vec3| v.iter().all(|x| x.is_finite());
        match &self.kind {
            LoadKind::Spring {
                point_a,
                point_b,
                stiffness,
                damping,
                rest_length,
            } => {
                if !(finite(point_a) && finite(point_b)) {
                    return Err("`point_a` and `point_b` must be finite".into());
                }
                for (key, x) in [
                    ("stiffness", stiffness),
                    ("damping", damping),
                    ("rest_length", rest_length),
                ] {
                    if !(x.is_finite() && *x >= 0.0) {
                        return Err(format!(
                            "`{key}` must be finite and not negative, found {x}"
                        ));
                    }
                }
            }
            LoadKind::Torque { axis, torque } => {
                if !finite(axis) || axis.norm() <= 1e-12 {
                    return Err("`axis` must be a finite, non-zero direction".into());
                }
                torque.check("torque")?;
            }
            LoadKind::Piston {
                point,
                top,
                bottom,
                force,
            } => {
                if !(finite(point) && finite(top) && finite(bottom)) {
                    return Err("`point`, `top` and `bottom` must be finite".into());
                }
                if (top - bottom).norm() <= 1e-12 * (1.0 + top.norm()) {
                    return Err("`top` and `bottom` must differ (the stroke has no length)".into());
                }
                if !(force.is_finite() && *force >= 0.0) {
                    return Err(format!(
                        "`force` must be finite and not negative, found {force}"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A piston's stroke now: the point (world), the unit axis towards the top, the fraction `y` of
/// the stroke (1 at the top) and its rate `ẏ` relative to B (stroke lengths per time).
struct Stroke {
    point: Vec3,
    axis: Vec3,
    y: f64,
    rate: f64,
}

impl Load {
    /// The bodies the load acts between (`None`: the world).
    pub(crate) fn bodies(&self) -> (usize, Option<usize>) {
        (self.a, self.b)
    }

    fn stroke(&self, sides: &[Side], poses: &[Pose]) -> Option<Stroke> {
        let Compiled::Piston {
            p_a,
            top_b,
            bottom_b,
            ..
        } = &self.kind
        else {
            return None;
        };
        let world = Pose::identity();
        let pose_b = self.b.map(|b| &poses[b]).unwrap_or(&world);
        let side_b = self.b.map(|b| sides[b]).unwrap_or_else(Side::world);
        let point = poses[self.a].transform_point(&(*p_a).into()).coords;
        let top = pose_b.transform_point(&(*top_b).into()).coords;
        let bottom = pose_b.transform_point(&(*bottom_b).into()).coords;
        let length = (top - bottom).norm();
        let axis = (top - bottom) / length;
        let relative = sides[self.a].point_velocity(&point) - side_b.point_velocity(&point);
        Some(Stroke {
            point,
            axis,
            y: axis.dot(&(point - bottom)) / length,
            rate: axis.dot(&relative) / length,
        })
    }

    /// Whether this load switches (a piston).
    pub fn switches(&self) -> bool {
        matches!(self.kind, Compiled::Piston { .. })
    }

    /// A piston's speed along its stroke (positive up) now, if this is a piston.
    pub fn stroke_rate(&self, sides: &[Side], poses: &[Pose]) -> Option<f64> {
        self.stroke(sides, poses).map(|s| s.rate)
    }

    /// Whether a piston moving at `rate` along its stroke is in the wrong mode: firing while
    /// it moves up, or idle while it moves down.
    pub fn wants_switch(&self, rate: f64) -> bool {
        match self.kind {
            Compiled::Piston { firing, .. } => {
                if firing {
                    rate > 0.0
                } else {
                    rate < 0.0
                }
            }
            _ => false,
        }
    }

    /// Turns a piston's force on or off.
    pub fn switch(&mut self) {
        if let Compiled::Piston { firing, .. } = &mut self.kind {
            *firing = !*firing;
        }
    }

    /// Adds force `f` at A's point `at_a` to A, and `−f` at B's point `at_b` to B (unless B is
    /// the world), with their torques about the centres of mass.
    fn push(
        &self,
        applied: &mut [(Vec3, Vec3)],
        f: Vec3,
        (at_a, side_a): (&Vec3, &Side),
        (at_b, side_b): (&Vec3, &Side),
    ) {
        applied[self.a].0 += f;
        applied[self.a].1 += (at_a - side_a.center).cross(&f);
        if let Some(b) = self.b {
            applied[b].0 -= f;
            applied[b].1 -= (at_b - side_b.center).cross(&f);
        }
    }

    /// Adds this load's force and torque (about each centre of mass) to `applied`, for bodies
    /// with kinematics `sides` and poses `poses`, at time t.
    pub fn apply(&self, applied: &mut [(Vec3, Vec3)], sides: &[Side], poses: &[Pose], t: f64) {
        let world = Pose::identity();
        let pose_b = self.b.map(|b| &poses[b]).unwrap_or(&world);
        let side_b = self.b.map(|b| sides[b]).unwrap_or_else(Side::world);
        let side_a = &sides[self.a];
        match &self.kind {
            Compiled::Spring {
                p_a,
                p_b,
                stiffness,
                damping,
                rest_length,
            } => {
                let pa = poses[self.a].transform_point(&(*p_a).into()).coords;
                let pb = pose_b.transform_point(&(*p_b).into()).coords;
                let d = pa - pb;
                let length = d.norm();
                if length <= 1e-12 {
                    return;
                }
                let n = d / length;
                let rate = n.dot(&(side_a.point_velocity(&pa) - side_b.point_velocity(&pb)));
                let f = -n * (stiffness * (length - rest_length) + damping * rate);
                self.push(applied, f, (&pa, side_a), (&pb, &side_b));
            }
            Compiled::Torque { axis_b, torque } => {
                let (tau, _, _) = torque.at(t);
                let torque = pose_b.rotation * axis_b * tau;
                applied[self.a].1 += torque;
                if let Some(b) = self.b {
                    applied[b].1 -= torque;
                }
            }
            Compiled::Piston { force, firing, .. } => {
                if !firing {
                    return;
                }
                let Some(s) = self.stroke(sides, poses) else {
                    return;
                };
                // kalra.md §4.3: F = F_max (y − y_bot)/(y_top − y_bot), down the cylinder.
                let f = -s.axis * (force * s.y);
                self.push(applied, f, (&s.point, side_a), (&s.point, &side_b));
            }
        }
    }
}

impl Assembly {
    /// Adds a load (a spring-damper, or a torque prescribed in time), fixing its geometry in its
    /// bodies' frames at their current poses.
    pub fn add_load(&mut self, load: LoadDesc) -> Result<(), AssemblyError> {
        load.check(self.bodies.len())
            .map_err(|message| AssemblyError::Load {
                load: load.name.clone(),
                message,
            })?;
        let pose_a = self.bodies[load.a].pose();
        let pose_b = load
            .b
            .map(|b| self.bodies[b].pose())
            .unwrap_or_else(Pose::identity);
        let in_a = |p: Vec3| pose_a.inverse_transform_point(&p.into()).coords;
        let in_b = |p: Vec3| pose_b.inverse_transform_point(&p.into()).coords;
        let kind = match load.kind {
            LoadKind::Spring {
                point_a,
                point_b,
                stiffness,
                damping,
                rest_length,
            } => Compiled::Spring {
                p_a: in_a(point_a),
                p_b: in_b(point_b),
                stiffness,
                damping,
                rest_length,
            },
            LoadKind::Torque { axis, torque } => Compiled::Torque {
                axis_b: pose_b.inverse_transform_vector(&axis.normalize()),
                torque,
            },
            LoadKind::Piston {
                point,
                top,
                bottom,
                force,
            } => Compiled::Piston {
                p_a: in_a(point),
                top_b: in_b(top),
                bottom_b: in_b(bottom),
                force,
                firing: false,
            },
        };
        let mut compiled = Load {
            a: load.a,
            b: load.b,
            kind,
        };
        if compiled.switches() {
            let (sides, poses) = self.frames(&self.states());
            if let Some(s) = compiled.stroke(&sides, &poses)
                && (s.rate < 0.0 || (s.rate == 0.0 && s.y > 0.5))
            {
                compiled.switch();
            }
        }
        self.loads.push(compiled);
        Ok(())
    }
}
