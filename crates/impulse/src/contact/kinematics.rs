//! Contact kinematics for constraint-based contact (Baraff ch. 6): at a point where two convex
//! parts touch, the normal distance `d`, its rate `ḋ` and its second derivative written as
//!
//! ```text
//! d̈ = J_a · (v̇_a, ω̇_a) + J_b · (v̇_b, ω̇_b) + κ
//! ```
//!
//! linear in the bodies' accelerations, with every velocity-product term in `κ`; and the same
//! for the slip velocity's components along two tangents (Baraff eqs. 6-32, 6-33). The contact
//! force LCP `a = A f + b` is built from these rows.
//!
//! # Method: support functions
//!
//! A convex part `K` (own frame) has the support function `h(m) = max_{x∈K} m·x`, positively
//! homogeneous of degree one; its gradient is the support point and its Hessian the radii of
//! curvature there (a sphere: `h = r|m|`, `∇²h = r (I − m̂m̂ᵀ)/|m|`). For parts at poses
//! `(o, R)` the gap between their supporting planes normal to a unit `n` (from b towards a) is
//!
//! ```text
//! g(n, t) = n·(o_a − o_b) − h_a(R_aᵀ(−n)) − h_b(R_bᵀ n),       d(t) = max_n g(n, t),
//! ```
//!
//! the signed distance of two convex sets. Where `h` is not smooth the maximiser is pinned: a
//! face pins `n` to its normal, an edge (or a capsule's or cylinder's straight side) keeps `n`
//! perpendicular to it. Each part's feature at the contact is therefore modelled by a smooth
//! local support function (linear for a vertex, an edge or a face, `m·c + r|m|` for a ball,
//! `|D m|` for an ellipsoid, `m·c + r|m_xy|` for a cylinder's rim) and up to two *kinks*:
//! body-fixed unit directions `e` with `n·e = 0` (one for an edge or a side, two for a face).
//! The contact normal solves the stationarity (KKT) conditions of the maximum
//!
//! ```text
//! F₁ = ∇ₙg − μ n − Σ λ_k e_k = 0,   F₂ = n·e_k = 0,   F₃ = (n·n − 1)/2 = 0,
//! ```
//!
//! with `∇ₙg = p_a° − p_b°` (the two support points), `μ = d` (Euler's relation) and `λ_k`
//! the offsets along the kinks that take the support points to the closest points. The
//! implicit function theorem gives `(ṅ, λ̇, μ̇) = −M⁻¹ ∂F/∂t` with the bordered matrix
//!
//! ```text
//! M = [ −W_a − W_b − μI   −E   −n ]      W = R ∇²h Rᵀ (world),  E = [e_1 e_2],
//!     [        Eᵀ          0    0 ]
//!     [        nᵀ          0    0 ]
//! ```
//!
//! and, since `ḋ = g_t − Σ λ_k n·ė_k` along the solution (envelope theorem),
//!
//! ```text
//! ḋ = n·(v_a(p_a) − v_b(p_b)),
//! d̈ = g_tt + ∂ₜ∇ₙg · ṅ − Σ_k (λ̇_k n·ė_k + λ_k ṅ·ė_k + λ_k n·ë_k),
//! ```
//!
//! with `ė = ω × e` for a kink of the body turning at `ω`. Only second derivatives of `h` enter
//! (no third), and `M` is never inverted where it is singular: a singular `M` at zero distance
//! is exactly a contact without a defined normal (vertex on vertex, vertex on an edge, parallel
//! edges, a vertex or an edge along a rim), reported as [`Degenerate::NoNormal`]. The terms
//! linear in the accelerations collect into the familiar Jacobian `J_a = (n, (p_a − c_a) × n)`,
//! `J_b = −(n, (p_b − c_b) × n)`; the rest is
//!
//! ```text
//! κ = n·(ω_a×(ω_a×(p_a−c_a)) − ω_b×(ω_b×(p_b−c_b))) − (ω_a×n)ᵀW_a(ω_a×n) − (ω_b×n)ᵀW_b(ω_b×n)
//!     + ∂ₜ∇ₙg · ṅ − Σ_k (λ̇_k n·ė_k + λ_k ṅ·ė_k),
//! ∂ₜ∇ₙg = v_a(p_a°) − v_b(p_b°) + W_a(ω_a×n) + W_b(ω_b×n).
//! ```
//!
//! Checks: for two balls this is `n·Δa + |Δv_⊥|²/|Δc|`; for a ball on a plane `κ = 0` (the
//! centripetal `r|ω_t|²` of the ball's lowest material point is cancelled by the contact point
//! moving over the ball, `W(ω × n)`); for a vertex on a face or two edges it is Baraff's
//! polyhedral `n·(p̈_a − p̈_b) + 2ṅ·(ṗ_a − ṗ_b)` (plus `−d|ṅ|²` away from contact). The
//! derivation is in `docs/sources.md`, "Contact kinematics (constraint-based contact)".
//!
//! The contact point moves over the surfaces at `ṗ_a = v_a(p_a) + W_a(ω_a×n − ṅ) − Σ_a λ̇_k e_k`
//! (and likewise for b), which gives the slip derivative of eq. 6-33 exactly.
//!
//! A face lying on a face, or an edge or a side lying on a face, touches along a region: pose
//! the region's corners (`collision::manifold`) instead, each a vertex on a face or two edges
//! crossing ([`Degenerate::Region`] otherwise).
//!
//! [`Degenerate::NoNormal`]: crate::contact::kinematics::Degenerate::NoNormal
//! [`Degenerate::Region`]: crate::contact::kinematics::Degenerate::Region

