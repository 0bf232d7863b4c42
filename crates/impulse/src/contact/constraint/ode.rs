//! The group's equations of motion: the state derivative with the contact forces of the
//! contact problem at each evaluation (Baraff's loop, Fig. 3.1) — the sticking problem
//! (`lcp::sticking`) where every non-sliding contact can stick, §14.2.3's box model where one
//! must slip, spring–dampers under the penalty model — and the check, at a step's end, that the
//! contact mode the step held still gives valid forces.

use std::cell::RefCell;

use super::*;
use crate::lcp::mixed::MixedLcp;

/// The group's equations of motion, with the contact forces of the LCP at each evaluation.
pub(super) struct GroupOde<'a> {
    model: &'a GroupModel,
    warm: &'a RefCell<Option<Mode>>,
    counters: &'a RefCell<GroupCounters>,
    /// Set when an evaluation found no valid forces.
    pub(super) trouble: RefCell<Option<f64>>,
    /// Whether the forces come from the basis in `warm` as it stands (within a step: one linear
    /// solve), or from Lemke's algorithm warm-started from it (at a step's start).
    frozen: bool,
}

pub(super) fn group_ode<'a>(
    model: &'a GroupModel,
    warm: &'a RefCell<Option<Mode>>,
    counters: &'a RefCell<GroupCounters>,
    frozen: bool,
) -> GroupOde<'a> {
    GroupOde {
        model,
        warm,
        counters,
        trouble: RefCell::new(None),
        frozen,
    }
}

