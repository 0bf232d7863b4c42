//! Joints in reduced coordinates (Featherstone RBDA §4.4, Table 4.1).
//!
//! Each joint connects a *predecessor* frame fixed in the parent (or in the world) to a
//! *successor* frame fixed in the child. Its coordinates `q` (length `nq`) give the pose of the
//! successor frame in the predecessor frame, and its velocity coordinates `v` (length `nv`) give
//! the child's velocity relative to the parent through the motion subspace, `v_J = S(q) v`,
//! expressed in the successor frame. Axes are the frame's z axis.
//!
//! | joint | `q` | `v` | successor pose in predecessor |
//! |---|---|---|---|
//! | revolute | angle θ | θ̇ | `Rot_z(θ)` |
//! | prismatic | distance d | ḋ | `Trans_z(d)` |
//! | cylindrical | θ, d | θ̇, ḋ | `Trans_z(d) Rot_z(θ)` |
//! | helical (screw) | θ | θ̇ | `Trans_z(h θ) Rot_z(θ)`, pitch `h` (length per radian) |
//! | spherical | unit quaternion `[w, x, y, z]` | ω (successor frame) | `Rot(q)` |
//! | planar | x, y, θ | ẋ, ẏ, θ̇ | `Trans(x, y, 0) Rot_z(θ)` |
//! | fixed | — | — | identity |
//! | floating | position `[x, y, z]`, quaternion `[w, x, y, z]` | `[ω; v]` (successor frame) | `Trans(p) Rot(q)` |
//!
//! Quaternion coordinates have no singularity (no gimbal lock); their kinematics are
//! `q̇ = ½ q ⊗ (0, ω)` with ω in the successor frame (Mirtich App. A.4), and they are
//! renormalised after every integration step.

use std::fmt;

use nalgebra::{Quaternion, Unit};

use super::spatial::{SpatialVec, spatial};
use crate::math::{Pose, Quat, Translation3, Vec3};

/// Most velocity coordinates of one joint.
pub const MAX_JOINT_DOFS: usize = 6;

/// The kind of a joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// Rotation about the z axis.
    Revolute,
    /// Translation along the z axis.
    Prismatic,
    /// Independent rotation about and translation along the z axis.
    Cylindrical,
    /// A screw: rotation about z coupled with translation `pitch · θ` along z.
    Helical {
        /// Translation per radian of rotation (non-zero; a zero pitch is a revolute joint).
        pitch: f64,
    },
    /// Free rotation about the origin, in quaternion coordinates.
    Spherical,
    /// Translation in the xy plane and rotation about z.
    Planar,
    /// No motion: the child is welded to the parent.
    Fixed,
    /// Six degrees of freedom: a floating base (or a free child).
    Floating,
}

