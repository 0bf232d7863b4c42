//! Assemblies (Kalra): free rigid bodies joined by lower- and higher-pair primitives, written
//! as constraint rows on the bodies' accelerations and held by ideal forces `Jᵀλ`.
//!
//! Kalra's paper attaches a free force or torque to each primitive and takes the minimum-norm
//! solution, which does work on the motions a joint allows (kalra.md §3.4). Here each primitive
//! is its minimal set of scalar rows φ(q, t) = 0 (kalra.md §5.3; `primitive`), each row's
//! acceleration equation `J u̇ + c = 0` carries every velocity-product, curvature and
//! relative-body term (`rows`), and the multipliers come from `(J M⁻¹ Jᵀ) λ = rhs` by a
//! factorisation that drops redundant rows and reports inconsistent ones (`solve`). Drift is
//! held by Baumgarte terms in the right side and by projecting positions and velocities back
//! onto the constraints after each step (`drift`); the bodies' 13 equations each
//! (position, quaternion, momentum, angular momentum, kalra.md eq. 22–24) are integrated by
//! fixed-step RK4 (`step`).
//!
//! An assembly runs on its own integrator; its bodies may carry shapes that collide with each
//! other, with free bodies and with fixed solids through the engine's narrow phase and
//! collision response (`solids`; see `docs/ARCHITECTURE.md`, "Assemblies").

pub mod balls;
mod corners;
mod curve;
mod drift;
mod impulse;
mod loads;
mod materials;
mod path;
mod primitive;
mod profile;
mod rows;
pub mod scene;
pub mod solids;
mod solve;
mod spline;
mod step;

use std::fmt;

use crate::math::{Mat3, Pose, Quat, Vec3, pose};

pub use loads::{LoadDesc, LoadKind};
pub use path::{Path, PathTable};
use primitive::{Frame, Template};
pub use primitive::{Handedness, Primitive};
pub use profile::{Profile, TableValue, TimeTable};
use rows::{Row, Side};
use solve::InverseMass;

/// A rigid body of an assembly: mass properties about its centre of mass, initial state and
/// the loads on it.
#[derive(Clone, Debug, PartialEq)]
pub struct AssemblyBodyDesc {
    /// Name (unique in the assembly).
    pub name: String,
    /// Mass (positive).
    pub mass: f64,
    /// Inertia tensor about the centre of mass, in the body frame (symmetric, positive
    /// definite).
    pub inertia: Mat3,
    /// Centre of mass in the world.
    pub position: Vec3,
    /// Body frame → world.
    pub orientation: Quat,
    /// Centre-of-mass velocity.
    pub velocity: Vec3,
    /// Angular velocity (world frame).
    pub angular_velocity: Vec3,
    /// Constant force at the centre of mass (besides gravity).
    pub force: Vec3,
    /// Constant torque (world frame).
    pub torque: Vec3,
    /// Viscous damping of the centre's velocity: force `−c v`.
    pub linear_damping: f64,
    /// Viscous damping of the rotation: torque `−c ω` (the paper's friction torque).
    pub angular_damping: f64,
}

impl AssemblyBodyDesc {
    /// A body at rest at `position` with principal moments `moments` along its frame, which is
    /// aligned with the world's.
    pub fn new(name: impl Into<String>, mass: f64, moments: Vec3, position: Vec3) -> Self {
        Self {
            name: name.into(),
            mass,
            inertia: Mat3::from_diagonal(&moments),
            position,
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
            linear_damping: 0.0,
            angular_damping: 0.0,
        }
    }
}

/// A joint: primitive between body `a` and body `b` (`None`: the fixed world).
#[derive(Clone, Debug, PartialEq)]
pub struct JointDesc {
    /// Name (for messages).
    pub name: String,
    /// Index of body A.
    pub a: usize,
    /// Index of body B, or `None` for the world.
    pub b: Option<usize>,
    /// The primitive, in world coordinates at the initial pose.
    pub primitive: Primitive,
}