impl GroupOde<'_> {
    /// The contact problem at state `y`: the members as LCP bodies (fixed sides are `None`),
    /// and each held contact as a point with its drift correction.
    pub(super) fn problem(&self, y: &[f64]) -> (Vec<LcpBody>, Vec<LcpPoint>) {
        let group = self.model;
        let motions = motions(y, group.members.len());
        let bodies: Vec<LcpBody> = group
            .members
            .iter()
            .zip(&motions)
            .map(|(m, s)| LcpBody {
                inverse_mass: m.inverse_mass,
                inverse_inertia: world_inverse_inertia(&m.principal_inertia, s),
                center_of_mass: s.position.into(),
                velocity: s.velocity,
                angular_velocity: s.angular_velocity,
                force: m.force,
                torque: m.torque,
            })
            .collect();
        let omega = group.holding.stiffness;
        let points = group
            .contacts
            .iter()
            .map(|c| {
                let k = c.kinematics(&side_motion(&motions, c.a), &side_motion(&motions, c.b));
                let mut point = c.lcp_point(&k);
                // d̈ = −2ω ḋ − ω² (d − d*) while the contact pushes: critically damped to the
                // held gap d*.
                point.bias = 2.0 * omega * k.gap_rate + omega * omega * (k.gap - group.holding.gap);
                point.slip_damping = SLIP_RATE;
                point.sliding = Some(c.sliding);
                point.tangent = Some(k.tangent);
                // A fast slip's friction opposes the slip of the instant; a slow one's, the
                // direction held from the step's start (`update_modes`).
                let speed = c
                    .slip(&side_motion(&motions, c.a), &side_motion(&motions, c.b))
                    .norm();
                point.slip_direction = (c.sliding
                    && holds_direction(speed, group.holding.sliding_speed))
                .then_some(c.slip_direction);
                point
            })
            .collect();
        (bodies, points)
    }

    /// §14.2.3's box model of `system`: static friction at sticking contacts, dynamic at
    /// sliding ones, with the contacts' compliance ([`COMPLIANCE`]).
    pub(super) fn box_lcp(&self, system: &ContactSystem) -> Option<ContactLcp> {
        with_compliance(system.static_friction())
    }

    /// The contact forces (on each point's A, world) at state `y`: from the sticking problem
    /// when its friction stays in the cones (the usual case of a resting pile), else from the
    /// box model.
    pub(super) fn contact_forces(&self, bodies: &[LcpBody], points: &[LcpPoint], t: f64) -> Vec<Vec3> {
        let zero = || vec![Vec3::zeros(); points.len()];
        if points.is_empty() {
            return zero();
        }
        let Ok(system) = ContactSystem::new(bodies, points, self.model.holding.sliding_speed)
        else {
            *self.trouble.borrow_mut() = Some(t);
            return zero();
        };
        self.counters.borrow_mut().solves += 1;
        let warm = self.warm.borrow().clone();
        if self.frozen {
            // Within a step: the mode it started with, by one linear solve.
            let frozen = match &warm {
                Some(Mode::Sticking(basis, released)) => sticking_lcp(&system, released).and_then(|lcp| {
                    let z = basis_solution(&lcp.matrix, &lcp.vector, basis)?;
                    Some(lcp.contact_forces(&z))
                }),
                Some(Mode::Box(basis)) => self.box_lcp(&system).and_then(|lcp| {
                    let z = basis_solution(&lcp.matrix, &lcp.vector, basis)?;
                    Some(lcp.contact_forces(&z))
                }),
                Some(Mode::Mixed(basis, boxed)) => mixed_lcp(&system, boxed)
                    .and_then(|mixed| {
                        let z = basis_solution(&mixed.lcp.matrix, &mixed.lcp.vector, basis)?;
                        Some(mixed.contact_forces(&z))
                    }),
                None => None,
            };
            if let Some(forces) = frozen {
                self.counters.borrow_mut().warm_solves += 1;
                return forces;
            }
        }
        let options = LemkeOptions {
            tolerance: LEMKE_TOLERANCE,
            ..LemkeOptions::default()
        };
        let consistent = |z: &nalgebra::DVector<f64>, delta: f64, q: &nalgebra::DVector<f64>| {
            delta * z.amax() <= INCONSISTENT * q.amax()
        };
        // Every contact that does not slide sticks: Lemke on the normal forces alone.
        let sticking_basis = match &warm {
            Some(Mode::Sticking(basis, _)) => Some(basis),
            _ => None,
        };
        if let Some((lcp, s, released)) = solve_sticking(&system, sticking_basis, &options) {
            if s.start == Start::Warm {
                self.counters.borrow_mut().warm_solves += 1;
            }
            *self.warm.borrow_mut() = Some(Mode::Sticking(s.basis, released));
            return lcp.contact_forces(&s.z);
        }
        // Some contacts must slip (or let go while holding): §14.2.3's box model at those,
        // the others sticking (`lcp::mixed`), from the contacts the flight boxed if it did.
        let mixed_warm = match &warm {
            Some(Mode::Mixed(basis, boxed)) => Some((basis, boxed)),
            _ => None,
        };
        if let Some((mixed, s, boxed)) = solve_mixed(&system, mixed_warm, &options) {
            if s.start == Start::Warm {
                self.counters.borrow_mut().warm_solves += 1;
            }
            *self.warm.borrow_mut() = Some(Mode::Mixed(s.basis, boxed));
            return mixed.contact_forces(&s.z);
        }
        // The box model over every contact.
        let Some(lcp) = self.box_lcp(&system) else {
            *self.trouble.borrow_mut() = Some(t);
            return zero();
        };
        let basis = match &warm {
            Some(Mode::Box(basis)) if basis.len() == lcp.vector.len() => Some(basis),
            _ => None,
        };
        let delta = COMPLIANCE * lcp.matrix.amax();
        match lcp.solve(basis, &options) {
            Ok(Outcome::Solution(s)) if consistent(&s.z, delta, &lcp.vector) => {
                if s.start == Start::Warm {
                    self.counters.borrow_mut().warm_solves += 1;
                }
                *self.warm.borrow_mut() = Some(Mode::Box(s.basis.clone()));
                lcp.contact_forces(&s.z)
            }
            // No forces without the compliance (a Painlevé configuration), or no answer at all
            // (a pivot limit, a singular basis): the step is dropped and the configuration
            // answered by impulses (`answer_inconsistency`).
            _ => {
                *self.trouble.borrow_mut() = Some(t);
                zero()
            }
        }
    }

    /// Whether the mode in `warm` still gives valid forces at state `y` (to
    /// [`BASIS_TOLERANCE`], and for sticking, friction inside the cones): the contact mode a
    /// step held is still the right one at its end.
    pub(super) fn basis_holds(&self, y: &[f64]) -> bool {
        let Some(mode) = self.warm.borrow().clone() else {
            return true;
        };
        let (bodies, points) = self.problem(y);
        if points.is_empty() {
            return true;
        }
        let Ok(system) = ContactSystem::new(&bodies, &points, self.model.holding.sliding_speed)
        else {
            return false;
        };
        let valid = |m: &nalgebra::DMatrix<f64>, q: &nalgebra::DVector<f64>, basis: &Basis| {
            basis_solution(m, q, basis)
                .filter(|z| check_solution(m, q, z, BASIS_TOLERANCE).is_ok())
        };
        match mode {
            Mode::Sticking(basis, released) => sticking_lcp(&system, &released).is_some_and(|lcp| {
                valid(&lcp.matrix, &lcp.vector, &basis)
                    .is_some_and(|z| lcp.within_cones(&z, CONE_TOLERANCE))
            }),
            Mode::Box(basis) => self
                .box_lcp(&system)
                .is_some_and(|lcp| valid(&lcp.matrix, &lcp.vector, &basis).is_some()),
            Mode::Mixed(basis, boxed) => {
                mixed_lcp(&system, &boxed).is_some_and(|mixed| {
                    valid(&mixed.lcp.matrix, &mixed.lcp.vector, &basis)
                        .is_some_and(|z| mixed.outside_cones(&z, CONE_TOLERANCE).is_empty())
                })
            }
        }
    }
}

