//! Baraff's contact problems as LCPs, built from a generic description of rigid bodies and
//! point contacts at one instant (Baraff ch. 8–10, 14; §4.2, §9.4 for collisions).
//!
//! **Convention.** Contact `i` joins body A and body B (either may be fixed) at a point, with
//! unit normal `n̂` pointing from B towards A. A contact force `F` acts on A at the point and
//! `−F` on B. `s` is the relative velocity of the two bodies' material points at the contact
//! (A's minus B's).
//!
//! **Accelerations** (Baraff ch. 6, polyhedral form of the digest's §1.4 note, and eq. 6-33):
//! the relative acceleration the LCP constrains is
//!
//! ```text
//!   ṡ = p̈_A − p̈_B + ω_A × (ṗ_c − ṗ_A) − ω_B × (ṗ_c − ṗ_B)        (6-33)
//!   a_N = d̈ = n̂ · ṡ + ṅ · s
//! ```
//!
//! with `p̈ = v̇ + ω̇ × r + ω × (ω × r)` each body's material-point acceleration, `ṗ_c` the
//! velocity of the geometric contact point and `ṅ` the normal's rate. The caller supplies the
//! geometry through `ṗ_c` and `ṅ`; by default the contact is a vertex of A on a face of B
//! (`ṗ_c = ṗ_A`, `ṅ = ω_B × n̂`), for which `a_N = n̂ · (p̈_A − p̈_B) + 2 ṅ · s`. A curved body
//! rolling supplies its own: a sphere of radius R on a plane has `ṗ_c` = its centre's
//! velocity and `ṅ = 0`. The tangential components of `ṡ` are the slip accelerations
//! `a_x, a_y` of eq. 9-2.
//!
//! `ṡ` is linear in the contact forces: `ṡᵢ = ṡᵢ⁰ + Σⱼ Wᵢⱼ Fⱼ`, where the 3 × 3 blocks
//! `Wᵢⱼ = Σ_k σᵢₖ σⱼₖ (m_k⁻¹ 𝟙 − r̃ᵢₖ I_k⁻¹ r̃ⱼₖ)` run over the bodies k the two contacts share
//! (`σ = +1` for A, `−1` for B). Velocities change by the same blocks under impulses. The
//! free terms `ṡ⁰` hold gravity and external loads, the centripetal terms and the gyroscopic
//! term `I⁻¹(τ − ω × I ω)` (Baraff's eq. 3-1 omits it; digest erratum).
//!
//! Each contact has an orthonormal frame (n̂, t̂_x, t̂_y): t̂_x along the slip when the contact
//! slides (`|s_t| > sliding_speed`), otherwise along the tangential free acceleration (so a
//! box's friction bound lies along the direction friction must act, as Baraff advises for the
//! decoupled cone, §14.2.1), otherwise a fixed direction.
//!
//! **The problems** (every one an LCP `w = M z + q`, solved by [`super::lemke`]):
//!
//! | builder | unknowns per contact | thesis |
//! |---|---|---|
//! | [`ContactSystem::frictionless`] | `f_N` | ch. 8: `M` symmetric PSD |
//! | [`ContactSystem::sliding_friction`] | `f_N`, the force `f_N (n̂ − μ ŝ)` at sliding contacts | ch. 9–10: `M` not symmetric, possibly not PSD |
//! | [`ContactSystem::static_friction`] | sliding as above; at other contacts with μ > 0, `f_N`, `β_x⁺, β_x⁻, λ_x`, `β_y⁺, β_y⁻, λ_y` | §14.2.3's model posed as an LCP (below) |
//! | [`ContactSystem::crawl_friction`] | `f_N`, the force `f_N (n̂ − μ min(1, ‖v_t‖/ε) v̂_t)` | §14.2.2 |
//! | [`ContactSystem::collision`] | impulses, frictionless or as static friction | §4.2, §9.4 |
//!
//! **Static friction** (§14.2.3's model, solved by Lemke instead of a sign guess and a QP).
//! Baraff decouples the cone into the box `|f_x|, |f_y| ≤ μ f_N` (14-14) and asks that friction
//! below its bound leave no slip acceleration, and at its bound oppose it (14-15), (14-17).
//! Writing `f_x = β_x⁺ − β_x⁻` with `β ≥ 0` and a multiplier `λ_x ≥ 0` per axis, these are the
//! complementarity conditions
//!
//! ```text
//!   β_x⁺ ≥ 0 ⟂ a_x + λ_x ≥ 0,   β_x⁻ ≥ 0 ⟂ −a_x + λ_x ≥ 0,   λ_x ≥ 0 ⟂ μ f_N − β_x⁺ − β_x⁻ ≥ 0
//! ```
//!
//! (λ_x > 0 forces |f_x| = μ f_N with f_x a_x = −λ_x μ f_N < 0; λ_x = 0 forces a_x = 0), the
//! same for y, beside `f_N ≥ 0 ⟂ a_N ≥ 0`. The thesis notes its QP "cannot be cast as an
//! LCP"; split into non-negative parts it can, so one Lemke run gives forces or a ray as for
//! dynamic friction. In 2-D (one tangent) the box is exact (Thm. 4's conditions 14-2); in
//! 3-D friction may reach √2 μ f_N along a diagonal of the box (an anisotropy).