/// Baumgarte stabilisation `φ̈ + 2ζω φ̇ + ω² φ = 0` (kalra.md §5.2, §5.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baumgarte {
    /// Natural frequency ω (1/s); 0 turns it off.
    pub frequency: f64,
    /// Damping ratio ζ.
    pub damping_ratio: f64,
}

/// How an assembly is integrated and held together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AssemblySettings {
    /// Gravity (acceleration).
    pub gravity: Vec3,
    /// RK4 step.
    pub step: f64,
    /// Baumgarte terms in the constraint equations.
    pub baumgarte: Baumgarte,
    /// Project positions and velocities back onto the constraints after every step.
    pub projection: bool,
    /// Largest joint gap (length, or radians for angles) the initial pose may have.
    pub tolerance: f64,
    /// Move a violating initial pose onto the constraints instead of refusing it.
    pub assemble: bool,
}

impl AssemblySettings {
    /// Settings with gravity `gravity` and RK4 step `step`: projection after every step, no
    /// Baumgarte terms (projection holds the joints to rounding; Baumgarte on top of it, at
    /// ω = 0.1/step, made the 5-link chain's energy error 600 times larger — measured, see
    /// `docs/sources.md`), initial pose tolerance 1e-6.
    pub fn with_step(gravity: Vec3, step: f64) -> Self {
        Self {
            gravity,
            step,
            baumgarte: Baumgarte {
                frequency: 0.0,
                damping_ratio: 1.0,
            },
            projection: true,
            tolerance: 1e-6,
            assemble: false,
        }
    }
}

impl Default for AssemblySettings {
    /// g = 9.81 down z, step 1 ms.
    fn default() -> Self {
        Self::with_step(Vec3::new(0.0, 0.0, -9.81), 1e-3)
    }
}

/// Why an assembly cannot be built or run.
#[derive(Clone, Debug, PartialEq)]
pub enum AssemblyError {
    /// A body's description is unusable.
    Body { body: String, message: String },
    /// A joint's description is unusable.
    Joint { joint: String, message: String },
    /// The initial pose violates a joint by more than the tolerance.
    Violated { joint: String, gap: f64 },
    /// The constraints ask for what no forces can give (an inconsistent over-constraint).
    Inconsistent {
        time: f64,
        joints: Vec<String>,
        residual: f64,
    },
    /// A body's state stopped being finite.
    NotFinite { time: f64, body: String },
    /// A load's description is unusable.
    Load { load: String, message: String },
    /// Two solids start overlapping deeper than the collision envelope.
    Overlap { a: String, b: String, depth: f64 },
    /// A contact between two solids could not be answered.
    Contact {
        time: f64,
        a: String,
        b: String,
        message: String,
    },
}

impl fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Body { body, message } => write!(f, "body `{body}`: {message}"),
            Self::Joint { joint, message } => write!(f, "joint `{joint}`: {message}"),
            Self::Violated { joint, gap } => write!(
                f,
                "joint `{joint}`: the initial pose violates it by {gap:e} (move the bodies onto it, or set assemble = true)"
            ),
            Self::Inconsistent {
                time,
                joints,
                residual,
            } => write!(
                f,
                "at t = {time}: the constraints are inconsistent (over-constrained with conflicting demands; residual {residual:e}); joints with redundant rows: {}",
                joints.join(", ")
            ),
            Self::NotFinite { time, body } => {
                write!(f, "at t = {time}: body `{body}`'s state is not finite")
            }
            Self::Load { load, message } => write!(f, "load `{load}`: {message}"),
            Self::Overlap { a, b, depth } => write!(
                f,
                "`{a}` and `{b}` start overlapping by {depth:e}, deeper than the collision envelope: move them apart"
            ),
            Self::Contact {
                time,
                a,
                b,
                message,
            } => write!(f, "at t = {time}: contact of `{a}` and `{b}`: {message}"),
        }
    }
}

impl std::error::Error for AssemblyError {}

/// One body's state: centre, orientation, momentum and angular momentum (13 numbers with the
/// quaternion, kalra.md eq. 22).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BodyState {
    pub position: Vec3,
    pub orientation: Quat,
    pub momentum: Vec3,
    pub angular_momentum: Vec3,
}