/// `lcp` with the contacts' compliance ([`COMPLIANCE`] of its largest entry) on its diagonal:
/// all of it on the normal and λ rows, [`TANGENT_COMPLIANCE`] of it on a box contact's
/// friction rows β (a sticking contact creeps at δ β over the slip correction's rate).
fn with_compliance(mut lcp: ContactLcp) -> Option<ContactLcp> {
    let delta = COMPLIANCE * lcp.matrix.amax();
    if !delta.is_finite() {
        return None;
    }
    let n = lcp.matrix.nrows();
    for i in 0..lcp.contacts() {
        let first = lcp.normal_index(i);
        let rows = if i + 1 < lcp.contacts() {
            lcp.normal_index(i + 1)
        } else {
            n
        } - first;
        for r in 0..rows {
            // A box contact's rows: f_N, β_x⁺, β_x⁻, λ_x, β_y⁺, β_y⁻, λ_y.
            let tangential = rows == 7 && matches!(r, 1 | 2 | 4 | 5);
            lcp.matrix[(first + r, first + r)] +=
                if tangential { TANGENT_COMPLIANCE * delta } else { delta };
        }
    }
    Some(lcp)
}

/// The sticking problem of `system` ([`StickingLcp`]), with the group's compliances; the
/// contacts `released` hold no friction.
fn sticking_lcp(system: &ContactSystem, released: &[bool]) -> Option<StickingLcp> {
    StickingLcp::new(system, COMPLIANCE, TANGENT_COMPLIANCE * COMPLIANCE, released)
}

/// Solves the sticking problem of `system` by Lemke (warm from `basis`), releasing the held
/// contacts that push nothing and solving again (they hold no friction), and returns it with
/// its solution when that solution is valid for the box model too: consistent, and friction
/// in every cone.
fn solve_sticking(
    system: &ContactSystem,
    basis: Option<&Basis>,
    options: &LemkeOptions,
) -> Option<(StickingLcp, crate::lcp::lemke::Solution, Vec<bool>)> {
    let mut released = vec![false; system.len()];
    for _ in 0..RELEASE_ROUNDS {
        let lcp = sticking_lcp(system, &released)?;
        let basis = basis.filter(|b| b.len() == lcp.vector.len());
        let Ok(Outcome::Solution(s)) =
            crate::lcp::lemke::solve(&lcp.matrix, &lcp.vector, basis, options)
        else {
            return None;
        };
        if lcp.compliance * s.z.amax() > INCONSISTENT * lcp.vector.amax() {
            return None;
        }
        if lcp.within_cones(&s.z, CONE_TOLERANCE) {
            return Some((lcp, s, released));
        }
        let idle = lcp.idle(&s.z);
        if !idle.iter().zip(&released).any(|(i, r)| *i && !r) {
            return None;
        }
        for (r, i) in released.iter_mut().zip(idle) {
            *r |= i;
        }
    }
    None
}

/// The partly boxed problem of `system` ([`MixedLcp`]) with the group's compliances.
fn mixed_lcp(system: &ContactSystem, boxed: &[bool]) -> Option<MixedLcp> {
    let mut mixed = MixedLcp::new(system, TANGENT_COMPLIANCE * COMPLIANCE, boxed)?;
    mixed.lcp = with_compliance(mixed.lcp)?;
    Some(mixed)
}