impl JointKind {
    /// Name used in scene files and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Revolute => "revolute",
            Self::Prismatic => "prismatic",
            Self::Cylindrical => "cylindrical",
            Self::Helical { .. } => "helical",
            Self::Spherical => "spherical",
            Self::Planar => "planar",
            Self::Fixed => "fixed",
            Self::Floating => "floating",
        }
    }

    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        match self {
            Self::Revolute | Self::Prismatic | Self::Helical { .. } => 1,
            Self::Cylindrical => 2,
            Self::Spherical => 4,
            Self::Planar => 3,
            Self::Fixed => 0,
            Self::Floating => 7,
        }
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        match self {
            Self::Revolute | Self::Prismatic | Self::Helical { .. } => 1,
            Self::Cylindrical => 2,
            Self::Spherical | Self::Planar => 3,
            Self::Fixed => 0,
            Self::Floating => 6,
        }
    }

    /// Whether velocity coordinate `k` is an angle rate (else a translation rate).
    pub fn is_angular_dof(&self, k: usize) -> bool {
        match self {
            Self::Revolute | Self::Helical { .. } | Self::Spherical => true,
            Self::Prismatic | Self::Fixed => false,
            Self::Cylindrical => k == 0,
            Self::Planar => k == 2,
            Self::Floating => k < 3,
        }
    }

    /// Whether position coordinate `k` is a plain scalar (an angle or a distance) that springs,
    /// limits and PD targets can act on; quaternion and floating coordinates are not.
    pub fn has_scalar_coordinates(&self) -> bool {
        !matches!(self, Self::Spherical | Self::Floating | Self::Fixed)
    }

    /// The zero configuration: identity pose.
    pub fn neutral(&self, q: &mut [f64]) {
        q.fill(0.0);
        match self {
            Self::Spherical => q[0] = 1.0,
            Self::Floating => q[3] = 1.0,
            _ => {}
        }
    }

    /// Pose of the successor frame in the predecessor frame at coordinates `q`.
    pub fn transform(&self, q: &[f64]) -> Pose {
        match *self {
            Self::Revolute => rotation_z(q[0]),
            Self::Prismatic => translation(Vec3::new(0.0, 0.0, q[0])),
            Self::Cylindrical => Pose::from_parts(
                Translation3::new(0.0, 0.0, q[1]),
                Quat::from_axis_angle(&Vec3::z_axis(), q[0]),
            ),
            Self::Helical { pitch } => Pose::from_parts(
                Translation3::new(0.0, 0.0, pitch * q[0]),
                Quat::from_axis_angle(&Vec3::z_axis(), q[0]),
            ),
            Self::Spherical => Pose::from_parts(Translation3::identity(), quaternion(&q[0..4])),
            Self::Planar => Pose::from_parts(
                Translation3::new(q[0], q[1], 0.0),
                Quat::from_axis_angle(&Vec3::z_axis(), q[2]),
            ),
            Self::Fixed => Pose::identity(),
            Self::Floating => {
                Pose::from_parts(Translation3::new(q[0], q[1], q[2]), quaternion(&q[3..7]))
            }
        }
    }

    /// The motion subspace `S(q)` in successor coordinates: writes its `nv` columns.
    pub fn motion_subspace(&self, q: &[f64], s: &mut [SpatialVec; MAX_JOINT_DOFS]) {
        let z = Vec3::z();
        let zero = Vec3::zeros();
        match *self {
            Self::Revolute => s[0] = spatial(&z, &zero),
            Self::Prismatic => s[0] = spatial(&zero, &z),
            Self::Cylindrical => {
                s[0] = spatial(&z, &zero);
                s[1] = spatial(&zero, &z);
            }
            Self::Helical { pitch } => s[0] = spatial(&z, &(z * pitch)),
            Self::Spherical => {
                for (k, column) in s.iter_mut().take(3).enumerate() {
                    *column = SpatialVec::zeros();
                    column[k] = 1.0;
                }
            }
            Self::Planar => {
                // ẋ and ẏ move the successor origin along the predecessor's x and y axes; in
                // successor coordinates that is Rot_z(θ)ᵀ e_x and Rot_z(θ)ᵀ e_y.
                let (sin, cos) = q[2].sin_cos();
                s[0] = spatial(&zero, &Vec3::new(cos, -sin, 0.0));
                s[1] = spatial(&zero, &Vec3::new(sin, cos, 0.0));
                s[2] = spatial(&z, &zero);
            }
            Self::Fixed => {}
            Self::Floating => {
                for (k, column) in s.iter_mut().enumerate() {
                    *column = SpatialVec::zeros();
                    column[k] = 1.0;
                }
            }
        }
    }

    /// `c_J = S̊ q̇`: the rate of change of `S`'s successor coordinates times the velocity
    /// (Featherstone RBDA eq. 4.30). Zero for every joint whose `S` is constant; for the planar
    /// joint `d/dt` of the columns above is `θ̇ (−sin θ, −cos θ, 0)` and `θ̇ (cos θ, −sin θ, 0)`.
    pub fn bias_acceleration(&self, q: &[f64], v: &[f64]) -> SpatialVec {
        match self {
            Self::Planar => {
                let (sin, cos) = q[2].sin_cos();
                let w = v[2];
                spatial(
                    &Vec3::zeros(),
                    &Vec3::new(
                        w * (-sin * v[0] + cos * v[1]),
                        w * (-cos * v[0] - sin * v[1]),
                        0.0,
                    ),
                )
            }
            _ => SpatialVec::zeros(),
        }
    }

    /// `q̇` from `q` and the velocity coordinates `v`.
    pub fn position_derivative(&self, q: &[f64], v: &[f64], q_dot: &mut [f64]) {
        match self {
            Self::Spherical => quaternion_rate(&q[0..4], &Vec3::new(v[0], v[1], v[2]), q_dot),
            Self::Floating => {
                // ṗ = R(q) v (v is the successor origin's velocity in successor coordinates).
                let r = quaternion(&q[3..7]);
                let p_dot = r * Vec3::new(v[3], v[4], v[5]);
                q_dot[0..3].copy_from_slice(p_dot.as_slice());
                quaternion_rate(&q[3..7], &Vec3::new(v[0], v[1], v[2]), &mut q_dot[3..7]);
            }
            _ => q_dot.copy_from_slice(v),
        }
    }

    /// Renormalises quaternion blocks; true if anything changed.
    pub fn normalize(&self, q: &mut [f64]) -> bool {
        match self {
            Self::Spherical => normalize_quaternion(&mut q[0..4]),
            Self::Floating => normalize_quaternion(&mut q[3..7]),
            _ => false,
        }
    }
}