use nalgebra::{Matrix2, Matrix6, Vector6};

mod local;

pub(crate) use local::LATERAL_TOLERANCE;
use local::{Frame, Local, MAX_CURVATURE_RADIUS, MIN_REGULARITY, Tolerances, classify};

use crate::collision::manifold::manifold;
use crate::collision::{Closest, CollisionModel, Convex};
use crate::geometry::MIN_PROPORTION;
use crate::math::{Mat3, Point, Pose, Vec3, orthonormal_basis};

/// How a body moves at an instant, world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RigidMotion {
    /// Where its centre of mass is.
    pub(crate) center_of_mass: Point,
    /// Velocity of the centre of mass.
    pub(crate) velocity: Vec3,
    /// Angular velocity.
    pub(crate) angular_velocity: Vec3,
}

impl RigidMotion {
    /// A body that does not move, centre of mass at `center_of_mass` (a fixed body; any point
    /// will do, its Jacobian is multiplied by zero accelerations).
    pub(crate) fn at_rest(center_of_mass: Point) -> Self {
        Self {
            center_of_mass,
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }

    /// Velocity of the body's material point at `p`.
    pub(crate) fn velocity_at(&self, p: &Vec3) -> Vec3 {
        self.velocity + self.angular_velocity.cross(&(p - self.center_of_mass.coords))
    }

    /// Centripetal acceleration `ω × (ω × r)` of the material point at `p`.
    fn centripetal_at(&self, p: &Vec3) -> Vec3 {
        let w = &self.angular_velocity;
        w.cross(&w.cross(&(p - self.center_of_mass.coords)))
    }
}

/// A body's acceleration, world frame: of its centre of mass and angular.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Acceleration {
    pub(crate) linear: Vec3,
    pub(crate) angular: Vec3,
}

/// One side of a contact: a convex part placed in the world, moving with its body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSide<'a> {
    pub(crate) convex: &'a Convex,
    /// The part's frame in the world.
    pub(crate) pose: Pose,
    pub(crate) motion: RigidMotion,
}

impl<'a> ContactSide<'a> {
    /// Part `part` of a body whose model frame is at `model_pose`.
    pub(crate) fn of_part(
        model: &'a CollisionModel,
        model_pose: &Pose,
        part: usize,
        motion: RigidMotion,
    ) -> Self {
        let part = &model.parts[part];
        Self {
            convex: &part.convex,
            pose: model_pose * part.pose,
            motion,
        }
    }
}