/// Solves the partly boxed problem of `system` by Lemke, from the flight's sets and basis
/// (`warm`) if it has them, else from none boxed: each round boxes the sticking contacts whose
/// friction left its cone and solves again. Returns it with its solution and boxed set once
/// every sticking contact's friction is in its cone and the answer is consistent; `None` when
/// Lemke finds none (the caller then poses the whole box model).
fn solve_mixed(
    system: &ContactSystem,
    warm: Option<(&Basis, &Vec<bool>)>,
    options: &LemkeOptions,
) -> Option<(MixedLcp, crate::lcp::lemke::Solution, Vec<bool>)> {
    let n = system.len();
    let (mut boxed, mut basis) = match warm {
        Some((basis, boxed)) if boxed.len() == n => (boxed.clone(), Some(basis)),
        _ => (vec![false; n], None),
    };
    for _ in 0..=n {
        let mixed = mixed_lcp(system, &boxed)?;
        let start = basis.take().filter(|b| b.len() == mixed.lcp.vector.len());
        let Ok(Outcome::Solution(s)) = mixed.lcp.solve(start, options) else {
            return None;
        };
        let delta = COMPLIANCE * mixed.lcp.matrix.amax();
        if delta * s.z.amax() > INCONSISTENT * mixed.lcp.vector.amax() {
            return None;
        }
        let outside = mixed.outside_cones(&s.z, CONE_TOLERANCE);
        if outside.is_empty() {
            return Some((mixed, s, boxed));
        }
        // Boxed, even where it pushes nothing: with its friction eliminated, a contact's
        // friction is not bound to its normal force, and a solution may lean on friction at
        // a contact that pushes nothing (the leaning plank's wall). Released, it would hold no
        // friction at all where the box model finds it pushing.
        for i in outside {
            boxed[i] = true;
        }
    }
    None
}

/// Rounds of releasing idle contacts before the box model is asked instead.
const RELEASE_ROUNDS: usize = 3;

/// How far a sticking contact's friction may pass its cone (relative) and still be taken as
/// static friction: rounding, not a real excess.
const CONE_TOLERANCE: f64 = 1e-9;

/// The contact mode a flight holds: Lemke's basis, of the sticking problem (with the contacts
/// it released) or of the box model's.
#[derive(Clone, Debug, PartialEq)]
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) enum Mode {
    Sticking(Basis, Vec<bool>),
    Box(Basis),
    /// The partly boxed problem's (`lcp::mixed`), with the contacts it poses in the box model.
    Mixed(Basis, Vec<bool>),
}

impl OdeSystem for GroupOde<'_> {
    fn dimension(&self) -> usize {
        PER_MEMBER * self.model.members.len()
    }

    fn derivative(&self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let mut y = y.to_vec();
        normalize(&mut y);
        let (bodies, points) = self.problem(&y);
        let forces = match &self.model.holding.penalty {
            Some(law) => {
                self.counters.borrow_mut().solves += 1;
                penalty::forces(self.model, law, &y)
            }
            None => self.contact_forces(&bodies, &points, t),
        };
        let wrenches = body_wrenches(&bodies, &points, &forces);
        for (k, (member, (body, (force, torque)))) in self
            .model
            .members
            .iter()
            .zip(bodies.iter().zip(wrenches))
            .enumerate()
        {
            let s = state_of(&y, k);
            let base = PER_MEMBER * k;
            let w = s.angular_velocity;
            // I ω in the world frame, for the gyroscopic term.
            let w_body = s.orientation.inverse() * w;
            let momentum = s.orientation * member.principal_inertia.component_mul(&w_body);
            let acceleration = (member.force + force) * member.inverse_mass;
            let angular =
                body.inverse_inertia * (member.torque + torque - w.cross(&momentum));
            let q = s.orientation.quaternion();
            let omega_q = nalgebra::Quaternion::from_imag(w) * q * 0.5;
            dydt[base..base + 3].copy_from_slice(s.velocity.as_slice());
            dydt[base + 3] = omega_q.w;
            dydt[base + 4] = omega_q.i;
            dydt[base + 5] = omega_q.j;
            dydt[base + 6] = omega_q.k;
            dydt[base + 7..base + 10].copy_from_slice(acceleration.as_slice());
            dydt[base + 10..base + 13].copy_from_slice(angular.as_slice());
        }
    }

    fn project(&self, y: &mut [f64]) -> bool {
        normalize(y);
        true
    }
}

