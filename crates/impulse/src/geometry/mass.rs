//! Mass properties: Mirtich's volume integrals for polyhedra (thesis ch. 6) and the algebra of
//! combining, moving and diagonalising mass properties.
//!
//! The volume integrals are reduced, face by face, first to surface integrals by the divergence
//! theorem (eq. 6.3), then to integrals over the face's projection onto a coordinate plane
//! (Theorem 21, eq. 6.6), then to sums over the projected edges by Green's theorem (eq. 6.14).
//! The result is exact for any closed, consistently oriented polyhedron (convex or not, any
//! genus), linear in the number of faces.

use crate::math::{Mat3, Point, Pose, Quat, Vec3, principal_axes};

/// The ten volume integrals of Mirtich eq. 6.1, `T_f = ∫_V f dV`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VolumeIntegrals {
    /// ∫ 1 dV (the volume).
    pub t1: f64,
    /// ∫ x dV, ∫ y dV, ∫ z dV.
    pub t_x: f64,
    pub t_y: f64,
    pub t_z: f64,
    /// ∫ x² dV, ∫ y² dV, ∫ z² dV.
    pub t_xx: f64,
    pub t_yy: f64,
    pub t_zz: f64,
    /// ∫ xy dV, ∫ yz dV, ∫ zx dV.
    pub t_xy: f64,
    pub t_yz: f64,
    pub t_zx: f64,
}

/// Integrals over the projection Π of a face onto the α–β plane (Mirtich Fig. 6.6).
#[derive(Default)]
struct ProjectionIntegrals {
    p1: f64,
    pa: f64,
    pb: f64,
    paa: f64,
    pab: f64,
    pbb: f64,
    paaa: f64,
    paab: f64,
    pabb: f64,
    pbbb: f64,
}

impl VolumeIntegrals {
    /// Integrates over the solid bounded by `faces`, each a polygon of indices into `vertices`,
    /// wound counter-clockwise seen from outside (outward normal). Faces must be planar;
    /// degenerate faces (zero area) contribute nothing.
    ///
    /// The projection integrals carry fourth powers of the coordinates, so a solid far from the
    /// origin loses digits to cancellation. We therefore integrate about the centre of the
    /// vertices' bounding box and move the result back with [`VolumeIntegrals::translated`]
    /// (exact polynomial identities): same answer, several more correct digits.
    pub fn of_polyhedron<'a, I>(vertices: &[Point], faces: I) -> Self
    where
        I: IntoIterator<Item = &'a [u32]> + Clone,
    {
        let mut lo = Vec3::repeat(f64::INFINITY);
        let mut hi = Vec3::repeat(f64::NEG_INFINITY);
        for face in faces.clone() {
            for &i in face {
                lo = lo.inf(&vertices[i as usize].coords);
                hi = hi.sup(&vertices[i as usize].coords);
            }
        }
        if !(lo.iter().all(|c| c.is_finite()) && hi.iter().all(|c| c.is_finite())) {
            return Self::about(vertices, faces, &Vec3::zeros());
        }
        let centre = (lo + hi) / 2.0;
        Self::about(vertices, faces, &centre).translated(&centre)
    }

    /// The same integrals for the solid moved by `offset` (every point `x` goes to `x + offset`).
    pub fn translated(&self, offset: &Vec3) -> Self {
        let (cx, cy, cz) = (offset.x, offset.y, offset.z);
        Self {
            t1: self.t1,
            t_x: self.t_x + cx * self.t1,
            t_y: self.t_y + cy * self.t1,
            t_z: self.t_z + cz * self.t1,
            t_xx: self.t_xx + 2.0 * cx * self.t_x + cx * cx * self.t1,
            t_yy: self.t_yy + 2.0 * cy * self.t_y + cy * cy * self.t1,
            t_zz: self.t_zz + 2.0 * cz * self.t_z + cz * cz * self.t1,
            t_xy: self.t_xy + cx * self.t_y + cy * self.t_x + cx * cy * self.t1,
            t_yz: self.t_yz + cy * self.t_z + cz * self.t_y + cy * cz * self.t1,
            t_zx: self.t_zx + cz * self.t_x + cx * self.t_z + cz * cx * self.t1,
        }
    }