/// A body of a running assembly.
#[derive(Clone, Debug)]
pub struct AssemblyBody {
    desc: AssemblyBodyDesc,
    inverse_inertia: Mat3,
    state: BodyState,
}

impl AssemblyBody {
    /// Name.
    pub fn name(&self) -> &str {
        &self.desc.name
    }
    /// Mass.
    pub fn mass(&self) -> f64 {
        self.desc.mass
    }
    /// Inertia tensor about the centre of mass, in the body frame.
    pub fn inertia(&self) -> Mat3 {
        self.desc.inertia
    }
    /// Pose of the body frame (centre of mass).
    pub fn pose(&self) -> Pose {
        pose(self.state.position, self.state.orientation)
    }
    /// Velocity of the centre of mass.
    pub fn velocity(&self) -> Vec3 {
        self.state.momentum / self.desc.mass
    }
    /// Angular velocity (world).
    pub fn angular_velocity(&self) -> Vec3 {
        world_inverse_inertia(&self.inverse_inertia, &self.state.orientation)
            * self.state.angular_momentum
    }
    /// Angular momentum about the centre of mass (world).
    pub fn angular_momentum(&self) -> Vec3 {
        self.state.angular_momentum
    }
    /// World velocity of the material point now at world position `p`.
    pub fn point_velocity(&self, p: &Vec3) -> Vec3 {
        self.velocity() + self.angular_velocity().cross(&(p - self.state.position))
    }
}

fn world_inverse_inertia(body: &Mat3, q: &Quat) -> Mat3 {
    let r = q.to_rotation_matrix();
    r.matrix() * body * r.matrix().transpose()
}

/// A compiled joint.
#[derive(Clone, Debug)]
struct Joint {
    name: String,
    a: usize,
    b: Option<usize>,
    templates: Vec<Template>,
}

/// An assembly of bodies and joints, advanced in time by fixed RK4 steps.
#[derive(Clone, Debug)]
pub struct Assembly {
    settings: AssemblySettings,
    bodies: Vec<AssemblyBody>,
    joints: Vec<Joint>,
    /// Springs and prescribed torques between bodies.
    loads: Vec<loads::Load>,
    /// The order the joints' rows go to the solve (Cuthill–McKee over joints sharing a body:
    /// a narrow profile for the skyline factorisation).
    order: Vec<usize>,
    time: f64,
    /// Work done by the applied loads (forces, torques, damping; not gravity) so far.
    applied_work: f64,
    /// Work done by the constraint forces so far (zero for ideal, time-independent joints).
    constraint_work: f64,
    /// Largest joint gap seen at the end of any step.
    max_gap: f64,
    /// Number of steps taken.
    steps: u64,
}