/// A body's coefficients in a row: the row changes by `linear·v̇ + angular·ω̇`. It is also the
/// wrench (force, torque about the centre of mass) of a unit force along the row's direction at
/// the row's point, so `A = J M⁻¹ Jᵀ` for frictionless rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Jacobian {
    pub(crate) linear: Vec3,
    pub(crate) angular: Vec3,
}

impl Jacobian {
    /// `J` of a point `p` of a body with centre of mass `c` along `direction`: `(u, (p−c) × u)`.
    fn at(p: &Vec3, c: &Point, direction: &Vec3) -> Self {
        Self {
            linear: *direction,
            angular: (p - c.coords).cross(direction),
        }
    }

    fn negated(self) -> Self {
        Self {
            linear: -self.linear,
            angular: -self.angular,
        }
    }

    /// `J · acc`.
    pub(crate) fn dot(&self, acceleration: &Acceleration) -> f64 {
        self.linear.dot(&acceleration.linear) + self.angular.dot(&acceleration.angular)
    }
}

/// A quantity's time derivative, linear in the two bodies' accelerations:
/// `a · acc_a + b · acc_b + bias`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Row {
    pub(crate) a: Jacobian,
    pub(crate) b: Jacobian,
    /// The velocity-product terms (κ).
    pub(crate) bias: f64,
}

impl Row {
    /// The row's value at these accelerations.
    pub(crate) fn value(&self, acceleration_a: &Acceleration, acceleration_b: &Acceleration) -> f64 {
        self.a.dot(acceleration_a) + self.b.dot(acceleration_b) + self.bias
    }
}

/// What a part touches with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FeatureKind {
    /// A material point: a polyhedron's vertex, or a point of a cylinder's rim while its cap
    /// lies flat.
    Vertex,
    /// A polyhedron's edge (straight and sharp).
    Edge,
    /// A flat face: a polyhedron's face, a cylinder's cap, the half-space's plane.
    Face,
    /// A smooth, strictly convex surface: a sphere, an ellipsoid, a capsule's end.
    Curved,
    /// A cylinder's rim: curved along it, sharp across.
    Rim,
    /// The straight side of a capsule or a cylinder: curved round the axis, straight along it.
    Side,
}

/// Why a contact has no kinematics rows (a named outcome, never a division by zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Degenerate {
    /// The parts touch along a line or a face here (a face, an edge or a side lying on a
    /// face): pose the corners of the contact region instead.
    Region,
    /// No contact normal is defined (Baraff §6.3): vertex on vertex, a vertex on an edge,
    /// parallel edges, a vertex or an edge along a cylinder's rim, two rims touching along a
    /// common tangent. The bordered Hessian of the maximum is singular at zero distance.
    NoNormal,
    /// A smooth surface is flat (zero curvature) at the contact: its radius of curvature
    /// exceeds `10 / MIN_PROPORTION` times its size, beyond any shape the engine accepts. The
    /// contact point would race across it (Baraff §6.7's "zeroeth-order impact").
    ZeroCurvature,
    /// The features at the point have no maximum near the given normal, or one whose closest
    /// points lie away from the point (the normal given is not one of theirs, as a narrow
    /// phase's guess at a degenerate contact may be).
    Unsettled,
    /// A position, velocity or normal is not finite (or the normal is zero).
    NotFinite,
}

impl std::fmt::Display for Degenerate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Region => {
                "the parts touch along a line or a face here; pose the region's corners instead"
            }
            Self::NoNormal => {
                "no contact normal is defined (vertex on vertex or edge, parallel edges, a \
                 sharp feature along a rim)"
            }
            Self::ZeroCurvature => "a surface has zero curvature at the contact",
            Self::Unsettled => "the features at the point do not touch there along this normal",
            Self::NotFinite => "a position, velocity or normal is not finite",
        })
    }
}