mod problem;

pub use problem::ContactLcp;
use problem::Unknowns;

use super::lemke::{Basis, LcpError, LemkeOptions, Outcome, solve, solve_regularized};
use crate::math::{Mat3, Point, Vec3, cross_matrix};
use nalgebra::{DMatrix, DVector};

/// A rigid body at one instant (world frame). A fixed body need not be listed: a contact's
/// side is `None` for it. A body with zero inverse mass and inertia does not move.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactBody {
    /// 1/m (0 for a fixed body).
    pub inverse_mass: f64,
    /// The world inverse inertia tensor about the centre of mass.
    pub inverse_inertia: Mat3,
    /// The centre of mass.
    pub center_of_mass: Point,
    /// Velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity.
    pub angular_velocity: Vec3,
    /// External force (gravity included), acting at the centre of mass.
    pub force: Vec3,
    /// External torque about the centre of mass.
    pub torque: Vec3,
}

impl ContactBody {
    /// Velocity of the material point at `p`.
    pub fn point_velocity(&self, p: &Point) -> Vec3 {
        self.velocity + self.angular_velocity.cross(&(p - self.center_of_mass))
    }

    /// Accelerations with no contact force: `a = F/m`, `α = I⁻¹(τ − ω × I ω)` (the gyroscopic
    /// term needs the inertia, the inverse of the inverse inertia; a body whose inverse inertia
    /// is singular has none).
    pub(crate) fn free_acceleration(&self) -> (Vec3, Vec3) {
        let w = self.angular_velocity;
        let gyroscopic = match self.inverse_inertia.try_inverse() {
            Some(inertia) => w.cross(&(inertia * w)),
            None => Vec3::zeros(),
        };
        (
            self.force * self.inverse_mass,
            self.inverse_inertia * (self.torque - gyroscopic),
        )
    }
}