impl Assembly {
    /// Builds an assembly: checks every body and joint, fixes each joint's geometry in its
    /// bodies' frames, checks the initial pose against the joints (or assembles it, if the
    /// settings ask), and projects the initial velocities onto the constraints.
    pub fn new(
        settings: AssemblySettings,
        bodies: Vec<AssemblyBodyDesc>,
        joints: Vec<JointDesc>,
    ) -> Result<Self, AssemblyError> {
        if !(settings.step.is_finite() && settings.step > 0.0) {
            return Err(AssemblyError::Body {
                body: String::new(),
                message: format!("the step must be positive, found {}", settings.step),
            });
        }
        let mut built = Vec::with_capacity(bodies.len());
        for desc in bodies {
            let bad = |message: String| AssemblyError::Body {
                body: desc.name.clone(),
                message,
            };
            if !(desc.mass.is_finite() && desc.mass > 0.0) {
                return Err(bad(format!("mass must be positive, found {}", desc.mass)));
            }
            let inertia = desc.inertia;
            let symmetric =
                (inertia - inertia.transpose()).abs().max() <= 1e-12 * inertia.abs().max();
            let eigen = nalgebra::SymmetricEigen::new(inertia).eigenvalues;
            if !symmetric || !inertia.iter().all(|x| x.is_finite()) || eigen.min() <= 0.0 {
                return Err(bad(
                    "inertia must be a symmetric positive definite tensor".into()
                ));
            }
            let finite = [
                desc.position,
                desc.velocity,
                desc.angular_velocity,
                desc.force,
                desc.torque,
            ]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()));
            if !finite || !desc.linear_damping.is_finite() || !desc.angular_damping.is_finite() {
                return Err(bad("state and loads must be finite".into()));
            }
            if desc.linear_damping < 0.0 || desc.angular_damping < 0.0 {
                return Err(bad("damping must not be negative".into()));
            }
            let inverse_inertia = inertia
                .try_inverse()
                .ok_or_else(|| bad("singular inertia".into()))?;
            let world_inertia = {
                let r = desc.orientation.to_rotation_matrix();
                r.matrix() * inertia * r.matrix().transpose()
            };
            let state = BodyState {
                position: desc.position,
                orientation: desc.orientation,
                momentum: desc.velocity * desc.mass,
                angular_momentum: world_inertia * desc.angular_velocity,
            };
            built.push(AssemblyBody {
                desc,
                inverse_inertia,
                state,
            });
        }
        let mut compiled = Vec::with_capacity(joints.len());
        for j in joints {
            let bad = |message: String| AssemblyError::Joint {
                joint: j.name.clone(),
                message,
            };
            if j.a >= built.len() {
                return Err(bad(format!("body A (index {}) does not exist", j.a)));
            }
            if let Some(b) = j.b {
                if b >= built.len() {
                    return Err(bad(format!("body B (index {b}) does not exist")));
                }
                if b == j.a {
                    return Err(bad("joins a body to itself".into()));
                }
                if j.primitive.needs_world() {
                    return Err(bad(format!(
                        "a {} joint holds a body to the world; it takes no body B",
                        j.primitive.name()
                    )));
                }
            }
            j.primitive.check().map_err(&bad)?;
            let pose_a = built[j.a].pose();
            let pose_b = j.b.map(|b| built[b].pose()).unwrap_or_else(Pose::identity);
            compiled.push(Joint {
                templates: j.primitive.templates(&pose_a, &pose_b),
                name: j.name,
                a: j.a,
                b: j.b,
            });
        }
        let order = cuthill_mckee(&compiled, built.len());
        let mut assembly = Self {
            settings,
            bodies: built,
            joints: compiled,
            loads: Vec::new(),
            order,
            time: 0.0,
            applied_work: 0.0,
            constraint_work: 0.0,
            max_gap: 0.0,
            steps: 0,
        };
        if settings.assemble {
            assembly.project_positions()?;
        }
        for (j, gap) in assembly.joint_gaps().into_iter().enumerate() {
            if gap > settings.tolerance {
                return Err(AssemblyError::Violated {
                    joint: assembly.joints[j].name.clone(),
                    gap,
                });
            }
        }
        assembly.project_velocities()?;
        assembly.max_gap = assembly.gap();
        Ok(assembly)
    }

    /// The settings.
    pub fn settings(&self) -> &AssemblySettings {
        &self.settings
    }
    /// Current time.
    pub fn time(&self) -> f64 {
        self.time
    }
    /// The bodies, in the order given.
    pub fn bodies(&self) -> &[AssemblyBody] {
        &self.bodies
    }
    /// Index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name() == name)
    }
    /// The joints' names, in the order given.
    pub fn joint_names(&self) -> Vec<&str> {
        self.joints.iter().map(|j| j.name.as_str()).collect()
    }
    /// Number of first-order equations integrated: 13 per body (kalra.md §6.4's count).
    pub fn ode_count(&self) -> usize {
        13 * self.bodies.len()
    }
    /// Number of scalar constraint rows.
    pub fn row_count(&self) -> usize {
        self.joints.iter().map(|j| j.templates.len()).sum()
    }
    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Work done so far by applied forces and torques other than gravity (damping included).
    pub fn applied_work(&self) -> f64 {
        self.applied_work
    }
    /// Work done so far by the constraint forces: zero for joints that do not move in time
    /// (ideal forces); a prescribed path's force does the work that drives it.
    pub fn constraint_work(&self) -> f64 {
        self.constraint_work
    }
    /// Largest joint gap at the end of any step so far.
    pub fn max_gap(&self) -> f64 {
        self.max_gap
    }

    /// Kinetic energy.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| {
                0.5 * b.state.momentum.norm_squared() / b.desc.mass
                    + 0.5 * b.angular_velocity().dot(&b.state.angular_momentum)
            })
            .sum()
    }
    /// Potential energy in gravity (zero at the origin).
    pub fn potential_energy(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| -b.desc.mass * self.settings.gravity.dot(&b.state.position))
            .sum()
    }
    /// Kinetic plus potential energy.
    pub fn energy(&self) -> f64 {
        self.kinetic_energy() + self.potential_energy()
    }

    /// Each joint's largest |φ| now (length, or radians for alignments).
    pub fn joint_gaps(&self) -> Vec<f64> {
        let (rows, owners) = self.rows_now();
        let mut gaps = vec![0.0_f64; self.joints.len()];
        for (row, j) in rows.iter().zip(owners) {
            gaps[j] = gaps[j].max(row.phi.abs());
        }
        gaps
    }
    /// Largest joint gap now.
    pub fn gap(&self) -> f64 {
        self.joint_gaps().into_iter().fold(0.0, f64::max)
    }

    /// The constraint force and torque (about A's centre of mass) each joint puts on its body
    /// A now (B takes the opposite force at the same point).
    pub fn joint_reactions(&self) -> Result<Vec<(Vec3, Vec3)>, AssemblyError> {
        let now = step::instant(self, self.time, &self.states())?;
        let mut out = vec![(Vec3::zeros(), Vec3::zeros()); self.joints.len()];
        for ((row, &j), l) in now.rows.iter().zip(&now.owners).zip(&now.solution.lambda) {
            if let Some(block) = row.blocks.iter().find(|b| b.body == self.joints[j].a) {
                out[j].0 += block.linear * *l;
                out[j].1 += block.angular * *l;
            }
        }
        Ok(out)
    }

    /// Rows found dependent on earlier rows at the current state (a redundant closed loop).
    pub fn redundant_rows(&self) -> Result<usize, AssemblyError> {
        Ok(step::instant(self, self.time, &self.states())?
            .solution
            .dependent
            .len())
    }

    /// The constraint forces' power now, `Σ F·v + τ·ω`, and the sum of the magnitudes of its
    /// terms `Σ |F||v| + |τ||ω|` (the scale a work-doing force would show at).
    pub fn constraint_power(&self) -> Result<(f64, f64), AssemblyError> {
        let now = step::instant(self, self.time, &self.states())?;
        let mut power = 0.0;
        let mut scale = 0.0;
        for (s, (f, tau)) in now.sides.iter().zip(&now.constraint) {
            power += f.dot(&s.velocity) + tau.dot(&s.omega);
            scale += f.norm() * s.velocity.norm() + tau.norm() * s.omega.norm();
        }
        Ok((power, scale))
    }

    /// Each body's acceleration now: (centre, angular).
    pub fn accelerations(&self) -> Result<Vec<(Vec3, Vec3)>, AssemblyError> {
        let d = step::derivative(self, self.time, &self.states())?;
        Ok(self
            .bodies
            .iter()
            .zip(&d.bodies)
            .map(|(b, db)| {
                let i = world_inverse_inertia(&b.inverse_inertia, &b.state.orientation);
                let w = i * b.state.angular_momentum;
                // ω̇ = I⁻¹ (L̇ + L × ω) (kalra.md eq. 40).
                (
                    db.force / b.desc.mass,
                    i * (db.torque + b.state.angular_momentum.cross(&w)),
                )
            })
            .collect())
    }

    /// Takes steps on the fixed grid `k · step` (times computed, never accumulated) up to the
    /// last grid time at or before `t` (within a millionth of a step): where anyone looks never
    /// changes the steps taken, so outputs cannot perturb the motion.
    pub fn advance_to(&mut self, t: f64) -> Result<(), AssemblyError> {
        let h = self.settings.step;
        loop {
            let next = (self.steps + 1) as f64 * h;
            if next > t + 1e-6 * h {
                return Ok(());
            }
            step::advance(self, next)?;
        }
    }

    fn states(&self) -> Vec<BodyState> {
        self.bodies.iter().map(|b| b.state).collect()
    }

    /// The sides (kinematics) and poses of every body for the given states.
    fn frames(&self, states: &[BodyState]) -> (Vec<Side>, Vec<Pose>) {
        let mut sides = Vec::with_capacity(states.len());
        let mut poses = Vec::with_capacity(states.len());
        for (i, (b, s)) in self.bodies.iter().zip(states).enumerate() {
            let iw = world_inverse_inertia(&b.inverse_inertia, &s.orientation);
            sides.push(Side {
                body: Some(i),
                center: s.position,
                velocity: s.momentum / b.desc.mass,
                omega: iw * s.angular_momentum,
            });
            poses.push(pose(s.position, s.orientation));
        }
        (sides, poses)
    }

    /// Every row at the given states and time, with the joint each belongs to.
    fn rows_at(&self, states: &[BodyState], t: f64) -> (Vec<Row>, Vec<usize>) {
        let (sides, poses) = self.frames(states);
        self.rows_from(&sides, &poses, t)
    }

    /// Every row for the bodies' sides and poses (from [`Self::frames`]) at time t.
    fn rows_from(&self, sides: &[Side], poses: &[Pose], t: f64) -> (Vec<Row>, Vec<usize>) {
        let world = Pose::identity();
        let mut rows = Vec::with_capacity(self.row_count());
        let mut owners = Vec::with_capacity(self.row_count());
        for &j in &self.order {
            let joint = &self.joints[j];
            let a = Frame {
                side: sides[joint.a],
                pose: &poses[joint.a],
            };
            let b = match joint.b {
                Some(b) => Frame {
                    side: sides[b],
                    pose: &poses[b],
                },
                None => Frame {
                    side: Side::world(),
                    pose: &world,
                },
            };
            for template in &joint.templates {
                rows.push(template.row(&a, &b, t));
                owners.push(j);
            }
        }
        (rows, owners)
    }

    fn rows_now(&self) -> (Vec<Row>, Vec<usize>) {
        self.rows_at(&self.states(), self.time)
    }

    /// Inverse masses at the given states.
    /// Whether body `b` moves on its own: no joint or load acts on it, and no step is cut at an
    /// event (a piston's switch, a polyline's corner). Its partial step is then a function of
    /// its own state alone, and [`Assembly::alone`] takes it without the rest.
    pub(crate) fn moves_alone(&self, b: usize) -> bool {
        let touches = |a: usize, other: Option<usize>| a == b || other == Some(b);
        !self.joints.iter().any(|j| touches(j.a, j.b))
            && !self.loads.iter().any(|l| {
                let (a, other) = l.bodies();
                l.switches() || touches(a, other)
            })
            && !self.has_polylines()
    }

    /// The bodies `of` at this time as an assembly of their own, if each
    /// [`Assembly::moves_alone`]: their partial steps and impulses are those the whole
    /// assembly's would give them (the same RK4 of the same rates, loads and gravity), for a
    /// fraction of the cost. With it, the bodies it holds, in order: body `b` is its
    /// `keep.binary_search(&b)`.
    pub(crate) fn alone(&self, of: &[usize]) -> Option<(Assembly, Vec<usize>)> {
        let mut keep = of.to_vec();
        keep.sort_unstable();
        keep.dedup();
        if !keep.iter().all(|&b| self.moves_alone(b)) {
            return None;
        }
        let alone = Assembly {
            settings: self.settings,
            bodies: keep.iter().map(|&b| self.bodies[b].clone()).collect(),
            joints: Vec::new(),
            loads: Vec::new(),
            order: Vec::new(),
            time: self.time,
            applied_work: 0.0,
            constraint_work: 0.0,
            max_gap: 0.0,
            steps: self.steps,
        };
        Some((alone, keep))
    }

    fn inverse_masses(&self, states: &[BodyState]) -> Vec<InverseMass> {
        self.bodies
            .iter()
            .zip(states)
            .map(|(b, s)| InverseMass {
                mass: 1.0 / b.desc.mass,
                inertia: world_inverse_inertia(&b.inverse_inertia, &s.orientation),
            })
            .collect()
    }

    /// Keeps the screws' unwrapped angles and the curves' parameters after the bodies moved;
    /// true if a point passed a polyline's corner.
    fn settle_joints(&mut self) -> bool {
        let (_, poses) = self.frames(&self.states());
        let world = Pose::identity();
        let mut cornered = false;
        for joint in &mut self.joints {
            let a = Frame {
                side: Side::world(),
                pose: &poses[joint.a],
            };
            let b = Frame {
                side: Side::world(),
                pose: joint.b.map(|b| &poses[b]).unwrap_or(&world),
            };
            for t in &mut joint.templates {
                cornered |= t.settle(&a, &b);
            }
        }
        cornered
    }
}