    /// Mirtich's algorithm (Figs. 6.4–6.6) in coordinates relative to `origin`.
    fn about<'a, I>(vertices: &[Point], faces: I, origin: &Vec3) -> Self
    where
        I: IntoIterator<Item = &'a [u32]>,
    {
        // Accumulators indexed by axis: linear (x,y,z), squares, and products (xy, yz, zx).
        let mut t1 = 0.0;
        let mut linear = [0.0; 3];
        let mut squares = [0.0; 3];
        let mut products = [0.0; 3];
        for face in faces {
            // Every accumulated term below is homogeneous of degree zero in the normal (e.g.
            // n_α F_α = (n_α / n_γ) π_α, and w = −n·p scales with n), so Newell's vector serves
            // unnormalised: no square root or division per face.
            let normal = newell_vector(vertices, face);
            if normal == Vec3::zeros() || !normal.iter().all(|c| c.is_finite()) {
                continue;
            }
            // (α, β, γ): the right-handed cyclic permutation of (x, y, z) maximising |n_γ|
            // (Mirtich Fig. 6.4).
            let gamma = normal.iamax();
            let alpha = (gamma + 1) % 3;
            let beta = (gamma + 2) % 3;
            let p = projection_integrals(vertices, face, alpha, beta, origin);
            let (na, nb, nc) = (normal[alpha], normal[beta], normal[gamma]);
            let w = -normal.dot(&(vertices[face[0] as usize].coords - origin));

            // Face integrals (Mirtich Fig. 6.5), k_i = n_γ^-i.
            let k1 = 1.0 / nc;
            let k2 = k1 * k1;
            let k3 = k2 * k1;
            let k4 = k3 * k1;
            let fa = k1 * p.pa;
            let fb = k1 * p.pb;
            let fc = -k2 * (na * p.pa + nb * p.pb + w * p.p1);
            let faa = k1 * p.paa;
            let fbb = k1 * p.pbb;
            let fcc = k3
                * (na * na * p.paa
                    + 2.0 * na * nb * p.pab
                    + nb * nb * p.pbb
                    + 2.0 * na * w * p.pa
                    + 2.0 * nb * w * p.pb
                    + w * w * p.p1);
            let faaa = k1 * p.paaa;
            let fbbb = k1 * p.pbbb;
            let fccc = -k4
                * (na * na * na * p.paaa
                    + 3.0 * na * na * nb * p.paab
                    + 3.0 * na * nb * nb * p.pabb
                    + nb * nb * nb * p.pbbb
                    + 3.0 * na * na * w * p.paa
                    + 6.0 * na * nb * w * p.pab
                    + 3.0 * nb * nb * w * p.pbb
                    + 3.0 * na * w * w * p.pa
                    + 3.0 * nb * w * w * p.pb
                    + w * w * w * p.p1);
            let faab = k1 * p.paab;
            let fbbc = -k2 * (na * p.pabb + nb * p.pbbb + w * p.pbb);
            let fcca = k3
                * (na * na * p.paaa
                    + 2.0 * na * nb * p.paab
                    + nb * nb * p.pabb
                    + 2.0 * na * w * p.paa
                    + 2.0 * nb * w * p.pab
                    + w * w * p.pa);

            // Volume integrals (Mirtich Fig. 6.4). T_1 uses the face integral of x, whichever
            // slot x occupies in (α, β, γ).
            t1 += if alpha == 0 {
                na * fa
            } else if beta == 0 {
                nb * fb
            } else {
                nc * fc
            };
            linear[alpha] += na * faa;
            linear[beta] += nb * fbb;
            linear[gamma] += nc * fcc;
            squares[alpha] += na * faaa;
            squares[beta] += nb * fbbb;
            squares[gamma] += nc * fccc;
            // Products are stored as (xy, yz, zx): the product of an axis with its cyclic
            // successor sits at the axis's index, so αβ → alpha, βγ → beta, γα → gamma.
            products[alpha] += na * faab;
            products[beta] += nb * fbbc;
            products[gamma] += nc * fcca;
        }
        Self {
            t1,
            t_x: linear[0] / 2.0,
            t_y: linear[1] / 2.0,
            t_z: linear[2] / 2.0,
            t_xx: squares[0] / 3.0,
            t_yy: squares[1] / 3.0,
            t_zz: squares[2] / 3.0,
            t_xy: products[0] / 2.0,
            t_yz: products[1] / 2.0,
            t_zx: products[2] / 2.0,
        }
    }

