//! Scalar constraint rows: one position function φ of the bodies' poses (and maybe time), its
//! velocity Jacobian and the velocity-product term of its second derivative.
//!
//! Every primitive is built from these row kinds, each the exact derivative of its own φ, so
//! the forces `Jᵀλ` do no work on motions the constraint allows (kalra.md §3.4) and the
//! acceleration equation carries the relative-body and curvature terms the paper leaves out
//! (kalra.md §2.1 b–c, §2.2 i–j):
//!
//! - [`point_along`]: `φ = u·(p_a − o)`, with `u` and `o` fixed in body B (or the world, or
//!   moving with time) and `p_a` fixed in body A: points coinciding, a point on a line or a
//!   plane, the axial slide of a screw.
//! - [`perpendicular`]: `ψ = u·d`, `u` fixed in B and `d` fixed in A: axes kept parallel,
//!   rotation about an axis locked.
//! - [`distance`]: `φ = (|p_a − o|² − R²) / 2R`: a point on a sphere or, with a plane row, on
//!   a circle.
//! - [`screw_angle`]: the relative rotation about B's axis `d`, added to a slide row.
//! - [`on_local_shape`]: `φ = f(x)`, `x` A's point in B's frame, from f's gradient and Hessian:
//!   a point on a cylinder, or (two rows) on a helix, polyline or spline (`curve`).
//!
//! The acceleration of row k is `φ̈ = J u̇ + c`, with `u = (v, ω)` per body (CM velocity,
//! world angular velocity); its velocity is `φ̇ = J u + φ_t`.

use crate::math::Vec3;

/// The kinematics of one side of a row at one instant: the body's index (`None`: the fixed
/// world), its centre of mass, velocity and angular velocity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side {
    pub body: Option<usize>,
    pub center: Vec3,
    pub velocity: Vec3,
    pub omega: Vec3,
}

impl Side {
    /// The fixed world.
    pub fn world() -> Self {
        Self {
            body: None,
            center: Vec3::zeros(),
            velocity: Vec3::zeros(),
            omega: Vec3::zeros(),
        }
    }

    /// Velocity of the material point at world position `p`.
    pub fn point_velocity(&self, p: &Vec3) -> Vec3 {
        self.velocity + self.omega.cross(&(p - self.center))
    }

    /// Velocity-product part of the acceleration of the material point at `p`: ω × (ω × r).
    pub fn centripetal(&self, p: &Vec3) -> Vec3 {
        self.omega.cross(&self.omega.cross(&(p - self.center)))
    }
}

/// One body's part of a row's Jacobian: `φ̇ ∋ linear·v + angular·ω`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Block {
    pub body: usize,
    pub linear: Vec3,
    pub angular: Vec3,
}

/// A row's Jacobian blocks, at most two (a row joins two sides), kept inline: rows are built
/// several times a step, and a heap vector each cost more than the row's arithmetic.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks {
    items: [Block; 2],
    len: usize,
}

impl Blocks {
    const EMPTY: Block = Block {
        body: 0,
        linear: Vec3::new(0.0, 0.0, 0.0),
        angular: Vec3::new(0.0, 0.0, 0.0),
    };

    fn new() -> Self {
        Self {
            items: [Self::EMPTY; 2],
            len: 0,
        }
    }

    /// Appends a block (a row has at most two).
    pub fn push(&mut self, block: Block) {
        assert!(self.len < 2, "a row joins at most two bodies");
        self.items[self.len] = block;
        self.len += 1;
    }
}

impl std::ops::Deref for Blocks {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.items[..self.len]
    }
}

impl std::ops::DerefMut for Blocks {
    fn deref_mut(&mut self) -> &mut [Block] {
        &mut self.items[..self.len]
    }
}

impl PartialEq for Blocks {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<'b> IntoIterator for &'b Blocks {
    type Item = &'b Block;
    type IntoIter = std::slice::Iter<'b, Block>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'b> IntoIterator for &'b mut Blocks {
    type Item = &'b mut Block;
    type IntoIter = std::slice::IterMut<'b, Block>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl FromIterator<Block> for Blocks {
    fn from_iter<I: IntoIterator<Item = Block>>(iter: I) -> Self {
        let mut blocks = Self::new();
        for b in iter {
            blocks.push(b);
        }
        blocks
    }
}

/// One scalar constraint row at one instant.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// Jacobian blocks (at most two bodies; none when both sides are the world).
    pub blocks: Blocks,
    /// Position error φ.
    pub phi: f64,
    /// Explicit time rate of φ (a prescribed trajectory): `φ̇ = J u + phi_t`.
    pub phi_t: f64,
    /// Everything in φ̈ that is not `J u̇`: velocity products, curvature, `∂²φ/∂t²`.
    pub bias: f64,
}

