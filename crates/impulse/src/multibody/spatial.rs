//! 6-D spatial algebra: motion and force vectors, Plücker transforms, spatial inertias.
//!
//! We use Featherstone's modern conventions (*Rigid Body Dynamics Algorithms*, 2008, ch. 2),
//! not the thesis's swapped ones:
//!
//! | quantity | here (Featherstone) | Mirtich ch. 4 |
//! |---|---|---|
//! | motion (velocity, acceleration) | `[ω; v]` | `[ω; v]` (same) |
//! | force | `[n; f]` (moment first) | `[f; τ]` (force first) |
//! | pairing | `fᵀ m` (ordinary dot product) | spatial transpose `f̂' m̂` (halves swapped) |
//! | transforms | separate motion `X` and force `X* = X⁻ᵀ` | one `X̂` for both (the swap makes them equal) |
//! | inertia | symmetric `I`, with `f = I a` | `Î = [[0, M], [I, 0]]` |
//!
//! Mirtich's `Î`, `Ẑ`, `ŝ'`, `X̂` map one for one: swapping the halves of every force vector turns
//! his equations into ours (his `Ẑ` is our bias force `p`, his `Î^A` our `I^A`, `ŝ'Î^Aŝ` our
//! `D = Sᵀ I^A S`). Every 6-vector is a `Vector6` stored `[angular; linear]`; whether it is a
//! motion or a force is said by its name.
//!
//! A motion vector `[ω; v]` in frame A gives the angular velocity and the velocity of the
//! body-fixed point at A's origin, both in A's coordinates. A force `[n; f]` gives the moment
//! about A's origin and the resultant force.

use nalgebra::{Matrix6, Vector6};

use crate::math::{Mat3, Pose, Vec3, cross_matrix};

/// A spatial vector `[angular; linear]`.
pub type SpatialVec = Vector6<f64>;
/// A 6×6 spatial matrix (inertias, transforms as matrices).
pub type SpatialMat = Matrix6<f64>;

/// The angular half of a spatial vector.
#[inline]
pub fn angular(x: &SpatialVec) -> Vec3 {
    Vec3::new(x[0], x[1], x[2])
}

/// The linear half of a spatial vector.
#[inline]
pub fn linear(x: &SpatialVec) -> Vec3 {
    Vec3::new(x[3], x[4], x[5])
}

/// Builds `[angular; linear]`.
#[inline]
pub fn spatial(angular: &Vec3, linear: &Vec3) -> SpatialVec {
    SpatialVec::new(
        angular.x, angular.y, angular.z, linear.x, linear.y, linear.z,
    )
}

/// Motion cross product `v × m` (Featherstone eq. 2.31: `crm(v) m`).
#[inline]
pub fn cross_motion(v: &SpatialVec, m: &SpatialVec) -> SpatialVec {
    let (w, vo) = (angular(v), linear(v));
    let (mw, mv) = (angular(m), linear(m));
    spatial(&w.cross(&mw), &(w.cross(&mv) + vo.cross(&mw)))
}

/// Force cross product `v ×* f` (Featherstone eq. 2.32: `crf(v) f = −crm(v)ᵀ f`).
#[inline]
pub fn cross_force(v: &SpatialVec, f: &SpatialVec) -> SpatialVec {
    let (w, vo) = (angular(v), linear(v));
    let (n, fl) = (angular(f), linear(f));
    spatial(&(w.cross(&n) + vo.cross(&fl)), &w.cross(&fl))
}

/// A Plücker coordinate transform `ᴮX_A` from frame A to frame B (Featherstone §2.8):
/// `ᴮX_A = [[E, 0], [−E r̃, E]]`, where `E` turns A coordinates into B coordinates and `r` is
/// B's origin relative to A's origin, in A coordinates.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    /// `E`: rotation from A coordinates to B coordinates.
    pub rotation: Mat3,
    /// `r`: position of B's origin in A coordinates.
    pub translation: Vec3,
}

impl Transform {
    /// The identity.
    pub fn identity() -> Self {
        Self {
            rotation: Mat3::identity(),
            translation: Vec3::zeros(),
        }
    }

    /// `ᴮX_A` from the pose of frame B in frame A (`p_A = R p_B + t`): `E = Rᵀ`, `r = t`.
    pub fn from_pose(pose_of_b_in_a: &Pose) -> Self {
        Self {
            rotation: pose_of_b_in_a
                .rotation
                .to_rotation_matrix()
                .into_inner()
                .transpose(),
            translation: pose_of_b_in_a.translation.vector,
        }
    }

    /// Transforms a motion vector from A to B: `ω' = E ω`, `v' = E (v − r × ω)`.
    #[inline]
    pub fn apply_motion(&self, m: &SpatialVec) -> SpatialVec {
        let w = angular(m);
        let v = linear(m);
        spatial(
            &(self.rotation * w),
            &(self.rotation * (v - self.translation.cross(&w))),
        )
    }

    /// Transforms a force vector from A to B (`X*`): `n' = E (n − r × f)`, `f' = E f`.
    #[inline]
    pub fn apply_force(&self, f: &SpatialVec) -> SpatialVec {
        let n = angular(f);
        let fl = linear(f);
        spatial(
            &(self.rotation * (n - self.translation.cross(&fl))),
            &(self.rotation * fl),
        )
    }

    /// Transforms a motion vector back from B to A (`X⁻¹ m`).
    #[inline]
    pub fn inverse_apply_motion(&self, m: &SpatialVec) -> SpatialVec {
        let w = self.rotation.tr_mul(&angular(m));
        let v = self.rotation.tr_mul(&linear(m));
        spatial(&w, &(v + self.translation.cross(&w)))
    }

