//! The local shape of a convex part at a point of its surface (a face, an edge, a vertex, or a
//! smooth patch with its curvature), which the contact kinematics settles the two sides on.

use super::*;

/// How near (relative to the parts' size) a point must lie across the normal to a vertex or an
/// edge, a side's end or a cap's rim, to be on it: the narrow phase's points are exact there to
/// rounding, GJK's against curved cores to ~1e-7 of the size.
pub(crate) const LATERAL_TOLERANCE: f64 = 1e-6;

/// The classification's tolerances: along the normal (which points touch) and across it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tolerances {
    pub(super) along: f64,
    pub(super) across: f64,
}

/// Least singular value of the scaled bordered matrix at zero distance below which a contact
/// has no normal: its rows would then grow as the inverse of it (κ ~ v²/(σ L)).
pub(super) const MIN_REGULARITY: f64 = 1e-9;

/// Largest radius of curvature a smooth feature may have at the contact, in units of its
/// size: ten times what the thinnest shape the engine accepts reaches (an ellipsoid
/// `MIN_PROPORTION` thin has `a²/c = a / MIN_PROPORTION` at its pole).
pub(super) const MAX_CURVATURE_RADIUS: f64 = 10.0 / MIN_PROPORTION;

/// A part's frame, and which way it faces the other part.
pub(super) struct Frame {
    pub(super) origin: Vec3,
    pub(super) rotation: Mat3,
    /// −1 for body a (its support is taken along −n), +1 for body b.
    pub(super) toward: f64,
}

impl Frame {
    pub(super) fn of(side: &ContactSide, toward: f64) -> Self {
        Self {
            origin: side.pose.translation.vector,
            rotation: side.pose.rotation.to_rotation_matrix().into_inner(),
            toward,
        }
    }

    /// The direction towards the other part, own frame.
    pub(super) fn local(&self, n: &Vec3) -> Vec3 {
        self.rotation.transpose() * (self.toward * n)
    }
}

/// A part's smooth support function near the contact, own frame: 1-homogeneous in `m`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Smooth {
    /// `h = m·p`: a vertex, or a point of a straight or flat feature (with kinks).
    Linear(Vec3),
    /// `h = m·c + r|m|`: a ball about `c` (a sphere, a capsule's end; its side with a kink).
    Ball { centre: Vec3, radius: f64 },
    /// `h = |D m|`, `D = diag(radii)`: an ellipsoid.
    Ellipsoid(Vec3),
    /// `h = m·c + r|m_xy|`: a circle of radius `r` about `c` in the plane `z = c_z` (a
    /// cylinder's rim; its side with a kink along z).
    Disc { centre: Vec3, radius: f64 },
}

impl Smooth {
    /// The support point `∇h(m)` and the Hessian `∇²h(m)` (radii of curvature), own frame.
    pub(super) fn derivatives(&self, m: &Vec3) -> (Vec3, Mat3) {
        match *self {
            Self::Linear(p) => (p, Mat3::zeros()),
            Self::Ball { centre, radius } => {
                let length = m.norm();
                let unit = m / length;
                (
                    centre + radius * unit,
                    (Mat3::identity() - unit * unit.transpose()) * (radius / length),
                )
            }
            Self::Ellipsoid(radii) => {
                let squares = radii.component_mul(&radii);
                let h = m.component_mul(&radii).norm();
                let s = squares.component_mul(m) / h;
                (s, (Mat3::from_diagonal(&squares) - s * s.transpose()) / h)
            }
            Self::Disc { centre, radius } => {
                let length = m.x.hypot(m.y);
                let unit = Vec3::new(m.x / length, m.y / length, 0.0);
                let plane = Mat3::from_diagonal(&Vec3::new(1.0, 1.0, 0.0));
                (
                    centre + radius * unit,
                    (plane - unit * unit.transpose()) * (radius / length),
                )
            }
        }
    }
}

/// A part's feature at the contact: its smooth support function, its kinks (own frame, unit),
/// and whether the part's support set there is two-dimensional (it lies flat).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Local {
    pub(super) kind: FeatureKind,
    pub(super) smooth: Smooth,
    pub(super) kinks: Vec<Vec3>,
    pub(super) flat: bool,
}

impl Local {
    pub(super) fn vertex(p: Vec3, flat: bool) -> Self {
        Self {
            kind: FeatureKind::Vertex,
            smooth: Smooth::Linear(p),
            kinks: Vec::new(),
            flat,
        }
    }

    /// The plane `normal · x = normal · point` (unit outward `normal`) at `point`.
    pub(super) fn face(point: Vec3, normal: &Vec3) -> Self {
        let (t1, t2) = orthonormal_basis(normal);
        Self {
            kind: FeatureKind::Face,
            smooth: Smooth::Linear(point),
            kinks: vec![t1, t2],
            flat: true,
        }
    }
}