impl Row {
    fn new(phi: f64, bias: f64) -> Self {
        Self {
            blocks: Blocks::new(),
            phi,
            phi_t: 0.0,
            bias,
        }
    }

    fn add(&mut self, side: &Side, linear: Vec3, angular: Vec3) {
        if let Some(body) = side.body {
            match self.blocks.iter_mut().find(|b| b.body == body) {
                Some(b) => {
                    b.linear += linear;
                    b.angular += angular;
                }
                None => self.blocks.push(Block {
                    body,
                    linear,
                    angular,
                }),
            }
        }
    }

    /// `J u` over the bodies' velocities `(v, ω)`.
    pub fn velocity(&self, velocities: &[(Vec3, Vec3)]) -> f64 {
        self.blocks
            .iter()
            .map(|b| {
                let (v, w) = velocities[b.body];
                b.linear.dot(&v) + b.angular.dot(&w)
            })
            .sum::<f64>()
    }
}

/// `φ = u·(p_a − o)`: `p_a` a material point of A, `u` a direction and `o` a point of B, all
/// in world coordinates now. `o_velocity`/`o_accel` are extra motion of `o` prescribed in time
/// (zero unless `o` is a trajectory point, kalra.md eq. 21), which B must then be the world for.
pub(crate) fn point_along(
    a: &Side,
    p_a: &Vec3,
    b: &Side,
    u: &Vec3,
    o: &Vec3,
    o_velocity: &Vec3,
    o_accel: &Vec3,
) -> Row {
    let e = p_a - o;
    let u_dot = b.omega.cross(u);
    // ė = v_pa − v_o (the material point of B at o, plus any prescribed motion of o).
    let e_dot = a.point_velocity(p_a) - b.point_velocity(o) - o_velocity;
    // φ̈ = ü·e + 2u̇·ė + u·ë; the parts without u̇ (kalra.md §2.1 b, [ADDED]).
    let bias = b.omega.cross(&u_dot).dot(&e)
        + 2.0 * u_dot.dot(&e_dot)
        + u.dot(&(a.centripetal(p_a) - b.centripetal(o) - o_accel));
    let mut row = Row::new(u.dot(&e), bias);
    row.add(a, *u, (p_a - a.center).cross(u));
    // B's side: u̇·e + u·(−v_o) = −(v_b + ω_b × (p_a − x_b))·u: as if p_a were B's point.
    row.add(b, -u, -(p_a - b.center).cross(u));
    row.phi_t = -u.dot(o_velocity);
    row
}

/// `ψ = u·d`: `d` a direction fixed in A, `u` one fixed in B (world coordinates now).
pub(crate) fn perpendicular(a: &Side, d: &Vec3, b: &Side, u: &Vec3) -> Row {
    let u_dot = b.omega.cross(u);
    let d_dot = a.omega.cross(d);
    // ψ̈ = ü·d + 2u̇·ḋ + u·d̈ (kalra.md §2.1 b, [ADDED]).
    let bias =
        b.omega.cross(&u_dot).dot(d) + 2.0 * u_dot.dot(&d_dot) + u.dot(&a.omega.cross(&d_dot));
    let mut row = Row::new(u.dot(d), bias);
    let axis = d.cross(u);
    row.add(a, Vec3::zeros(), axis);
    row.add(b, Vec3::zeros(), -axis);
    row
}