    /// The integrals under their conventional names, in the order T1, Tx, Ty, Tz, Tx², Ty², Tz²,
    /// Txy, Tyz, Tzx.
    pub fn named(&self) -> [(&'static str, f64); 10] {
        [
            ("T1", self.t1),
            ("Tx", self.t_x),
            ("Ty", self.t_y),
            ("Tz", self.t_z),
            ("Tx²", self.t_xx),
            ("Ty²", self.t_yy),
            ("Tz²", self.t_zz),
            ("Txy", self.t_xy),
            ("Tyz", self.t_yz),
            ("Tzx", self.t_zx),
        ]
    }

    /// Mass properties of the solid at uniform `density`.
    ///
    /// `m = ρ T1`, centre of mass `(Tx, Ty, Tz)/T1`, inertia about the origin from the second
    /// moments, then moved to the centre of mass by the transfer-of-axes theorem (Mirtich §6.1).
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        let mass = density * self.t1;
        let com = Point::new(self.t_x, self.t_y, self.t_z) / self.t1;
        let ixx = density * (self.t_yy + self.t_zz);
        let iyy = density * (self.t_zz + self.t_xx);
        let izz = density * (self.t_xx + self.t_yy);
        let ixy = density * self.t_xy;
        let iyz = density * self.t_yz;
        let izx = density * self.t_zx;
        let about_origin = Mat3::new(ixx, -ixy, -izx, -ixy, iyy, -iyz, -izx, -iyz, izz);
        MassProperties {
            mass,
            center_of_mass: com,
            inertia: about_origin - parallel_axis_term(mass, &com.coords),
            volume: self.t1,
        }
    }
}

/// Newell's vector of a polygon: normal to it (robustly, for any planar polygon) with length
/// twice its area.
fn newell_vector(vertices: &[Point], face: &[u32]) -> Vec3 {
    let mut normal = Vec3::zeros();
    let Some(&last) = face.last() else {
        return normal;
    };
    let mut a = vertices[last as usize];
    for &index in face {
        let b = vertices[index as usize];
        normal.x += (a.y - b.y) * (a.z + b.z);
        normal.y += (a.z - b.z) * (a.x + b.x);
        normal.z += (a.x - b.x) * (a.y + b.y);
        a = b;
    }
    normal
}

/// Newell's normal of a polygon, normalised; `None` if the polygon has zero area.
pub(crate) fn newell_normal(vertices: &[Point], face: &[u32]) -> Option<Vec3> {
    let normal = newell_vector(vertices, face);
    let length = normal.norm();
    (length > 0.0 && length.is_finite()).then(|| normal / length)
}

/// Integrals over the face's projection by Green's theorem (Mirtich Fig. 6.6, eq. 6.14).
fn projection_integrals(
    vertices: &[Point],
    face: &[u32],
    alpha: usize,
    beta: usize,
    origin: &Vec3,
) -> ProjectionIntegrals {
    let mut p = ProjectionIntegrals::default();
    let project = |index: u32| {
        let v = vertices[index as usize].coords - origin;
        (v[alpha], v[beta])
    };
    let Some(&last) = face.last() else {
        return p;
    };
    let (mut a0, mut b0) = project(last);
    for &index in face {
        let (a1, b1) = project(index);
        let da = a1 - a0;
        let db = b1 - b0;
        let a0_2 = a0 * a0;
        let a0_3 = a0_2 * a0;
        let a0_4 = a0_3 * a0;
        let b0_2 = b0 * b0;
        let b0_3 = b0_2 * b0;
        let b0_4 = b0_3 * b0;
        let a1_2 = a1 * a1;
        let a1_3 = a1_2 * a1;
        let b1_2 = b1 * b1;
        let b1_3 = b1_2 * b1;

        let c1 = a1 + a0;
        let ca = a1 * c1 + a0_2;
        let caa = a1 * ca + a0_3;
        let caaa = a1 * caa + a0_4;
        let cb = b1 * b1 + b1 * b0 + b0_2;
        let cbb = b1 * cb + b0_3;
        let cbbb = b1 * cbb + b0_4;
        let cab = 3.0 * a1_2 + 2.0 * a1 * a0 + a0_2;
        let kab = a1_2 + 2.0 * a1 * a0 + 3.0 * a0_2;
        let caab = a0 * cab + 4.0 * a1_3;
        let kaab = a1 * kab + 4.0 * a0_3;
        let cabb = 4.0 * b1_3 + 3.0 * b1_2 * b0 + 2.0 * b1 * b0_2 + b0_3;
        let kabb = b1_3 + 2.0 * b1_2 * b0 + 3.0 * b1 * b0_2 + 4.0 * b0_3;

        p.p1 += db * c1;
        p.pa += db * ca;
        p.paa += db * caa;
        p.paaa += db * caaa;
        p.pb += da * cb;
        p.pbb += da * cbb;
        p.pbbb += da * cbbb;
        p.pab += db * (b1 * cab + b0 * kab);
        p.paab += db * (b1 * caab + b0 * kaab);
        p.pabb += da * (a1 * cabb + a0 * kabb);
        (a0, b0) = (a1, b1);
    }
    p.p1 /= 2.0;
    p.pa /= 6.0;
    p.paa /= 12.0;
    p.paaa /= 20.0;
    p.pb /= -6.0;
    p.pbb /= -12.0;
    p.pbbb /= -20.0;
    p.pab /= 24.0;
    p.paab /= 60.0;
    p.pabb /= -60.0;
    p
}