/// The kinematics of one contact point: the normal row and the two slip rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ContactKinematics {
    /// What each part touches with.
    pub(crate) features: (FeatureKind, FeatureKind),
    /// Unit normal from b towards a (the settled maximiser, not the narrow phase's estimate).
    pub(crate) normal: Vec3,
    /// Tangents completing `(t₁, t₂, n)` to a right-handed frame (`math::orthonormal_basis`).
    pub(crate) tangents: [Vec3; 2],
    /// The closest (or deepest) points of the features, a's and b's: `p_a − p_b = d n`.
    pub(crate) points: (Point, Point),
    /// The contact point `p_c`, midway between them; friction acts there.
    pub(crate) point: Point,
    /// Signed distance `d` (negative: overlapping).
    pub(crate) distance: f64,
    /// `ḋ`.
    pub(crate) normal_speed: f64,
    /// `d̈`, a's Jacobian taken at `p_a` and b's at `p_b`.
    pub(crate) normal_row: Row,
    /// Slip velocity `s = v_a(p_c) − v_b(p_c)` (eq. 6-32) along the tangents.
    pub(crate) slip: [f64; 2],
    /// `t_i · ṡ` (eq. 6-33, with `ṗ_c` the contact point's own velocity over the surfaces),
    /// the tangents held fixed; Jacobians at `p_c`.
    pub(crate) slip_rows: [Row; 2],
    /// `ṅ`.
    pub(crate) normal_rate: Vec3,
    /// `ṗ_c`.
    pub(crate) point_rate: Vec3,
    /// Baraff's curvature Jacobian (eq. 6-36): `det(K_a + K_b)` of the two surfaces' curvature
    /// matrices in the tangent plane, the Gaussian curvature of a curved part against a face.
    /// `None` where a part is sharp there (a vertex, an edge, a rim or a side).
    pub(crate) relative_curvature: Option<f64>,
}

/// The kinematics of each corner of the contact region of the pair `closest` found (its
/// `parts`, normal and points; `collision::manifold` with `tolerance`), a's body moving with
/// `motion_a` and its model frame at `pose_a`, b's likewise.
#[allow(clippy::too_many_arguments)]
pub(crate) fn region_kinematics(
    model_a: &CollisionModel,
    pose_a: &Pose,
    motion_a: RigidMotion,
    model_b: &CollisionModel,
    pose_b: &Pose,
    motion_b: RigidMotion,
    closest: &Closest,
    tolerance: f64,
) -> Vec<Result<ContactKinematics, Degenerate>> {
    let a = ContactSide::of_part(model_a, pose_a, closest.parts.0, motion_a);
    let b = ContactSide::of_part(model_b, pose_b, closest.parts.1, motion_b);
    manifold(a.convex, &a.pose, b.convex, &b.pose, closest, tolerance)
        .iter()
        .map(|point| contact_kinematics(&a, &b, point, &closest.normal, tolerance))
        .collect()
}