/// Joints in Cuthill–McKee order: breadth first over joints that share a body, each component
/// from its joint with fewest neighbours, neighbours by increasing count (ties by index, so the
/// order is deterministic). A chain stays in chain order.
fn cuthill_mckee(joints: &[Joint], bodies: usize) -> Vec<usize> {
    let mut on_body: Vec<Vec<usize>> = vec![Vec::new(); bodies];
    for (j, joint) in joints.iter().enumerate() {
        on_body[joint.a].push(j);
        if let Some(b) = joint.b {
            on_body[b].push(j);
        }
    }
    let neighbours: Vec<Vec<usize>> = joints
        .iter()
        .enumerate()
        .map(|(j, joint)| {
            let mut n: Vec<usize> = std::iter::once(joint.a)
                .chain(joint.b)
                .flat_map(|b| on_body[b].iter().copied())
                .filter(|&k| k != j)
                .collect();
            n.sort_unstable();
            n.dedup();
            n
        })
        .collect();
    let mut seen = vec![false; joints.len()];
    let mut order = Vec::with_capacity(joints.len());
    while order.len() < joints.len() {
        let Some(start) = (0..joints.len())
            .filter(|&j| !seen[j])
            .min_by_key(|&j| (neighbours[j].len(), j))
        else {
            break;
        };
        seen[start] = true;
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(j) = queue.pop_front() {
            order.push(j);
            let mut next: Vec<usize> = neighbours[j]
                .iter()
                .copied()
                .filter(|&k| !seen[k])
                .collect();
            next.sort_by_key(|&k| (neighbours[k].len(), k));
            for k in next {
                seen[k] = true;
                queue.push_back(k);
            }
        }
    }
    order
}