/// The feature of `convex` that touches at `y` (own frame, between the surfaces), `u` the unit
/// direction towards the other part (own frame). With `prefer_face`, a part lying flat answers
/// with its face even at a vertex or an edge of it.
pub(super) fn classify(convex: &Convex, u: &Vec3, y: &Vec3, tolerances: &Tolerances, prefer_face: bool) -> Local {
    let Tolerances { along, across } = *tolerances;
    match convex {
        Convex::HalfSpace => Local::face(Vec3::new(y.x, y.y, 0.0), &Vec3::z()),
        Convex::Sphere { radius } => Local {
            kind: FeatureKind::Curved,
            smooth: Smooth::Ball {
                centre: Vec3::zeros(),
                radius: *radius,
            },
            kinks: Vec::new(),
            flat: false,
        },
        Convex::Ellipsoid { radii } => Local {
            kind: FeatureKind::Curved,
            smooth: Smooth::Ellipsoid(*radii),
            kinks: Vec::new(),
            flat: false,
        },
        Convex::Capsule {
            radius,
            half_height,
        } => {
            // The side faces the other part where the manifold takes its line (manifold.rs).
            let side = 2.0 * half_height * u.z.abs() <= along;
            if side && y.z.abs() < half_height - across {
                Local {
                    kind: FeatureKind::Side,
                    smooth: Smooth::Ball {
                        centre: Vec3::new(0.0, 0.0, y.z),
                        radius: *radius,
                    },
                    kinks: vec![Vec3::z()],
                    flat: false,
                }
            } else {
                let end = if side { y.z } else { u.z };
                Local {
                    kind: FeatureKind::Curved,
                    smooth: Smooth::Ball {
                        centre: Vec3::new(0.0, 0.0, half_height.copysign(end)),
                        radius: *radius,
                    },
                    kinks: Vec::new(),
                    flat: false,
                }
            }
        }
        Convex::Cylinder {
            radius,
            half_height,
        } => {
            let radial = u.x.hypot(u.y);
            let rim = |z: f64| Local {
                kind: FeatureKind::Rim,
                smooth: Smooth::Disc {
                    centre: Vec3::new(0.0, 0.0, half_height.copysign(z)),
                    radius: *radius,
                },
                kinks: Vec::new(),
                flat: false,
            };
            if 2.0 * radius * radial <= along {
                // The cap lies flat: its rim points are material points, its inside a face.
                let cap = half_height.copysign(u.z);
                let out = y.x.hypot(y.y);
                if out >= radius - across && !prefer_face {
                    let p = Vec3::new(radius * y.x / out, radius * y.y / out, cap);
                    Local::vertex(p, true)
                } else {
                    Local::face(Vec3::new(y.x, y.y, cap), &Vec3::z().scale(1.0f64.copysign(u.z)))
                }
            } else if 2.0 * half_height * u.z.abs() <= along {
                if y.z.abs() >= half_height - across {
                    rim(y.z)
                } else {
                    Local {
                        kind: FeatureKind::Side,
                        smooth: Smooth::Disc {
                            centre: Vec3::new(0.0, 0.0, y.z),
                            radius: *radius,
                        },
                        kinks: vec![Vec3::z()],
                        flat: false,
                    }
                }
            } else {
                rim(u.z)
            }
        }
        Convex::Polyhedron(poly) => {
            let vertices = poly.vertices();
            let top = vertices
                .iter()
                .map(|v| v.coords.dot(u))
                .fold(f64::NEG_INFINITY, f64::max);
            let support: Vec<u32> = (0..vertices.len() as u32)
                .filter(|&i| vertices[i as usize].coords.dot(u) >= top - along)
                .collect();
            let flat = support.len() >= 3;
            let face = || {
                let (_, face) = poly
                    .faces()
                    .iter()
                    .enumerate()
                    .max_by(|x, y| x.1.normal.dot(u).total_cmp(&y.1.normal.dot(u)))
                    .expect("a polyhedron has faces");
                let q = y - face.normal * (face.normal.dot(y) - face.offset);
                Local::face(q, &face.normal)
            };
            if flat && prefer_face {
                return face();
            }
            // Distance across u (in the contact plane).
            let apart = |v: &Vec3| {
                let d = y - v;
                (d - u * d.dot(u)).norm()
            };
            let nearest_vertex = support
                .iter()
                .map(|&i| (i, apart(&vertices[i as usize].coords)))
                .min_by(|x, y| x.1.total_cmp(&y.1));
            match nearest_vertex {
                Some((i, _)) if support.len() == 1 => {
                    return Local::vertex(vertices[i as usize].coords, false);
                }
                Some((i, gap)) if gap <= across => {
                    return Local::vertex(vertices[i as usize].coords, flat);
                }
                _ => {}
            }
            // Edges of the support set, the nearest across u.
            let in_support = |v: u32| support.contains(&v);
            let edge = poly
                .half_edges()
                .iter()
                .enumerate()
                .filter(|(h, half)| {
                    let head = poly.head(*h as u32);
                    half.origin < head && in_support(half.origin) && in_support(head)
                })
                .map(|(h, half)| {
                    let tail = vertices[half.origin as usize].coords;
                    let head = vertices[poly.head(h as u32) as usize].coords;
                    let flatten = |x: Vec3| x - u * x.dot(u);
                    let along = flatten(head - tail);
                    let t = (flatten(y - tail).dot(&along) / along.norm_squared()).clamp(0.0, 1.0);
                    let q = tail + (head - tail) * t;
                    (q, (head - tail).normalize(), apart(&q))
                })
                .min_by(|x, y| x.2.total_cmp(&y.2));
            match (edge, nearest_vertex) {
                (Some((q, e, gap)), _) if gap <= across || !flat => Local {
                    kind: FeatureKind::Edge,
                    smooth: Smooth::Linear(q),
                    kinks: vec![e],
                    flat,
                },
                (_, Some((i, _))) if !flat => Local::vertex(vertices[i as usize].coords, false),
                _ => face(),
            }
        }
    }
}