/// A point contact between body `a` and body `b` (indices into the bodies; `None` is a fixed
/// body such as the ground).
#[derive(Clone, Debug, PartialEq)]
pub struct ContactPoint {
    /// Body A (the normal points towards it).
    pub a: Option<usize>,
    /// Body B.
    pub b: Option<usize>,
    /// The contact point.
    pub point: Point,
    /// Unit normal from B towards A.
    pub normal: Vec3,
    /// `ṅ`, the rate of the normal. `None`: the normal turns with body B, `ω_B × n̂` (a face of
    /// B).
    pub normal_rate: Option<Vec3>,
    /// `ṗ_c`, the velocity of the geometric contact point. `None`: the velocity of A's
    /// material point (a vertex of A).
    pub point_velocity: Option<Vec3>,
    /// Coefficient of friction μ ≥ 0.
    pub friction: f64,
    /// Coefficient of restitution e ∈ [0, 1] (collisions only).
    pub restitution: f64,
    /// Drift correction added to the free normal acceleration `a_N` (force problems only):
    /// with `a_N + bias ≥ 0` the solve holds the contact to an acceleration of `−bias`, which a
    /// caller sets from the gap and its rate to bring a drifting contact back to touching.
    pub bias: f64,
    /// Slip correction (force problems only): the free tangential acceleration gains
    /// `slip_damping · s_t`, so that a contact that sticks (`a_t = 0` in the solve) has its
    /// residual slip `s_t` decay at that rate instead of keeping it.
    pub slip_damping: f64,
    /// The contact's friction mode when the caller keeps it as state (Baraff's loop changes a
    /// contact from sliding to sticking and back at the end of a step, not within one, so the
    /// force law is smooth over each step): `Some(true)` slides (dynamic friction against the
    /// slip, or, with no slip at all, against the free tangential acceleration), `Some(false)`
    /// sticks. `None`: slides when its slip speed exceeds the system's sliding speed.
    pub sliding: Option<bool>,
    /// The first axis of a sticking contact's friction box, when the caller has one that turns
    /// smoothly with the bodies. `None`: along the free tangential acceleration.
    pub tangent: Option<Vec3>,
    /// The direction a sliding contact's dynamic friction opposes, when the caller holds it
    /// over an integration step (so that the force is smooth in the state even where the slip
    /// passes through zero). `None`: the slip at this instant.
    pub slip_direction: Option<Vec3>,
}

impl ContactPoint {
    /// A frictionless, perfectly inelastic vertex-of-A-on-face-of-B contact.
    pub fn new(a: Option<usize>, b: Option<usize>, point: Point, normal: Vec3) -> Self {
        ContactPoint {
            a,
            b,
            point,
            normal,
            normal_rate: None,
            point_velocity: None,
            friction: 0.0,
            restitution: 0.0,
            bias: 0.0,
            slip_damping: 0.0,
            sliding: None,
            tangent: None,
            slip_direction: None,
        }
    }

    /// The same contact with friction coefficient `mu`.
    pub fn with_friction(mut self, mu: f64) -> Self {
        self.friction = mu;
        self
    }

    /// The same contact with restitution coefficient `e`.
    pub fn with_restitution(mut self, e: f64) -> Self {
        self.restitution = e;
        self
    }
}

/// Which input item is bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// Body `i`.
    Body(usize),
    /// Contact `i`.
    Contact(usize),
    /// The sliding-speed threshold.
    SlidingSpeed,
}

/// Bad input to a contact problem: the item, the field and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactError {
    /// The item.
    pub item: Item,
    /// The field.
    pub field: &'static str,
    /// What was expected.
    pub expected: &'static str,
}

impl std::fmt::Display for ContactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let item = match self.item {
            Item::Body(i) => format!("body {i}"),
            Item::Contact(i) => format!("contact {i}"),
            Item::SlidingSpeed => "sliding speed".to_string(),
        };
        write!(f, "{item}: `{}` must be {}", self.field, self.expected)
    }
}

impl std::error::Error for ContactError {}

/// The contact problem at one instant, in each contact's frame (n̂, t̂_x, t̂_y): the coupling
/// blocks `W`, the free relative accelerations and the relative velocities. LCPs of every
/// friction model are built from it.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactSystem {
    pub(super) n: usize,
    /// Columns (n̂, t̂_x, t̂_y), world.
    pub(super) frames: Vec<Mat3>,
    /// `Rᵢᵀ Wᵢⱼ Rⱼ`, row-major over (i, j).
    blocks: Vec<Mat3>,
    /// Free accelerations (a_N with its ṅ·s term, a_x, a_y).
    pub(super) free: Vec<Vec3>,
    /// Relative velocities (v_N, v_x, v_y).
    velocity: Vec<Vec3>,
    pub(super) friction: Vec<f64>,
    restitution: Vec<f64>,
    pub(super) sliding: Vec<bool>,
}

fn finite_vec(v: &Vec3) -> bool {
    v.iter().all(|c| c.is_finite())
}