#[cfg(test)]
mod alone_tests {
    use super::*;
    use crate::assembly::loads::{LoadDesc, LoadKind};

    /// A hinged rod (body 0), a free body tumbling about a skew axis (body 1) and a body hung
    /// from the rod by a spring (body 2), on 1 ms steps.
    fn three_bodies() -> Assembly {
        let settings = AssemblySettings::with_step(Vec3::new(0.0, 0.0, -9.81), 1e-3);
        let rod = AssemblyBodyDesc::new("rod", 2.0, Vec3::new(0.17, 0.17, 0.01), Vec3::x());
        let mut free = AssemblyBodyDesc::new(
            "tumbler",
            1.5,
            Vec3::new(0.02, 0.05, 0.07),
            Vec3::new(0.0, 3.0, 1.0),
        );
        free.velocity = Vec3::new(0.3, -1.2, 2.5);
        free.angular_velocity = Vec3::new(4.0, -7.0, 11.0);
        free.orientation = Quat::from_euler_angles(0.4, -0.9, 2.2);
        let hung =
            AssemblyBodyDesc::new("hung", 1.0, Vec3::repeat(0.01), Vec3::new(2.0, 0.0, -1.0));
        let hinge = JointDesc {
            name: "hinge".into(),
            a: 0,
            b: None,
            primitive: Primitive::Revolute {
                anchor: Vec3::zeros(),
                axis: Vec3::y(),
            },
        };
        let mut asm =
            Assembly::new(settings, vec![rod, free, hung], vec![hinge]).expect("a valid assembly");
        asm.add_load(LoadDesc {
            name: "spring".into(),
            a: 2,
            b: Some(0),
            kind: LoadKind::Spring {
                point_a: Vec3::new(2.0, 0.0, -1.0),
                point_b: Vec3::new(2.0, 0.0, 0.0),
                stiffness: 50.0,
                damping: 0.5,
                rest_length: 0.8,
            },
        })
        .expect("a valid spring");
        asm
    }