/// The kinematics of the contact of parts `a` and `b` at `point` (world; on or between the
/// surfaces, e.g. a corner of the contact region), `normal` the narrow phase's unit normal from
/// b towards a. `tolerance` (a length, the manifold's) decides which points of a part touch:
/// those within it of the part's extreme plane along the normal, its support set. Whether the
/// point is on a vertex or an edge of that set (or at the end of a side, on a rim) is decided
/// across the normal to [`LATERAL_TOLERANCE`] of the parts' size (or `tolerance` if smaller):
/// manifold corners and closest points lie there to rounding, and a ball rolling on a face
/// close to its edge is still on the face.
pub(crate) fn contact_kinematics(
    a: &ContactSide,
    b: &ContactSide,
    point: &Point,
    normal: &Vec3,
    tolerance: f64,
) -> Result<ContactKinematics, Degenerate> {
    let finite = |v: &Vec3| v.iter().all(|c| c.is_finite());
    let finite_side = |s: &ContactSide| {
        finite(&s.pose.translation.vector)
            && s.pose.rotation.coords.iter().all(|c| c.is_finite())
            && finite(&s.motion.center_of_mass.coords)
            && finite(&s.motion.velocity)
            && finite(&s.motion.angular_velocity)
    };
    if !(finite_side(a) && finite_side(b) && finite(&point.coords) && tolerance.is_finite()) {
        return Err(Degenerate::NotFinite);
    }
    let Some(n0) = normal.try_normalize(0.0).filter(finite) else {
        return Err(Degenerate::NotFinite);
    };
    let size = |s: &ContactSide| Some(s.convex.bounding_sphere().1).filter(|r| r.is_finite());
    let (size_a, size_b) = (size(a), size(b));
    // The features' length scale: Hessians (lengths) are compared against it.
    let Some(length) = size_a.into_iter().chain(size_b).reduce(f64::max) else {
        return Err(Degenerate::Region); // two planes
    };
    let tolerance = tolerance.max(1e-12 * length);
    let tolerances = Tolerances {
        along: tolerance,
        across: tolerance.min(LATERAL_TOLERANCE * length),
    };

    // Which feature each part touches with (`toward`: the direction to the other part).
    let frame_a = Frame::of(a, -1.0);
    let frame_b = Frame::of(b, 1.0);
    let local_point = |s: &ContactSide| s.pose.inverse_transform_point(point).coords;
    let (ya, yb) = (local_point(a), local_point(b));
    let (ua, ub) = (frame_a.local(&n0), frame_b.local(&n0));
    let mut local_a = classify(a.convex, &ua, &ya, &tolerances, false);
    let mut local_b = classify(b.convex, &ub, &yb, &tolerances, false);
    // A vertex against a vertex or an edge has no normal, unless the other side lies flat
    // (a box on a box with flush sides): its face is then the plane the vertex rests on.
    let pointlike = |l: &Local| l.kind == FeatureKind::Vertex;
    let flat_sharp = |l: &Local| l.flat && matches!(l.kind, FeatureKind::Vertex | FeatureKind::Edge);
    if pointlike(&local_a) && flat_sharp(&local_b) {
        local_b = classify(b.convex, &ub, &yb, &tolerances, true);
    } else if pointlike(&local_b) && flat_sharp(&local_a) {
        local_a = classify(a.convex, &ua, &ya, &tolerances, true);
    }
    if local_a.kinks.len() + local_b.kinks.len() > 2 {
        return Err(Degenerate::Region);
    }
    let features = (local_a.kind, local_b.kind);
    let sides = [
        Placed::new(&frame_a, local_a, size_a),
        Placed::new(&frame_b, local_b, size_b),
    ];
    let kinks = Kinks::of(&sides);

    // A normal is defined iff the bordered matrix at zero distance is regular (scaled by the
    // features' length so that its entries are dimensionless): checked before settling the
    // maximiser from the narrow phase's normal (Newton on the KKT conditions) and after.
    let has_normal = |n: &Vec3| -> Result<(), Degenerate> {
        let (_, wa) = sides[0].support(n)?;
        let (_, wb) = sides[1].support(n)?;
        let regular = bordered(&(-(wa + wb) / length), 0.0, n, &kinks).singular_values();
        if regular.min() < MIN_REGULARITY {
            return Err(Degenerate::NoNormal);
        }
        Ok(())
    };
    has_normal(&n0)?;
    let reach = length
        + a.pose.translation.vector.norm()
        + b.pose.translation.vector.norm()
        + point.coords.norm();
    let state = settle(&sides, &kinks, &n0, reach)?;
    let n = state.n;
    has_normal(&n)?;
    let [(pa_ref, wa), (pb_ref, wb)] = [sides[0].support(&n)?, sides[1].support(&n)?];

    let (lambda, mu) = (state.lambda, state.mu);
    let (motion_a, motion_b) = (&a.motion, &b.motion);
    let (wa_vel, wb_vel) = (motion_a.angular_velocity, motion_b.angular_velocity);
    // The closest points: the support points moved along the kinks.
    let (pa, pb) = kinks.slide(&lambda, pa_ref, pb_ref);
    // ė = ω × e for a kink of the body turning at ω.
    let kink_rate = |e: &Vec3, side: usize| [wa_vel, wb_vel][side].cross(e);

    // ∂F/∂t at fixed (n, λ, μ), and (ṅ, λ̇, μ̇) = −M⁻¹ ∂F/∂t.
    let gradient_rate = motion_a.velocity_at(&pa_ref) - motion_b.velocity_at(&pb_ref)
        + wa * wa_vel.cross(&n)
        + wb * wb_vel.cross(&n);
    let mut rhs = Vector6::zeros();
    let mut f1 = gradient_rate;
    for (k, e, side) in kinks.iter() {
        f1 -= lambda[k] * kink_rate(&e, side);
        rhs[3 + k] = -n.dot(&kink_rate(&e, side));
    }
    rhs.fixed_rows_mut::<3>(0).copy_from(&-f1);
    let m = bordered(&-(wa + wb), mu, &n, &kinks);
    let Some(rates) = m.lu().solve(&rhs).filter(|r| r.iter().all(|c| c.is_finite())) else {
        return Err(Degenerate::NoNormal);
    };
    let n_rate: Vec3 = rates.fixed_rows::<3>(0).into_owned();
    let lambda_rate = [rates[3], rates[4]];

    // d̈ = J·acc + κ.
    let turning = |w: &Vec3, big_w: &Mat3| {
        let x = w.cross(&n);
        x.dot(&(big_w * x))
    };
    let mut bias = n.dot(&(motion_a.centripetal_at(&pa) - motion_b.centripetal_at(&pb)))
        - turning(&wa_vel, &wa)
        - turning(&wb_vel, &wb)
        + gradient_rate.dot(&n_rate);
    for (k, e, side) in kinks.iter() {
        let e_rate = kink_rate(&e, side);
        bias -= lambda_rate[k] * n.dot(&e_rate) + lambda[k] * n_rate.dot(&e_rate);
    }
    let normal_row = Row {
        a: Jacobian::at(&pa, &motion_a.center_of_mass, &n),
        b: Jacobian::at(&pb, &motion_b.center_of_mass, &n).negated(),
        bias,
    };
    let normal_speed = n.dot(&(motion_a.velocity_at(&pa) - motion_b.velocity_at(&pb)));

    // The contact point's velocity over the surfaces, and the slip rows (eqs. 6-32, 6-33).
    let (pa_rate, pb_rate) = kinks.slide(
        &lambda_rate,
        motion_a.velocity_at(&pa) + wa * (wa_vel.cross(&n) - n_rate),
        motion_b.velocity_at(&pb) + wb * (n_rate - wb_vel.cross(&n)),
    );
    let pc = (pa + pb) / 2.0;
    // The features found must touch where the contact was given: a normal that is not one of
    // theirs (a narrow phase's guess for a degenerate pair) can settle elsewhere.
    if (pc - point.coords).norm() > 2.0 * tolerance + mu.abs() + 1e-9 * reach {
        return Err(Degenerate::Unsettled);
    }
    let pc_rate = (pa_rate + pb_rate) / 2.0;
    let slip = motion_a.velocity_at(&pc) - motion_b.velocity_at(&pc);
    let slip_bias = wa_vel.cross(&(pc_rate - motion_a.velocity))
        - wb_vel.cross(&(pc_rate - motion_b.velocity));
    let (t1, t2) = orthonormal_basis(&n);
    let slip_row = |t: &Vec3| Row {
        a: Jacobian::at(&pc, &motion_a.center_of_mass, t),
        b: Jacobian::at(&pc, &motion_b.center_of_mass, t).negated(),
        bias: t.dot(&slip_bias),
    };

    let relative_curvature = match (
        sides[0].tangent_curvature(&wa, &t1, &t2),
        sides[1].tangent_curvature(&wb, &t1, &t2),
    ) {
        (Some(ka), Some(kb)) => Some((ka + kb).determinant()),
        _ => None,
    };

    let result = ContactKinematics {
        features,
        normal: n,
        tangents: [t1, t2],
        points: (Point::from(pa), Point::from(pb)),
        point: Point::from(pc),
        distance: mu,
        normal_speed,
        normal_row,
        slip: [t1.dot(&slip), t2.dot(&slip)],
        slip_rows: [slip_row(&t1), slip_row(&t2)],
        normal_rate: n_rate,
        point_rate: pc_rate,
        relative_curvature,
    };
    let rows_finite = [normal_row, result.slip_rows[0], result.slip_rows[1]]
        .iter()
        .all(|r| {
            finite(&r.a.linear)
                && finite(&r.a.angular)
                && finite(&r.b.linear)
                && finite(&r.b.angular)
                && r.bias.is_finite()
        });
    if !(rows_finite && normal_speed.is_finite() && finite(&pc_rate)) {
        return Err(Degenerate::NotFinite);
    }
    Ok(result)
}