fn check_body(i: usize, b: &ContactBody) -> Result<(), ContactError> {
    let bad = |field, expected| ContactError {
        item: Item::Body(i),
        field,
        expected,
    };
    if !(b.inverse_mass.is_finite() && b.inverse_mass >= 0.0) {
        return Err(bad("inverse_mass", "finite and non-negative"));
    }
    if !b.inverse_inertia.iter().all(|c| c.is_finite()) {
        return Err(bad("inverse_inertia", "finite"));
    }
    let asymmetry = (b.inverse_inertia - b.inverse_inertia.transpose()).amax();
    if asymmetry > 1e-9 * b.inverse_inertia.amax() {
        return Err(bad("inverse_inertia", "symmetric"));
    }
    if b.inverse_inertia.symmetric_eigenvalues().min() < -1e-12 * b.inverse_inertia.amax() {
        return Err(bad("inverse_inertia", "positive semi-definite"));
    }
    for (field, v) in [
        ("center_of_mass", b.center_of_mass.coords),
        ("velocity", b.velocity),
        ("angular_velocity", b.angular_velocity),
        ("force", b.force),
        ("torque", b.torque),
    ] {
        if !finite_vec(&v) {
            return Err(bad(field, "finite"));
        }
    }
    Ok(())
}

fn check_contact(i: usize, c: &ContactPoint, bodies: usize) -> Result<(), ContactError> {
    let bad = |field, expected| ContactError {
        item: Item::Contact(i),
        field,
        expected,
    };
    for (field, side) in [("a", c.a), ("b", c.b)] {
        if side.is_some_and(|k| k >= bodies) {
            return Err(bad(field, "the index of a listed body"));
        }
    }
    if c.a.is_none() && c.b.is_none() {
        return Err(bad("a", "a body (both sides are fixed)"));
    }
    if c.a.is_some() && c.a == c.b {
        return Err(bad("b", "a different body from a"));
    }
    if !finite_vec(&c.point.coords) {
        return Err(bad("point", "finite"));
    }
    if !finite_vec(&c.normal) || (c.normal.norm() - 1.0).abs() > 1e-9 {
        return Err(bad("normal", "a unit vector"));
    }
    if c.normal_rate.is_some_and(|v| !finite_vec(&v)) {
        return Err(bad("normal_rate", "finite"));
    }
    if c.point_velocity.is_some_and(|v| !finite_vec(&v)) {
        return Err(bad("point_velocity", "finite"));
    }
    if !(c.friction.is_finite() && c.friction >= 0.0) {
        return Err(bad("friction", "finite and non-negative"));
    }
    if !(0.0..=1.0).contains(&c.restitution) {
        return Err(bad("restitution", "in [0, 1]"));
    }
    if !c.bias.is_finite() {
        return Err(bad("bias", "finite"));
    }
    if !(c.slip_damping.is_finite() && c.slip_damping >= 0.0) {
        return Err(bad("slip_damping", "finite and non-negative"));
    }
    Ok(())
}

/// A unit vector perpendicular to `n`, the same for the same `n`.
fn any_tangent(n: &Vec3) -> Vec3 {
    let axis = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
        Vec3::x()
    } else if n.y.abs() <= n.z.abs() {
        Vec3::y()
    } else {
        Vec3::z()
    };
    n.cross(&axis).normalize()
}