    /// Locating a contact takes partial steps of a pair's bodies alone where they move on
    /// their own (`solids::closest_after`): the free body's state after a partial step of it
    /// alone is the whole assembly's, to the bit, at every fraction of a step and after
    /// several whole steps (the same RK4 of the same rates); the hinged rod and the body on
    /// its spring do not move alone.
    #[test]
    fn a_free_body_stepped_alone_reaches_the_whole_assemblys_state_to_the_bit() {
        let mut asm = three_bodies();
        assert!(!asm.moves_alone(0), "the rod is hinged");
        assert!(asm.moves_alone(1), "the tumbler is free");
        assert!(!asm.moves_alone(2), "the hung body is on a spring");
        for _ in 0..3 {
            for fraction in [1e-7, 0.25, 0.5, 0.731, 1.0] {
                let t = asm.time() + fraction * 1e-3;
                let mut whole = asm.clone();
                step::advance(&mut whole, t).expect("a step");
                let (mut alone, _) = asm.alone(&[1]).expect("the tumbler moves alone");
                step::advance(&mut alone, t).expect("a step");
                let (a, b) = (&whole.bodies[1].state, &alone.bodies[0].state);
                assert_eq!(a.position, b.position, "at {t}");
                assert_eq!(a.orientation, b.orientation, "at {t}");
                assert_eq!(a.momentum, b.momentum, "at {t}");
                assert_eq!(a.angular_momentum, b.angular_momentum, "at {t}");
            }
            let next = asm.time() + 1e-3;
            step::advance(&mut asm, next).expect("a step");
        }
        // It moved, and turned (the check compared moving states).
        assert!((asm.bodies[1].state.position - Vec3::new(0.0, 3.0, 1.0)).norm() > 1e-3);
    }