/// A part's feature placed in the world, with its body's motion.
struct Placed {
    local: Local,
    origin: Vec3,
    rotation: Mat3,
    toward: f64,
    /// The part's size (`None` for a half-space).
    size: Option<f64>,
}

impl Placed {
    fn new(frame: &Frame, local: Local, size: Option<f64>) -> Self {
        Self {
            local,
            origin: frame.origin,
            rotation: frame.rotation,
            toward: frame.toward,
            size,
        }
    }

    /// The support point (world) along the direction towards the other part for the normal
    /// `n`, and the world Hessian `R ∇²h Rᵀ`; `ZeroCurvature` if a radius of curvature there
    /// is too large (or not finite) to trust.
    fn support(&self, n: &Vec3) -> Result<(Vec3, Mat3), Degenerate> {
        let m = self.rotation.transpose() * (self.toward * n);
        let (s, w) = self.local.smooth.derivatives(&m);
        let limit = MAX_CURVATURE_RADIUS * self.size.unwrap_or(f64::INFINITY);
        if !(w.trace() <= limit && s.iter().all(|c| c.is_finite())) {
            return Err(Degenerate::ZeroCurvature);
        }
        Ok((
            self.origin + self.rotation * s,
            self.rotation * w * self.rotation.transpose(),
        ))
    }