/// `φ = (|p_a − o|² − R²) / 2R` (≈ |p_a − o| − R near the surface): `p_a` a point of A, `o` a
/// point of B. Kept at R this holds `p_a` on a sphere about `o`; the normal acceleration
/// `|ė|²/R` is the curvature term kalra.md §2.2 i–j adds to the paper's eq. (17)/(19).
pub(crate) fn distance(a: &Side, p_a: &Vec3, b: &Side, o: &Vec3, radius: f64) -> Row {
    let e = p_a - o;
    let e_dot = a.point_velocity(p_a) - b.point_velocity(o);
    let bias = (e_dot.norm_squared() + e.dot(&(a.centripetal(p_a) - b.centripetal(o)))) / radius;
    let mut row = Row::new((e.norm_squared() - radius * radius) / (2.0 * radius), bias);
    let n = e / radius;
    row.add(a, n, (p_a - a.center).cross(&n));
    row.add(b, -n, -(o - b.center).cross(&n));
    row
}

/// `φ = f(x)` for `x` A's material point `p_a` seen in B's frame (`x = R_bᵀ (p_a − c_b)`): a
/// point on a curved surface or curve carried by B. The caller gives `φ`, the gradient of `f`
/// turned into the world (`gradient`) and the quadratic form of its Hessian (world), which is
/// applied to `w = v_pa − v_b(p_a)`, the point's velocity relative to B's material point there.
///
/// `ẋ = R_bᵀ w` and `R_b ẍ = a_pa − a_b − α_b × e − ω_b × (ė + w)` with `e = p_a − c_b`, so
/// `φ̈ = G·(a_pa − a_b − α_b × e) − G·(ω_b × (ė + w)) + wᵀ H w`: kalra.md §2.2 i–j with B moving.
pub(crate) fn on_local_shape(
    a: &Side,
    p_a: &Vec3,
    b: &Side,
    phi: f64,
    gradient: &Vec3,
    hessian: impl Fn(&Vec3) -> f64,
) -> Row {
    let e = p_a - b.center;
    let v_pa = a.point_velocity(p_a);
    let w = v_pa - b.point_velocity(p_a);
    let e_dot = v_pa - b.velocity;
    let bias = gradient.dot(&a.centripetal(p_a)) - gradient.dot(&b.omega.cross(&(e_dot + w)))
        + hessian(&w);
    let mut row = Row::new(phi, bias);
    row.add(a, *gradient, (p_a - a.center).cross(gradient));
    row.add(b, -gradient, -e.cross(gradient));
    row
}

/// `φ = θ − θ_d(t)`: A's rotation θ relative to B about B's axis `d` (now `theta`) driven to
/// `target = (θ_d, θ̇_d, θ̈_d)`. As for [`screw_angle`]: `θ̇ = d·(ω_a − ω_b)` and
/// `θ̈ = d·(α_a − α_b) + (ω_b × d)·(ω_a − ω_b)`; the time terms go to `phi_t` and the bias.
pub(crate) fn driven_angle(
    a: &Side,
    b: &Side,
    d: &Vec3,
    theta: f64,
    target: (f64, f64, f64),
) -> Row {
    let (angle, rate, accel) = target;
    let mut row = Row::new(
        theta - angle,
        b.omega.cross(d).dot(&(a.omega - b.omega)) - accel,
    );
    row.phi_t = -rate;
    row.add(a, Vec3::zeros(), *d);
    row.add(b, Vec3::zeros(), -d);
    row
}

/// Drives a row along `target = (s, ṡ, s̈)` prescribed in time: `φ − s(t)`, whose velocity
/// gains `−ṡ` and whose acceleration gains `−s̈` (the Jacobian, a function of the poses only,
/// is unchanged).
pub(crate) fn drive(row: &mut Row, target: (f64, f64, f64)) {
    let (s, rate, accel) = target;
    row.phi -= s;
    row.phi_t -= rate;
    row.bias -= accel;
}

/// Adds `−h θ` to a slide row `s` along B's axis `d`, where θ is the rotation of A relative to
/// B about `d` (now `theta`): `θ̇ = d·(ω_a − ω_b)`, `θ̈ = d·(α_a − α_b) + (ω_b × d)·(ω_a − ω_b)`
/// (kalra.md §2.1 c, the corrected screw).
pub(crate) fn screw_angle(row: &mut Row, a: &Side, b: &Side, d: &Vec3, theta: f64, h: f64) {
    row.phi -= h * theta;
    row.bias -= h * b.omega.cross(d).dot(&(a.omega - b.omega));
    row.add(a, Vec3::zeros(), -h * d);
    row.add(b, Vec3::zeros(), h * d);
}