    /// The collision matrix of a free body's contact, probed on the body alone (as the contact
    /// responses now do), is the whole assembly's to the bit, and both are the rigid body's
    /// `K = m⁻¹ 𝟙 − r̃ I⁻¹ r̃` (Mirtich eq. 3.4) to 1e-12; the hinged rod's is not a free body's.
    #[test]
    fn a_free_bodys_collision_matrix_probed_alone_is_the_whole_assemblys() {
        let mut asm = three_bodies();
        let next = asm.time() + 1e-3;
        step::advance(&mut asm, next).expect("a step");
        let body = &asm.bodies[1];
        let point = body.state.position + Vec3::new(0.03, -0.02, 0.05);
        let alone = asm
            .pair_collision_matrix(Some(1), None, &point)
            .expect("a matrix");
        let whole = asm
            .probe_collision_matrix(Some(1), None, &point)
            .expect("a matrix");
        assert_eq!(alone, whole);
        let r = crate::math::cross_matrix(&(point - body.state.position));
        let inverse_inertia = world_inverse_inertia(&body.inverse_inertia, &body.state.orientation);
        let k = Mat3::identity() / body.desc.mass - r * inverse_inertia * r;
        assert!((alone - k).abs().max() < 1e-12, "{alone} against {k}");
        // Through the hinge the rod's matrix is not its free body's.
        let rod = &asm.bodies[0];
        let tip = rod.state.position + Vec3::new(0.5, 0.0, 0.0);
        let hinged = asm
            .pair_collision_matrix(Some(0), None, &tip)
            .expect("a matrix");
        let r = crate::math::cross_matrix(&(tip - rod.state.position));
        let inverse_inertia = world_inverse_inertia(&rod.inverse_inertia, &rod.state.orientation);
        let free = Mat3::identity() / rod.desc.mass - r * inverse_inertia * r;
        assert!((hinged - free).abs().max() > 0.1, "{hinged}");
    }
}