impl ContactSystem {
    /// Builds the contact problem of `contacts` between `bodies`. A contact slides when its
    /// tangential slip speed exceeds `sliding_speed` (≥ 0).
    pub fn new(
        bodies: &[ContactBody],
        contacts: &[ContactPoint],
        sliding_speed: f64,
    ) -> Result<Self, ContactError> {
        if !(sliding_speed.is_finite() && sliding_speed >= 0.0) {
            return Err(ContactError {
                item: Item::SlidingSpeed,
                field: "sliding_speed",
                expected: "finite and non-negative",
            });
        }
        for (i, b) in bodies.iter().enumerate() {
            check_body(i, b)?;
        }
        for (i, c) in contacts.iter().enumerate() {
            check_contact(i, c, bodies.len())?;
        }
        let n = contacts.len();
        let free_motion: Vec<(Vec3, Vec3)> =
            bodies.iter().map(ContactBody::free_acceleration).collect();
        // Per contact, world: slip s and free ṡ⁰.
        let mut frames = Vec::with_capacity(n);
        let mut free = Vec::with_capacity(n);
        let mut velocity = Vec::with_capacity(n);
        let mut sliding = Vec::with_capacity(n);
        for c in contacts {
            let material = |side: Option<usize>| {
                side.map_or(Vec3::zeros(), |k| bodies[k].point_velocity(&c.point))
            };
            let (pa, pb) = (material(c.a), material(c.b));
            let s = pa - pb;
            let pc = c.point_velocity.unwrap_or(pa);
            let mut s_dot = Vec3::zeros();
            for (side, sign, p_material) in [(c.a, 1.0, pa), (c.b, -1.0, pb)] {
                let Some(k) = side else { continue };
                let body = &bodies[k];
                let (a0, alpha0) = free_motion[k];
                let r = c.point - body.center_of_mass;
                let w = body.angular_velocity;
                let p_ddot = a0 + alpha0.cross(&r) + w.cross(&w.cross(&r));
                s_dot += sign * (p_ddot + w.cross(&(pc - p_material)));
            }
            let n_dot = c.normal_rate.unwrap_or_else(|| {
                c.b.map_or(Vec3::zeros(), |k| {
                    bodies[k].angular_velocity.cross(&c.normal)
                })
            });
            let normal = c.normal;
            let slip = s - normal * normal.dot(&s);
            let free_tangential = s_dot - normal * normal.dot(&s_dot);
            let slides = c.sliding.unwrap_or(slip.norm() > sliding_speed);
            let given = c
                .tangent
                .map(|t| t - normal * normal.dot(&t))
                .filter(|t| t.norm() > 1e-6);
            let held_slip = c
                .slip_direction
                .map(|t| t - normal * normal.dot(&t))
                .filter(|t| t.norm() > 1e-6);
            let tx = if let (true, Some(t)) = (slides, held_slip) {
                t.normalize()
            } else if slides && slip.norm() > 0.0 {
                slip.normalize()
            } else if let Some(t) = given {
                t.normalize()
            } else if free_tangential.norm() > 1e-12 * s_dot.norm() && free_tangential.norm() > 0.0
            {
                free_tangential.normalize()
            } else if slip.norm() > 0.0 {
                slip.normalize()
            } else {
                any_tangent(&normal)
            };
            let ty = normal.cross(&tx);
            let frame = Mat3::from_columns(&[normal, tx, ty]);
            let a_n = normal.dot(&s_dot) + n_dot.dot(&s) + c.bias;
            let damped = s_dot + slip * c.slip_damping;
            free.push(Vec3::new(a_n, tx.dot(&damped), ty.dot(&damped)));
            velocity.push(frame.transpose() * s);
            frames.push(frame);
            sliding.push(slides);
        }
        // Coupling blocks W_ij over shared bodies, in the contacts' frames.
        let mut blocks = vec![Mat3::zeros(); n * n];
        let sides = |c: &ContactPoint| [(c.a, 1.0), (c.b, -1.0)];
        for (i, ci) in contacts.iter().enumerate() {
            for (j, cj) in contacts.iter().enumerate().skip(i) {
                let mut w = Mat3::zeros();
                for (side_i, sign_i) in sides(ci) {
                    for (side_j, sign_j) in sides(cj) {
                        let (Some(k), Some(l)) = (side_i, side_j) else {
                            continue;
                        };
                        if k != l {
                            continue;
                        }
                        let body = &bodies[k];
                        let ri = cross_matrix(&(ci.point - body.center_of_mass));
                        let rj = cross_matrix(&(cj.point - body.center_of_mass));
                        w += (Mat3::identity() * body.inverse_mass
                            - ri * body.inverse_inertia * rj)
                            * (sign_i * sign_j);
                    }
                }
                let block = frames[i].transpose() * w * frames[j];
                blocks[i * n + j] = block;
                blocks[j * n + i] = block.transpose();
            }
        }
        Ok(ContactSystem {
            n,
            frames,
            blocks,
            free,
            velocity,
            friction: contacts.iter().map(|c| c.friction).collect(),
            restitution: contacts.iter().map(|c| c.restitution).collect(),
            sliding,
        })
    }