/// `m (|d|² 𝟙 − d dᵀ)`: the inertia a point mass `m` at offset `d` adds about the origin.
fn parallel_axis_term(mass: f64, d: &Vec3) -> Mat3 {
    mass * (Mat3::identity() * d.norm_squared() - d * d.transpose())
}

/// Mass, centre of mass and inertia tensor of a solid, expressed in some model frame.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MassProperties {
    /// Total mass.
    pub mass: f64,
    /// Centre of mass, in model coordinates.
    pub center_of_mass: Point,
    /// Inertia tensor about the centre of mass, along the model axes.
    pub inertia: Mat3,
    /// Volume of the solid (zero for point masses).
    pub volume: f64,
}

impl MassProperties {
    /// Nothing: the identity of [`MassProperties::combine`].
    pub fn zero() -> Self {
        Self {
            mass: 0.0,
            center_of_mass: Point::origin(),
            inertia: Mat3::zeros(),
            volume: 0.0,
        }
    }

    /// A point mass at `position`.
    pub fn point_mass(mass: f64, position: Point) -> Self {
        Self {
            mass,
            center_of_mass: position,
            inertia: Mat3::zeros(),
            volume: 0.0,
        }
    }

    /// The same solid placed by `pose`: the centre moves, the tensor rotates (`R I Rᵀ`).
    pub fn transformed(&self, pose: &Pose) -> Self {
        let r = pose.rotation.to_rotation_matrix().into_inner();
        Self {
            mass: self.mass,
            center_of_mass: pose * self.center_of_mass,
            inertia: r * self.inertia * r.transpose(),
            volume: self.volume,
        }
    }

    /// The same solid with its density scaled so that its mass is `mass`.
    pub fn with_mass(&self, mass: f64) -> Self {
        let factor = mass / self.mass;
        Self {
            mass,
            inertia: self.inertia * factor,
            ..*self
        }
    }

    /// The union of disjoint parts, by the parallel-axis theorem.
    pub fn combine(parts: &[MassProperties]) -> Self {
        let mass: f64 = parts.iter().map(|p| p.mass).sum();
        let volume = parts.iter().map(|p| p.volume).sum();
        if mass <= 0.0 {
            return Self {
                volume,
                ..Self::zero()
            };
        }
        let com = parts.iter().fold(Vec3::zeros(), |acc, p| {
            acc + p.center_of_mass.coords * p.mass
        }) / mass;
        let inertia = parts.iter().fold(Mat3::zeros(), |acc, p| {
            acc + p.inertia + parallel_axis_term(p.mass, &(p.center_of_mass.coords - com))
        });
        Self {
            mass,
            center_of_mass: Point::from(com),
            inertia,
            volume,
        }
    }

    /// Inertia tensor about the model origin (rather than the centre of mass).
    pub fn inertia_about_origin(&self) -> Mat3 {
        self.inertia + parallel_axis_term(self.mass, &self.center_of_mass.coords)
    }