    /// The surface's curvature matrix in the tangent plane `(t1, t2)`: zero for a face, the
    /// inverse of the radii of curvature for a smooth strictly convex surface; `None` where it
    /// is sharp.
    fn tangent_curvature(&self, w: &Mat3, t1: &Vec3, t2: &Vec3) -> Option<Matrix2<f64>> {
        match self.local.kind {
            FeatureKind::Face => Some(Matrix2::zeros()),
            FeatureKind::Curved => {
                let radii = Matrix2::new(
                    t1.dot(&(w * t1)),
                    t1.dot(&(w * t2)),
                    t2.dot(&(w * t1)),
                    t2.dot(&(w * t2)),
                );
                radii.try_inverse()
            }
            _ => None,
        }
    }
}

/// The kinks of both parts, world frame, with the side (0: a, 1: b) that carries each.
struct Kinks {
    list: [(Vec3, usize); 2],
    count: usize,
}

impl Kinks {
    /// Each kink with its index and side.
    fn iter(&self) -> impl Iterator<Item = (usize, Vec3, usize)> + '_ {
        self.list[..self.count]
            .iter()
            .enumerate()
            .map(|(k, &(e, side))| (k, e, side))
    }

    /// Points (or velocities) of a and b moved along the kinks by `amounts`: a's by −λ e, b's
    /// by +λ e (from the support points to the closest points, `p_a − p_b = μ n`).
    fn slide(&self, amounts: &[f64; 2], mut a: Vec3, mut b: Vec3) -> (Vec3, Vec3) {
        for (k, e, side) in self.iter() {
            if side == 0 {
                a -= amounts[k] * e;
            } else {
                b += amounts[k] * e;
            }
        }
        (a, b)
    }

    fn of(sides: &[Placed; 2]) -> Self {
        let mut kinks = Self {
            list: [(Vec3::zeros(), 0); 2],
            count: 0,
        };
        for (s, side) in sides.iter().enumerate() {
            for e in &side.local.kinks {
                kinks.list[kinks.count] = (side.rotation * e, s);
                kinks.count += 1;
            }
        }
        kinks
    }
}