    /// A system given directly in contact frames (world frames all identity: columns n̂ = x,
    /// t̂_x = y, t̂_y = z): blocks `W` (row-major, n × n, symmetric as a whole), free
    /// accelerations and velocities (N, x, y), friction coefficients and sliding flags.
    #[cfg(test)]
    pub(crate) fn from_parts(
        blocks: Vec<Mat3>,
        free: Vec<Vec3>,
        velocity: Vec<Vec3>,
        friction: Vec<f64>,
        sliding: Vec<bool>,
    ) -> Self {
        let n = free.len();
        ContactSystem {
            n,
            frames: vec![Mat3::identity(); n],
            blocks,
            free,
            velocity,
            friction,
            restitution: vec![0.0; n],
            sliding,
        }
    }

    /// The number of contacts.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no contacts.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Contact `i`'s frame: columns (n̂, t̂_x, t̂_y), world.
    pub fn frame(&self, i: usize) -> Mat3 {
        self.frames[i]
    }

    /// Whether contact `i` slides (its slip speed exceeds the sliding speed).
    pub fn is_sliding(&self, i: usize) -> bool {
        self.sliding[i]
    }

    /// Contact `i`'s relative velocity `s` (world).
    pub fn relative_velocity(&self, i: usize) -> Vec3 {
        self.frames[i] * self.velocity[i]
    }

    pub(super) fn block(&self, i: usize, j: usize) -> &Mat3 {
        &self.blocks[i * self.n + j]
    }

    /// The relative accelerations at every contact under contact forces `forces` (on A,
    /// world), in each contact's frame: (a_N = d̈, a_x, a_y).
    pub fn accelerations(&self, forces: &[Vec3]) -> Vec<Vec3> {
        self.respond(forces, &self.free)
    }

    /// The relative velocities after impulses `impulses` (on A, world), in each contact's
    /// frame: (v_N, v_x, v_y).
    pub fn velocities_after(&self, impulses: &[Vec3]) -> Vec<Vec3> {
        self.respond(impulses, &self.velocity)
    }

    /// The relative velocities before any impulse, in each contact's frame: (v_N, v_x, v_y).
    pub fn velocities(&self) -> &[Vec3] {
        &self.velocity
    }

    /// `base_i + Σ_j W_ij R_jᵀ F_j`, frame coordinates.
    fn respond(&self, loads: &[Vec3], base: &[Vec3]) -> Vec<Vec3> {
        let local: Vec<Vec3> = (0..self.n)
            .map(|j| self.frames[j].transpose() * loads[j])
            .collect();
        (0..self.n)
            .map(|i| {
                let mut a = base[i];
                for (j, f) in local.iter().enumerate() {
                    a += self.block(i, j) * f;
                }
                a
            })
            .collect()
    }

    /// The change of kinetic energy when impulses `impulses` (on A, world) act:
    /// `Σ Pᵢ·sᵢ + ½ Σ Pᵢᵀ Wᵢⱼ Pⱼ` (equal to the bodies' change of ½ m v² + ½ ωᵀ I ω).
    pub fn kinetic_energy_change(&self, impulses: &[Vec3]) -> f64 {
        let local: Vec<Vec3> = (0..self.n)
            .map(|j| self.frames[j].transpose() * impulses[j])
            .collect();
        let mut change = 0.0;
        for i in 0..self.n {
            change += local[i].dot(&self.velocity[i]);
            for j in 0..self.n {
                change += 0.5 * local[i].dot(&(self.block(i, j) * local[j]));
            }
        }
        change
    }

    /// Ch. 8: frictionless normal forces, `a_N = A f_N + b` with `A` symmetric PSD.
    pub fn frictionless(&self) -> ContactLcp {
        let layout = (0..self.n)
            .map(|_| Unknowns::Normal {
                force: Vec3::x(),
                dynamic: false,
            })
            .collect();
        self.build(layout, Level::Force)
    }

    /// Ch. 9–10: sliding contacts carry dynamic friction `−μ f_N ŝ` folded into `A` (which is
    /// then not symmetric); contacts that do not slide are frictionless here.
    pub fn sliding_friction(&self) -> ContactLcp {
        let layout = (0..self.n)
            .map(|i| self.dynamic_or_normal(i, self.friction[i]))
            .collect();
        self.build(layout, Level::Force)
    }