    /// Transforms a force vector back from B to A (`Xᵀ f`, Featherstone's `X⁻¹*`).
    #[inline]
    pub fn inverse_apply_force(&self, f: &SpatialVec) -> SpatialVec {
        let fl = self.rotation.tr_mul(&linear(f));
        let n = self.rotation.tr_mul(&angular(f));
        spatial(&(n + self.translation.cross(&fl)), &fl)
    }

    /// `ᶜX_A = ᶜX_B ᴮX_A` with `self = ᶜX_B`.
    pub fn compose(&self, b_from_a: &Transform) -> Transform {
        Transform {
            rotation: self.rotation * b_from_a.rotation,
            translation: b_from_a.translation + b_from_a.rotation.tr_mul(&self.translation),
        }
    }

    /// The 6×6 motion-transform matrix.
    pub fn motion_matrix(&self) -> SpatialMat {
        let e = self.rotation;
        let mut x = SpatialMat::zeros();
        x.fixed_view_mut::<3, 3>(0, 0).copy_from(&e);
        x.fixed_view_mut::<3, 3>(3, 3).copy_from(&e);
        x.fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(-e * cross_matrix(&self.translation)));
        x
    }

    /// An inertia given in B coordinates, expressed in A coordinates: `Xᵀ I X`
    /// (Featherstone eq. 2.66).
    pub fn inertia_to_a(&self, inertia_b: &SpatialMat) -> SpatialMat {
        let x = self.motion_matrix();
        x.transpose() * inertia_b * x
    }
}

/// The spatial inertia of a rigid body whose centre of mass is at the frame origin and whose
/// inertia tensor about the centre is `inertia` (Featherstone eq. 2.63 with `c = 0`):
/// `[[I_c, 0], [0, m 𝟙]]`.
pub fn body_inertia(mass: f64, inertia: &Mat3) -> SpatialMat {
    let mut m = SpatialMat::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(inertia);
    m.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(Mat3::identity() * mass));
    m
}

/// `I v` for a body inertia with the centre of mass at the origin and a diagonal (principal)
/// inertia tensor: `[I_c ω; m v]`.
#[inline]
pub fn principal_inertia_times(mass: f64, moments: &Vec3, v: &SpatialVec) -> SpatialVec {
    spatial(&moments.component_mul(&angular(v)), &(linear(v) * mass))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, pose};

    fn sample() -> (Transform, SpatialVec, SpatialVec) {
        let p = pose(
            Vec3::new(0.3, -1.2, 2.0),
            Quat::from_euler_angles(0.4, -0.9, 1.7),
        );
        (
            Transform::from_pose(&p),
            SpatialVec::new(0.1, -0.7, 0.3, 1.5, 0.2, -0.4),
            SpatialVec::new(-0.2, 0.5, 0.9, 0.3, -1.1, 0.6),
        )
    }

    #[test]
    fn power_is_invariant_under_transforms() {
        // fᵀm is a scalar (power): the same in every frame (Featherstone eq. 2.35).
        let (x, m, f) = sample();
        let p_a = f.dot(&m);
        let p_b = x.apply_force(&f).dot(&x.apply_motion(&m));
        assert!((p_a - p_b).abs() < 1e-14);
    }

    #[test]
    fn transform_matches_the_matrix_and_inverts() {
        let (x, m, f) = sample();
        let mx = x.motion_matrix();
        assert!((mx * m - x.apply_motion(&m)).norm() < 1e-14);
        // The force transform is X⁻ᵀ.
        let force_matrix = mx.try_inverse().unwrap().transpose();
        assert!((force_matrix * f - x.apply_force(&f)).norm() < 1e-13);
        assert!((x.inverse_apply_motion(&x.apply_motion(&m)) - m).norm() < 1e-14);
        assert!((x.inverse_apply_force(&x.apply_force(&f)) - f).norm() < 1e-14);
    }

    #[test]
    fn composition_matches_matrix_product() {
        let (x1, m, _) = sample();
        let x2 = Transform::from_pose(&pose(
            Vec3::new(-0.5, 0.4, 0.1),
            Quat::from_euler_angles(-1.0, 0.2, 0.3),
        ));
        let c = x2.compose(&x1);
        assert!((c.apply_motion(&m) - x2.apply_motion(&x1.apply_motion(&m))).norm() < 1e-14);
    }

    #[test]
    fn point_velocity_from_a_moved_frame() {
        // A body spinning about z through the A origin: the B origin at (1, 0, 0) moves at
        // ω × r = (0, 1, 0) (rotation of B is identity so coordinates agree).
        let x = Transform::from_pose(&pose(Vec3::new(1.0, 0.0, 0.0), Quat::identity()));
        let v = x.apply_motion(&spatial(&Vec3::z(), &Vec3::zeros()));
        assert!((linear(&v) - Vec3::new(0.0, 1.0, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn cross_products_are_dual() {
        // crf(v) = −crm(v)ᵀ: fᵀ(v × m) = −(v ×* f)ᵀ m.
        let (_, m, f) = sample();
        let v = SpatialVec::new(0.7, 0.1, -0.3, -0.2, 0.8, 0.5);
        assert!((f.dot(&cross_motion(&v, &m)) + cross_force(&v, &f).dot(&m)).abs() < 1e-14);
    }

    #[test]
    fn inertia_transform_keeps_kinetic_energy() {
        let (x, m, _) = sample();
        let inertia = body_inertia(2.0, &Mat3::from_diagonal(&Vec3::new(0.3, 0.5, 0.7)));
        let in_a = x.inertia_to_a(&inertia);
        let mb = x.apply_motion(&m);
        assert!((m.dot(&(in_a * m)) - mb.dot(&(inertia * mb))).abs() < 1e-13);
    }
}