    /// Principal moments and the rotation whose columns are the principal axes (see
    /// [`principal_axes`]).
    pub fn principal(&self) -> (Vec3, Quat) {
        principal_axes(&self.inertia)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cube of side 20 centred at the origin, quads wound CCW from outside.
    fn cube() -> (Vec<Point>, Vec<Vec<u32>>) {
        let mesh = crate::geometry::tessellate::box_mesh(
            Point::new(-10.0, -10.0, -10.0),
            Point::new(10.0, 10.0, 10.0),
        );
        (mesh.vertices, mesh.faces)
    }

    fn integrals(v: &[Point], f: &[Vec<u32>]) -> VolumeIntegrals {
        VolumeIntegrals::of_polyhedron(v, f.iter().map(|f| f.as_slice()))
    }

    fn assert_rel(actual: f64, expected: f64, tolerance: f64, what: &str) {
        let error = if expected == 0.0 {
            actual.abs()
        } else {
            ((actual - expected) / expected).abs()
        };
        assert!(
            error <= tolerance,
            "{what}: {actual} vs {expected} (error {error:e})"
        );
    }

    #[test]
    fn table_6_1_cube() {
        // Mirtich Table 6.1: T1 = 8000, first moments and products 0, Tx² = 800000/3.
        let (v, f) = cube();
        let t = integrals(&v, &f);
        assert_rel(t.t1, 8000.0, 1e-12, "T1");
        for (name, value) in [("Tx", t.t_x), ("Ty", t.t_y), ("Tz", t.t_z)] {
            assert!(value.abs() < 1e-9, "{name} = {value}");
        }
        for value in [t.t_xx, t.t_yy, t.t_zz] {
            assert_rel(value, 800000.0 / 3.0, 1e-12, "T_aa");
        }
        for value in [t.t_xy, t.t_yz, t.t_zx] {
            assert!(value.abs() < 1e-9);
        }
    }

    #[test]
    fn table_6_1_tetrahedron() {
        // Mirtich Table 6.1: hull of the origin, 5i, 4j, 3k.
        let v = vec![
            Point::origin(),
            Point::new(5.0, 0.0, 0.0),
            Point::new(0.0, 4.0, 0.0),
            Point::new(0.0, 0.0, 3.0),
        ];
        let f = vec![vec![0, 2, 1], vec![0, 1, 3], vec![0, 3, 2], vec![1, 2, 3]];
        let t = integrals(&v, &f);
        let expected = [10.0, 12.5, 10.0, 7.5, 25.0, 16.0, 9.0, 10.0, 6.0, 7.5];
        for ((name, value), expected) in t.named().iter().zip(expected) {
            assert_rel(*value, expected, 1e-12, name);
        }
        // Derived in the digest (V8): COM (1.25, 1, 0.75); inertia about the COM.
        let mp = t.mass_properties(1.0);
        assert!((mp.center_of_mass - Point::new(1.25, 1.0, 0.75)).norm() < 1e-14);
        let expected = Mat3::new(9.375, 2.5, 1.875, 2.5, 12.75, 1.5, 1.875, 1.5, 15.375);
        assert!((mp.inertia - expected).norm() < 1e-12, "{}", mp.inertia);
    }

    #[test]
    fn combine_two_halves_equals_the_whole() {
        // A 2×1×1 box as two unit cubes side by side, against the closed form m(b²+c²)/12.
        let unit = |dx: f64| {
            let (v, f) = cube();
            let v: Vec<Point> = v
                .iter()
                .map(|p| Point::new(p.x / 20.0 + dx, p.y / 20.0, p.z / 20.0))
                .collect();
            integrals(&v, &f).mass_properties(3.0)
        };
        let whole = MassProperties::combine(&[unit(-0.5), unit(0.5)]);
        assert_rel(whole.mass, 6.0, 1e-14, "mass");
        assert!(whole.center_of_mass.coords.norm() < 1e-15);
        let m = 6.0;
        let expected = Mat3::from_diagonal(&Vec3::new(
            m * (1.0 + 1.0) / 12.0,
            m * (4.0 + 1.0) / 12.0,
            m * (4.0 + 1.0) / 12.0,
        ));
        assert!((whole.inertia - expected).norm() < 1e-13);
    }
}