    /// §14.2.3's static-friction model (box cone, opposing conditions) as an LCP: sliding
    /// contacts carry dynamic friction as in [`Self::sliding_friction`], the others with
    /// μ > 0 the box-friction unknowns of the module documentation.
    pub fn static_friction(&self) -> ContactLcp {
        let layout = (0..self.n)
            .map(|i| {
                if self.friction[i] > 0.0 && !self.sliding[i] {
                    Unknowns::Box
                } else {
                    self.dynamic_or_normal(i, self.friction[i])
                }
            })
            .collect();
        self.build(layout, Level::Force)
    }

    /// §14.2.2's dynamic-friction approximation: every contact slides, with friction
    /// `−μ f_N v_t / max(‖v_t‖, ε)` (14-11), (14-12): static friction as a crawl slower than
    /// `ε`. A contact with no slip at all has no friction.
    pub fn crawl_friction(&self, epsilon: f64) -> ContactLcp {
        let layout = (0..self.n)
            .map(|i| {
                let v = self.velocity[i];
                let speed = v.y.hypot(v.z);
                if self.friction[i] > 0.0 && speed > 0.0 {
                    let mu = self.friction[i] * (speed / epsilon).min(1.0);
                    Unknowns::Normal {
                        force: Vec3::new(1.0, -mu * v.y / speed, -mu * v.z / speed),
                        dynamic: true,
                    }
                } else {
                    Unknowns::Normal {
                        force: Vec3::x(),
                        dynamic: false,
                    }
                }
            })
            .collect();
        self.build(layout, Level::Force)
    }

    /// §4.2, §9.4: simultaneous collision impulses. Normal: `v_N⁺ + e v_N⁻ ≥ 0 ⟂ P_N ≥ 0` at
    /// approaching contacts (`v_N⁻ < 0`), `v_N⁺ ≥ 0 ⟂ P_N ≥ 0` at the others, with each
    /// contact's restitution times `restitution_scale`. With `friction`, each contact with
    /// μ > 0 takes the static-friction conditions in velocities (9-9), (9-10), its t̂_x along
    /// the slip before the collision (Baraff's fixed-slip-direction assumption).
    pub fn collision(&self, friction: bool, restitution_scale: f64) -> ContactLcp {
        let layout = (0..self.n)
            .map(|i| {
                if friction && self.friction[i] > 0.0 {
                    Unknowns::Box
                } else {
                    Unknowns::Normal {
                        force: Vec3::x(),
                        dynamic: false,
                    }
                }
            })
            .collect();
        self.build(layout, Level::Impulse(restitution_scale))
    }

    /// [`Self::static_friction`] with the box-friction unknowns only at the contacts in
    /// `boxed`; the other non-sliding contacts are frictionless here (their friction is the
    /// caller's: `super::mixed`).
    pub(super) fn partly_boxed(&self, boxed: &[bool]) -> ContactLcp {
        let layout = (0..self.n)
            .map(|i| {
                let mu = self.friction[i];
                if boxed[i] && mu > 0.0 && !self.sliding[i] {
                    Unknowns::Box
                } else {
                    self.dynamic_or_normal(i, mu)
                }
            })
            .collect();
        self.build(layout, Level::Force)
    }

    /// The same contacts with coupling `blocks` (row-major, contact frames) and free
    /// accelerations `free` in place of their own.
    pub(super) fn with_coupling(&self, blocks: Vec<Mat3>, free: Vec<Vec3>) -> ContactSystem {
        ContactSystem {
            blocks,
            free,
            ..self.clone()
        }
    }

    fn dynamic_or_normal(&self, i: usize, mu: f64) -> Unknowns {
        if self.sliding[i] && mu > 0.0 {
            // t̂_x is along the slip: friction on A is −μ f_N t̂_x.
            Unknowns::Normal {
                force: Vec3::new(1.0, -mu, 0.0),
                dynamic: true,
            }
        } else {
            Unknowns::Normal {
                force: Vec3::x(),
                dynamic: false,
            }
        }
    }