/// Two bodies in a screw motion each, for the tests that check rows against differences of
/// their φ: centre `x0 + v t`, turning at constant ω.
#[cfg(test)]
pub(crate) mod motion {
    use super::Side;
    use crate::math::Vec3;

    /// Body A's (x0, v, ω).
    pub const A: (Vec3, Vec3, Vec3) = (
        Vec3::new(0.3, -0.2, 0.5),
        Vec3::new(0.4, 0.1, -0.3),
        Vec3::new(1.1, -0.7, 0.4),
    );
    /// Body B's (x0, v, ω).
    pub const B: (Vec3, Vec3, Vec3) = (
        Vec3::new(-0.4, 0.6, 0.1),
        Vec3::new(-0.2, 0.5, 0.2),
        Vec3::new(-0.3, 0.9, 1.3),
    );

    /// Body `body`'s side at time t in the motion `(x0, v, ω)`.
    pub fn side(body: usize, (x0, v, w): (Vec3, Vec3, Vec3), t: f64) -> Side {
        Side {
            body: Some(body),
            center: x0 + v * t,
            velocity: v,
            omega: w,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows' Jacobians and biases are the derivatives of their φ: checked against central
    /// differences of φ along a rigid motion (an independent route to the same numbers).
    #[test]
    fn rows_are_derivatives_of_their_positions() {
        let ((xa, va, wa), (xb, vb, wb)) = (motion::A, motion::B);
        let pa0 = Vec3::new(0.8, 0.1, -0.2);
        let o0 = Vec3::new(0.2, 0.7, 0.4);
        let u0 = Vec3::new(0.3, -0.5, 0.8).normalize();
        let d0 = Vec3::new(-0.6, 0.2, 0.3).normalize();
        let rot = |w: &Vec3, t: f64| nalgebra::Rotation3::new(w * t);
        // The world state at time t, returned as sides and the moved geometry.
        let at = |t: f64| {
            let (ra, rb) = (rot(&wa, t), rot(&wb, t));
            let (a, b) = (motion::side(0, motion::A, t), motion::side(1, motion::B, t));
            let pa = a.center + ra * (pa0 - xa);
            let o = b.center + rb * (o0 - xb);
            (a, b, pa, o, rb * u0, ra * d0)
        };
        let velocities = [(va, wa), (vb, wb)];
        let rows = |t: f64| {
            let (a, b, pa, o, u, d) = at(t);
            let z = Vec3::zeros();
            let mut screw = point_along(&a, &pa, &b, &u, &o, &z, &z);
            // θ is the integral of u(s)·(ω_a − ω_b) (Simpson's rule, 40 panels).
            let n = 40;
            let rate = |s: f64| (rot(&wb, s) * u0).dot(&(wa - wb));
            let theta = (0..n)
                .map(|i| {
                    let (s0, s1) = (t * i as f64 / n as f64, t * (i + 1) as f64 / n as f64);
                    (s1 - s0) / 6.0 * (rate(s0) + 4.0 * rate(0.5 * (s0 + s1)) + rate(s1))
                })
                .sum::<f64>();
            screw_angle(&mut screw, &a, &b, &u, theta, 0.05);
            vec![
                point_along(&a, &pa, &b, &u, &o, &z, &z),
                perpendicular(&a, &d, &b, &u),
                distance(&a, &pa, &b, &o, 0.7),
                screw,
            ]
        };
        let h = 1e-4;
        let (r0, rp, rm) = (rows(0.0), rows(h), rows(-h));
        for k in 0..r0.len() {
            let phi_dot = (rp[k].phi - rm[k].phi) / (2.0 * h);
            let phi_ddot = (rp[k].phi - 2.0 * r0[k].phi + rm[k].phi) / (h * h);
            let ju = r0[k].velocity(&velocities);
            // Constant velocities: u̇ = 0 so φ̈ = c. Central differences err by h²/6·φ''' ≈
            // 2e-9·|φ'''| (|φ'''| ≲ 10 here), the second difference also by rounding
            // 1e-16/h² ≈ 1e-8.
            assert!((phi_dot - ju).abs() < 1e-7, "row {k}: {phi_dot} vs {ju}");
            assert!(
                (phi_ddot - r0[k].bias).abs() < 1e-5,
                "row {k}: {phi_ddot} vs {}",
                r0[k].bias
            );
        }
    }
}