impl fmt::Display for JointKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn rotation_z(angle: f64) -> Pose {
    Pose::from_parts(
        Translation3::identity(),
        Quat::from_axis_angle(&Vec3::z_axis(), angle),
    )
}

fn translation(t: Vec3) -> Pose {
    Pose::from_parts(Translation3::from(t), Quat::identity())
}

/// The unit quaternion stored `[w, x, y, z]` (normalised on the fly, so a state between two
/// renormalisations still gives a rotation).
pub fn quaternion(q: &[f64]) -> Quat {
    Unit::new_normalize(Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// `q̇ = ½ q ⊗ (0, ω)` with ω in the rotated (body) frame (Mirtich App. A.4).
fn quaternion_rate(q: &[f64], w: &Vec3, out: &mut [f64]) {
    let (qs, qx, qy, qz) = (q[0], q[1], q[2], q[3]);
    out[0] = 0.5 * (-qx * w.x - qy * w.y - qz * w.z);
    out[1] = 0.5 * (qs * w.x - qz * w.y + qy * w.z);
    out[2] = 0.5 * (qz * w.x + qs * w.y - qx * w.z);
    out[3] = 0.5 * (-qy * w.x + qx * w.y + qs * w.z);
}

fn normalize_quaternion(q: &mut [f64]) -> bool {
    let norm = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if norm > 0.0 && norm != 1.0 {
        q.iter_mut().for_each(|c| *c /= norm);
        true
    } else {
        false
    }
}

/// Writes a unit quaternion as `[w, x, y, z]`.
pub fn write_quaternion(rotation: &Quat, out: &mut [f64]) {
    let q = rotation.quaternion();
    out.copy_from_slice(&[q.w, q.i, q.j, q.k]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multibody::spatial::{Transform, angular, linear};

    const KINDS: [JointKind; 8] = [
        JointKind::Revolute,
        JointKind::Prismatic,
        JointKind::Cylindrical,
        JointKind::Helical { pitch: 0.3 },
        JointKind::Spherical,
        JointKind::Planar,
        JointKind::Fixed,
        JointKind::Floating,
    ];

    fn sample_state(kind: &JointKind) -> (Vec<f64>, Vec<f64>) {
        let mut q = vec![0.0; kind.nq()];
        kind.neutral(&mut q);
        let v: Vec<f64> = (0..kind.nv()).map(|k| 0.3 + 0.45 * k as f64).collect();
        // A generic configuration: take one Euler step of a made-up motion.
        let mut q_dot = vec![0.0; kind.nq()];
        kind.position_derivative(&q, &v, &mut q_dot);
        for (qi, d) in q.iter_mut().zip(&q_dot) {
            *qi += 1.7 * d;
        }
        kind.normalize(&mut q);
        (q, v)
    }

    /// Integrates `q` along constant `v` for time `h` with tiny Euler steps.
    fn flow(kind: &JointKind, q: &[f64], v: &[f64], h: f64) -> Vec<f64> {
        let n = 2000;
        let dt = h / n as f64;
        let mut q = q.to_vec();
        let mut q_dot = vec![0.0; kind.nq()];
        for _ in 0..n {
            // Midpoint rule for second-order accuracy.
            kind.position_derivative(&q, v, &mut q_dot);
            let mid: Vec<f64> = q
                .iter()
                .zip(&q_dot)
                .map(|(a, b)| a + 0.5 * dt * b)
                .collect();
            kind.position_derivative(&mid, v, &mut q_dot);
            for (qi, d) in q.iter_mut().zip(&q_dot) {
                *qi += dt * d;
            }
        }
        q
    }

    #[test]
    fn motion_subspace_is_the_velocity_of_the_transform() {
        // The successor frame's spatial velocity (successor coordinates) from finite
        // differences of the joint transform must equal S(q) v.
        for kind in KINDS {
            let (q, v) = sample_state(&kind);
            let mut s = [SpatialVec::zeros(); MAX_JOINT_DOFS];
            kind.motion_subspace(&q, &mut s);
            let v_j: SpatialVec = (0..kind.nv()).map(|k| s[k] * v[k]).sum();
            let h = 1e-5;
            let before = kind.transform(&flow(&kind, &q, &v, -h));
            let after = kind.transform(&flow(&kind, &q, &v, h));
            let now = kind.transform(&q);
            // Relative motion over the interval, in successor coordinates at `now`.
            let delta = now.inverse() * after;
            let delta_back = now.inverse() * before;
            let w = (delta.rotation.scaled_axis() - delta_back.rotation.scaled_axis()) / (2.0 * h);
            let p = (delta.translation.vector - delta_back.translation.vector) / (2.0 * h);
            assert!(
                (angular(&v_j) - w).norm() < 1e-7 && (linear(&v_j) - p).norm() < 1e-7,
                "{kind}: S v = {v_j:?}, finite differences ω = {w:?}, v = {p:?}"
            );
        }
    }

    #[test]
    fn bias_acceleration_is_the_rate_of_s_in_successor_coordinates() {
        for kind in KINDS {
            let (q, v) = sample_state(&kind);
            let h = 1e-6;
            let mut s_plus = [SpatialVec::zeros(); MAX_JOINT_DOFS];
            let mut s_minus = [SpatialVec::zeros(); MAX_JOINT_DOFS];
            kind.motion_subspace(&flow(&kind, &q, &v, h), &mut s_plus);
            kind.motion_subspace(&flow(&kind, &q, &v, -h), &mut s_minus);
            let expected: SpatialVec = (0..kind.nv())
                .map(|k| (s_plus[k] - s_minus[k]) * v[k] / (2.0 * h))
                .sum();
            let c = kind.bias_acceleration(&q, &v);
            assert!(
                (c - expected).norm() < 1e-7,
                "{kind}: {c:?} vs {expected:?}"
            );
        }
    }

    #[test]
    fn transform_of_neutral_is_identity() {
        for kind in KINDS {
            let mut q = vec![0.0; kind.nq()];
            kind.neutral(&mut q);
            let t = Transform::from_pose(&kind.transform(&q));
            assert_eq!(t, Transform::identity(), "{kind}");
        }
    }
}