    fn build(&self, layout: Vec<Unknowns>, level: Level) -> ContactLcp {
        // Unknowns: (contact, force per unit in its frame); rows: (contact, measured
        // direction in its frame, constant term), plus the λ couplings.
        let mut first = Vec::with_capacity(self.n);
        let mut forces: Vec<(usize, Vec3)> = Vec::new();
        let mut rows: Vec<(usize, Vec3, f64)> = Vec::new();
        let mut couplings: Vec<(usize, usize, f64)> = Vec::new();
        for (i, unknowns) in layout.iter().enumerate() {
            let start = forces.len();
            first.push(start);
            let base = match level {
                Level::Force => self.free[i],
                Level::Impulse(scale) => {
                    let v = self.velocity[i];
                    let e = self.restitution[i] * scale;
                    Vec3::new(v.x + e * v.x.min(0.0), v.y, v.z)
                }
            };
            forces.push((i, Vec3::x()));
            rows.push((i, Vec3::x(), base.x));
            match unknowns {
                Unknowns::Normal { force, .. } => forces[start].1 = *force,
                Unknowns::Box => {
                    let mu = self.friction[i];
                    for (axis, direction) in [(1, Vec3::y()), (2, Vec3::z())] {
                        let plus = forces.len();
                        let (minus, lambda) = (plus + 1, plus + 2);
                        forces.push((i, direction));
                        forces.push((i, -direction));
                        forces.push((i, Vec3::zeros()));
                        // β⁺ ⟂ a + λ, β⁻ ⟂ −a + λ, λ ⟂ μ f_N − β⁺ − β⁻.
                        rows.push((i, direction, base[axis]));
                        rows.push((i, -direction, -base[axis]));
                        rows.push((i, Vec3::zeros(), 0.0));
                        couplings.push((plus, lambda, 1.0));
                        couplings.push((minus, lambda, 1.0));
                        couplings.push((lambda, start, mu));
                        couplings.push((lambda, plus, -1.0));
                        couplings.push((lambda, minus, -1.0));
                    }
                }
            }
        }
        let size = forces.len();
        let mut matrix = DMatrix::zeros(size, size);
        for (col, &(j, force)) in forces.iter().enumerate() {
            if force == Vec3::zeros() {
                continue;
            }
            for (row, &(i, measure, _)) in rows.iter().enumerate() {
                if measure != Vec3::zeros() {
                    matrix[(row, col)] = measure.dot(&(self.block(i, j) * force));
                }
            }
        }
        for (row, col, value) in couplings {
            matrix[(row, col)] += value;
        }
        let vector = DVector::from_iterator(size, rows.iter().map(|r| r.2));
        ContactLcp {
            matrix,
            vector,
            layout,
            first,
            frames: self.frames.clone(),
        }
    }
}

/// Whether an LCP is in forces (accelerations) or impulses (velocities).
#[derive(Clone, Copy)]
enum Level {
    Force,
    /// With this scale on every restitution coefficient.
    Impulse(f64),
}

/// The net contact force and torque (about the centre of mass) on each body from contact
/// forces `forces` (on A, world; −F on B).
pub fn body_wrenches(
    bodies: &[ContactBody],
    contacts: &[ContactPoint],
    forces: &[Vec3],
) -> Vec<(Vec3, Vec3)> {
    let mut wrenches = vec![(Vec3::zeros(), Vec3::zeros()); bodies.len()];
    for (c, f) in contacts.iter().zip(forces) {
        for (side, sign) in [(c.a, 1.0), (c.b, -1.0)] {
            if let Some(k) = side {
                let r = c.point - bodies[k].center_of_mass;
                wrenches[k].0 += sign * f;
                wrenches[k].1 += r.cross(&(sign * f));
            }
        }
    }
    wrenches
}

/// Applies impulses `impulses` (on A, world; −P on B) to the bodies' velocities.
pub fn apply_impulses(bodies: &mut [ContactBody], contacts: &[ContactPoint], impulses: &[Vec3]) {
    let wrenches = body_wrenches(bodies, contacts, impulses);
    for (body, (p, l)) in bodies.iter_mut().zip(wrenches) {
        body.velocity += p * body.inverse_mass;
        body.angular_velocity += body.inverse_inertia * l;
    }
}