/// The bordered matrix of the KKT conditions in `(n, λ, μ)` (padded to 6 × 6 with ones on the
/// diagonal): `[[H − μI, −E, −n], [Eᵀ, 0, 0], [nᵀ, 0, 0]]`.
fn bordered(hessian: &Mat3, mu: f64, n: &Vec3, kinks: &Kinks) -> Matrix6<f64> {
    let mut m = Matrix6::identity();
    let c = kinks.count;
    m.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(hessian - Mat3::identity() * mu));
    for (k, e, _) in kinks.iter() {
        m.fixed_view_mut::<3, 1>(0, 3 + k).copy_from(&-e);
        m.fixed_view_mut::<1, 3>(3 + k, 0).copy_from(&e.transpose());
        m[(3 + k, 3 + k)] = 0.0;
    }
    m.fixed_view_mut::<3, 1>(0, 3 + c).copy_from(&-n);
    m.fixed_view_mut::<1, 3>(3 + c, 0).copy_from(&n.transpose());
    m[(3 + c, 3 + c)] = 0.0;
    m
}

/// The settled maximiser: unit normal, kink multipliers, distance.
struct Settled {
    n: Vec3,
    lambda: [f64; 2],
    mu: f64,
}

/// Newton's method on the KKT conditions from the narrow phase's normal `n0`; `reach` is the
/// scale of the coordinates (for the residual's rounding).
fn settle(sides: &[Placed; 2], kinks: &Kinks, n0: &Vec3, reach: f64) -> Result<Settled, Degenerate> {
    let c = kinks.count;
    let residual = |n: &Vec3, lambda: &[f64; 2], mu: f64| -> Result<(Vector6<f64>, Mat3), Degenerate> {
        let (pa, wa) = sides[0].support(n)?;
        let (pb, wb) = sides[1].support(n)?;
        let mut f1 = pa - pb - n * mu;
        let mut f = Vector6::zeros();
        for (k, e, _) in kinks.iter() {
            f1 -= lambda[k] * e;
            f[3 + k] = n.dot(&e);
        }
        f.fixed_rows_mut::<3>(0).copy_from(&f1);
        f[3 + c] = 0.5 * (n.norm_squared() - 1.0);
        Ok((f, -(wa + wb)))
    };
    let size = |f: &Vector6<f64>| {
        f.fixed_rows::<3>(0).norm() / reach + f.rows(3, 3).norm()
    };
    let mut n = *n0;
    let mut lambda = [0.0; 2];
    let mut mu = {
        let (pa, _) = sides[0].support(&n)?;
        let (pb, _) = sides[1].support(&n)?;
        n.dot(&(pa - pb))
    };
    let (mut f, mut hessian) = residual(&n, &lambda, mu)?;
    let mut error = size(&f);
    for _ in 0..MAX_NEWTON_STEPS {
        if error <= 4.0 * f64::EPSILON {
            break;
        }
        let m = bordered(&hessian, mu, &n, kinks);
        let Some(step) = m.lu().solve(&-f) else {
            return Err(Degenerate::NoNormal);
        };
        let next_n = n + step.fixed_rows::<3>(0);
        let next_lambda = [lambda[0] + step[3], lambda[1] + step[4]];
        let next_lambda = [
            if c > 0 { next_lambda[0] } else { 0.0 },
            if c > 1 { next_lambda[1] } else { 0.0 },
        ];
        let next_mu = mu + step[3 + c];
        let (next_f, next_hessian) = residual(&next_n, &next_lambda, next_mu)?;
        let next_error = size(&next_f);
        if next_error.is_nan() || next_error >= error {
            break;
        }
        (n, lambda, mu, f, hessian, error) =
            (next_n, next_lambda, next_mu, next_f, next_hessian, next_error);
    }
    if error.is_nan() || error > MAX_SETTLED_RESIDUAL {
        return Err(Degenerate::Unsettled);
    }
    let n = n.normalize();
    let (pa, _) = sides[0].support(&n)?;
    let (pb, _) = sides[1].support(&n)?;
    Ok(Settled {
        n,
        lambda,
        mu: n.dot(&(pa - pb)),
    })
}

/// Newton steps allowed to settle the maximiser (it starts within the narrow phase's
/// tolerance, and converges quadratically: two or three steps).
const MAX_NEWTON_STEPS: usize = 16;

/// Largest scaled KKT residual accepted as settled.
const MAX_SETTLED_RESIDUAL: f64 = 1e-9;

#[cfg(test)]
mod tests;
