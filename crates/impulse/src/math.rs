//! Vectors, rotations and small linear-algebra helpers (nalgebra, `f64` throughout).
//!
//! Conventions (Mirtich, Appendix A):
//! - a quaternion is `q = (cos θ/2, u sin θ/2)` and its rotation matrix maps body → world;
//! - `cross_matrix(a) * b == a × b` (App. A.2).

pub use nalgebra::{Isometry3, Matrix3, Point3, Translation3, UnitQuaternion, Vector3};

/// A 3-vector in `f64`.
pub type Vec3 = Vector3<f64>;
/// A point in `f64`.
pub type Point = Point3<f64>;
/// A 3×3 matrix in `f64`.
pub type Mat3 = Matrix3<f64>;
/// A unit quaternion (a rotation).
pub type Quat = UnitQuaternion<f64>;
/// A rigid transform: rotation then translation.
pub type Pose = Isometry3<f64>;

/// The cross-product matrix `ã` with `ã b = a × b` (Mirtich App. A.2).
pub fn cross_matrix(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Builds a pose from a position and an orientation.
pub fn pose(position: Vec3, orientation: Quat) -> Pose {
    Pose::from_parts(Translation3::from(position), orientation)
}

/// True when every component is finite.
pub fn is_finite_vec(v: &Vec3) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// Principal moments and axes of a symmetric inertia tensor.
///
/// Returns `(moments, rotation)` with `inertia = R diag(moments) Rᵀ`, where the columns of `R`
/// are the principal axes, `R` is a proper rotation (det +1), and the result is deterministic:
/// a tensor that is already diagonal keeps its own axes (no reordering), otherwise moments come
/// in ascending order and each axis has its largest-magnitude component positive (the third is
/// flipped if needed to keep the frame right-handed).
pub fn principal_axes(inertia: &Mat3) -> (Vec3, Quat) {
    if !inertia.iter().all(|c| c.is_finite()) {
        // No axes to find; the non-finite moments tell the caller (bodies refuse them first).
        return (inertia.diagonal(), Quat::identity());
    }
    let scale = inertia.diagonal().abs().max().max(f64::MIN_POSITIVE);
    let off_diagonal = inertia[(0, 1)]
        .abs()
        .max(inertia[(0, 2)].abs())
        .max(inertia[(1, 2)].abs());
    if off_diagonal <= 1e-14 * scale {
        return (inertia.diagonal(), Quat::identity());
    }
    let eigen = nalgebra::SymmetricEigen::new(*inertia);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
    let mut axes = Mat3::zeros();
    let mut moments = Vec3::zeros();
    for (column, &k) in order.iter().enumerate() {
        let mut axis: Vec3 = eigen.eigenvectors.column(k).into_owned();
        let largest = axis.iamax();
        if axis[largest] < 0.0 {
            axis = -axis;
        }
        axes.set_column(column, &axis);
        moments[column] = eigen.eigenvalues[k];
    }
    if axes.determinant() < 0.0 {
        let third: Vec3 = -axes.column(2).into_owned();
        axes.set_column(2, &third);
    }
    // The axes are orthonormal already, so this converges at once; the bound on its
    // iterations (nalgebra's default has none) keeps a rounding-damaged frame from looping.
    let rotation = nalgebra::Rotation3::from_matrix_eps(
        &axes,
        f64::EPSILON,
        100,
        nalgebra::Rotation3::identity(),
    );
    (moments, Quat::from_rotation_matrix(&rotation))
}

/// `x` as people read it in a message: plain for ordinary magnitudes, in exponent form for
/// very large or small ones (`1e-12`, not `0.000000000001`).
pub fn readable(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// An orthonormal pair `(t1, t2)` completing `n` (unit) to a right-handed frame `(t1, t2, n)`.
pub fn orthonormal_basis(n: &Vec3) -> (Vec3, Vec3) {
    // Duff et al., "Building an orthonormal basis, revisited" (2017): branch-free and continuous
    // except at n.z = -1.
    let sign = 1.0_f64.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    let t1 = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
    let t2 = Vec3::new(b, sign + n.y * n.y * a, -n.y);
    (t1, t2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_matrix_is_the_cross_product() {
        let a = Vec3::new(1.0, -2.0, 3.5);
        let b = Vec3::new(-0.5, 4.0, 2.0);
        assert!((cross_matrix(&a) * b - a.cross(&b)).norm() < 1e-15);
    }

    #[test]
    fn principal_axes_reconstruct_the_tensor() {
        let rotation = Quat::from_euler_angles(0.3, -0.7, 1.1);
        let r = rotation.to_rotation_matrix().into_inner();
        let diagonal = Mat3::from_diagonal(&Vec3::new(3.0, 1.0, 2.0));
        let inertia = r * diagonal * r.transpose();
        let (moments, axes) = principal_axes(&inertia);
        // Ascending order: 1, 2, 3.
        assert!((moments - Vec3::new(1.0, 2.0, 3.0)).norm() < 1e-12);
        let a = axes.to_rotation_matrix().into_inner();
        let rebuilt = a * Mat3::from_diagonal(&moments) * a.transpose();
        assert!((rebuilt - inertia).norm() < 1e-12);
        assert!((a.determinant() - 1.0).abs() < 1e-12);
    }

    /// Regression: an overflowed inertia (a 1e308 mass) made nalgebra's rotation fitting loop
    /// for ever on NaN axes, hanging `impulse check`.
    #[test]
    fn non_finite_tensor_returns_at_once() {
        let mut inertia = Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0));
        inertia[(0, 1)] = f64::INFINITY;
        inertia[(1, 0)] = f64::INFINITY;
        let (moments, axes) = principal_axes(&inertia);
        assert_eq!(moments, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(axes, Quat::identity());
        assert_eq!(readable(1e-12), "1e-12");
        assert_eq!(readable(30.0), "30");
        assert_eq!(readable(8e8), "8e8");
    }

    #[test]
    fn diagonal_tensor_keeps_its_axes() {
        let inertia = Mat3::from_diagonal(&Vec3::new(5.0, 1.0, 3.0));
        let (moments, axes) = principal_axes(&inertia);
        assert_eq!(moments, Vec3::new(5.0, 1.0, 3.0));
        assert_eq!(axes, Quat::identity());
    }

    #[test]
    fn orthonormal_basis_is_right_handed() {
        for n in [
            Vec3::z(),
            -Vec3::z(),
            Vec3::x(),
            Vec3::new(0.3, -0.4, 0.866).normalize(),
        ] {
            let (t1, t2) = orthonormal_basis(&n);
            assert!((t1.norm() - 1.0).abs() < 1e-14 && (t2.norm() - 1.0).abs() < 1e-14);
            assert!(t1.dot(&n).abs() < 1e-14 && t2.dot(&n).abs() < 1e-14);
            assert!((t1.cross(&t2) - n).norm() < 1e-14);
        }
    }
}
