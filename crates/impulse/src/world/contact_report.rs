//! The contact problem of a world at one instant, for users asking why a pile jams
//! (`impulse contacts`): every free body's contacts, Baraff's force LCP over them, what Lemke's
//! algorithm makes of it, and — for problems small enough to enumerate — whether the answer is
//! unique.
//!
//! The contacts are found as the constraint model finds them when it holds a pair (each touching
//! pair's contact region corners, `EventLoop::pair_contacts`), whatever the scene's contact
//! model; their friction mode is read from their slip now. The problem posed is §14.2.3's (the
//! box model of static friction at sticking contacts, dynamic friction at sliding ones), with no
//! compliance and no drift correction: the rigid problem as the thesis states it.
//! - **Consistent**: Lemke finds forces.
//! - **Inconsistent**: Lemke ends on a secondary ray (ch. 13) — no forces exist where the
//!   problem is copositive-plus (dynamic friction, the Painlevé rod) — and the ray is reported:
//!   the impulse direction the constraint model applies.
//! - **Indeterminate** (§10.1): more than one solution, with different accelerations (the rod of
//!   Fig. 10.2). Several solutions with the same accelerations (the chair on four legs) leave the
//!   motion determinate: reported as such.

use nalgebra::{DMatrix, DVector};

use super::SimulationError;
use super::World;
use super::colliders::Participants;
use super::event_loop::EventLoop;
use super::materials::MaterialTable;
use crate::collision::{NarrowStats, PairCache, closest};
use crate::contact::constraint::held::Side;
use crate::lcp::contact::{ContactBody as LcpBody, ContactPoint as LcpPoint, ContactSystem};
use crate::lcp::enumerate::{MAX_ENUMERATED, basic_solutions};
use crate::lcp::lemke::{LemkeOptions, Outcome};
use crate::math::{Point, Vec3};

/// One contact of the problem.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportedContact {
    /// The two bodies (the normal points from `b` towards `a`).
    pub a: String,
    /// Body B (or a fixed body).
    pub b: String,
    /// The contact point and unit normal (world).
    pub point: Point,
    /// Unit normal from B towards A.
    pub normal: Vec3,
    /// The gap between the surfaces there (negative: overlap).
    pub gap: f64,
    /// The normal velocity `ḋ` (negative: approaching).
    pub normal_velocity: f64,
    /// The slip speed and whether the contact slides (dynamic friction) or sticks.
    pub slip: f64,
    /// Whether it slides.
    pub sliding: bool,
    /// Coefficient of friction.
    pub friction: f64,
}

/// What the contact problem is.
#[derive(Clone, Debug, PartialEq)]
pub enum Consistency {
    /// No contacts.
    Empty,
    /// Forces exist and give one motion (several force solutions may give it: `solutions`).
    Consistent,
    /// Several solutions with different accelerations (Baraff §10.1).
    Indeterminate,
    /// No forces: Lemke ended on a secondary ray (Baraff ch. 13).
    Inconsistent,
    /// Lemke stopped without an answer (a pivot limit or a numerical breakdown).
    Unsolved,
}

/// The contact problem of a world at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactReport {
    /// The world's time.
    pub time: f64,
    /// The contacts.
    pub contacts: Vec<ReportedContact>,
    /// The LCP `w = M z + q` (Baraff §14.2.3's model; `q` is his `−b`), and what each unknown
    /// is (`"3 f_N"`, `"3 β_x+"`, …, by contact index).
    pub matrix: DMatrix<f64>,
    /// `q`.
    pub vector: DVector<f64>,
    /// The unknowns' names.
    pub unknowns: Vec<String>,
    /// What the problem is.
    pub consistency: Consistency,
    /// Lemke's answer: the contact forces on each contact's A (world), if it found some.
    pub forces: Option<Vec<Vec3>>,
    /// On a ray: the impulse direction per contact (world, on A), scaled to a largest of 1.
    pub ray: Option<Vec<Vec3>>,
    /// Lemke's pivots.
    pub pivots: usize,
    /// The number of distinct basic solutions, when the problem was small enough to enumerate
    /// (at most 16 unknowns).
    pub solutions: Option<usize>,
}

impl World {
    /// The contact problem of the bodies now (see the module documentation): every pair of a
    /// free body with a body (free or fixed) within the collision envelope, its contacts, and
    /// Baraff's force LCP over them, solved. Multibody links are left out (their contacts are
    /// answered by impulses under every model).
    pub fn contact_report(&mut self) -> Result<ContactReport, SimulationError> {
        if !self.collisions.started() {
            let now = self.time;
            self.advance_to(now)?;
        }
        let table = MaterialTable::new(
            &self.bodies,
            &self.multibodies,
            &self.pair_materials,
            &self.material_pairs,
        );
        let world = Participants {
            bodies: &mut self.bodies,
            multibodies: &mut self.multibodies,
            observations: &mut self.observations,
            settings: &self.settings,
            materials: &table,
            groups: &mut self.groups,
            interrupt: self.interrupt,
            energy_ceiling: None,
        };
        let problem = self.collisions.contact_problem(&world);
        let sliding_speed = EventLoop::holding(&world).sliding_speed;
        Ok(report(self.time, &problem, sliding_speed))
    }
}

impl EventLoop {
    /// Every free body touching another body (within the envelope) as an LCP body, and their
    /// contacts, with the two bodies' names per contact.
    fn contact_problem(&mut self, world: &Participants<'_>) -> Problem {
        let epsilon = world.settings.collision_epsilon;
        let n = self.colliders.len();
        let mut members: Vec<usize> = Vec::new();
        let mut found = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if !(self.holdable(i, world) && self.holdable(j, world))
                    || !(self.colliders.free_body(i, world) || self.colliders.free_body(j, world))
                {
                    continue;
                }
                let (pi, pj) = (self.colliders.pose(i, world), self.colliders.pose(j, world));
                let Some(contact) = closest(
                    &self.colliders.models[i],
                    &pi,
                    &self.colliders.models[j],
                    &pj,
                    &mut PairCache::default(),
                    &mut NarrowStats::default(),
                ) else {
                    continue;
                };
                if contact.distance >= epsilon {
                    continue;
                }
                for c in [i, j] {
                    if self.colliders.free_body(c, world) && !members.contains(&c) {
                        members.push(c);
                    }
                }
                found.push(((i, j), contact));
            }
        }
        let side = |c: usize| {
            members
                .iter()
                .position(|&m| m == c)
                .map_or(Side::Fixed, Side::Member)
        };
        let mut names = Vec::new();
        let mut points = Vec::new();
        let motions: Vec<_> = members.iter().map(|&c| self.motion(c, world)).collect();
        let fixed = crate::contact::constraint::held::Motion::FIXED;
        let at = |s: Side| match s {
            Side::Member(k) => motions[k],
            Side::Fixed => fixed,
        };
        for (p, contact) in found {
            let Some(held) = self.pair_contacts(p, &contact, (side(p.0), side(p.1)), world) else {
                continue;
            };
            for c in held {
                let k = c.kinematics(&at(c.a), &at(c.b));
                names.push((
                    self.colliders.name(c.pair.0, world),
                    self.colliders.name(c.pair.1, world),
                ));
                let mut point = c.lcp_point(&k);
                point.slip_damping = 0.0;
                points.push((point, k.gap, k.gap_rate));
            }
        }
        let bodies = members
            .iter()
            .zip(&motions)
            .map(|(&c, m)| {
                let member = self.member(c, world);
                let body = &world.bodies[member.body.0];
                LcpBody {
                    inverse_mass: member.inverse_mass,
                    inverse_inertia: body.inverse_inertia_world(),
                    center_of_mass: Point::from(m.position),
                    velocity: m.velocity,
                    angular_velocity: m.angular_velocity,
                    force: member.force,
                    torque: member.torque,
                }
            })
            .collect();
        let (points, gaps): (Vec<LcpPoint>, Vec<(f64, f64)>) =
            points.into_iter().map(|(p, g, r)| (p, (g, r))).unzip();
        Problem {
            names,
            bodies,
            points,
            gaps,
        }
    }
}

/// The contact problem gathered from a world.
struct Problem {
    /// The two bodies' names per contact.
    names: Vec<(String, String)>,
    bodies: Vec<LcpBody>,
    points: Vec<LcpPoint>,
    /// Gap and its rate per contact.
    gaps: Vec<(f64, f64)>,
}

/// The names of a box contact's seven unknowns (`lcp::contact`'s layout).
const BOX_UNKNOWNS: [&str; 7] = ["f_N", "β_x+", "β_x-", "λ_x", "β_y+", "β_y-", "λ_y"];

/// Poses and solves the problem (see the module documentation).
fn report(time: f64, problem: &Problem, sliding_speed: f64) -> ContactReport {
    let mut out = ContactReport {
        time,
        contacts: Vec::new(),
        matrix: DMatrix::zeros(0, 0),
        vector: DVector::zeros(0),
        unknowns: Vec::new(),
        consistency: Consistency::Empty,
        forces: None,
        ray: None,
        pivots: 0,
        solutions: None,
    };
    if problem.points.is_empty() {
        return out;
    }
    let Ok(system) = ContactSystem::new(&problem.bodies, &problem.points, sliding_speed) else {
        out.consistency = Consistency::Unsolved;
        return out;
    };
    for (i, (point, ((a, b), (gap, rate)))) in problem
        .points
        .iter()
        .zip(problem.names.iter().zip(&problem.gaps))
        .enumerate()
    {
        let v = system.velocities()[i];
        out.contacts.push(ReportedContact {
            a: a.clone(),
            b: b.clone(),
            point: point.point,
            normal: point.normal,
            gap: *gap,
            normal_velocity: *rate,
            slip: v.y.hypot(v.z),
            sliding: system.is_sliding(i),
            friction: point.friction,
        });
    }
    let lcp = system.static_friction();
    let size = lcp.vector.len();
    for i in 0..lcp.contacts() {
        let end = if i + 1 < lcp.contacts() {
            lcp.normal_index(i + 1)
        } else {
            size
        };
        match end - lcp.normal_index(i) {
            7 => out
                .unknowns
                .extend(BOX_UNKNOWNS.iter().map(|u| format!("{i} {u}"))),
            _ if lcp.is_dynamic(i) => out.unknowns.push(format!("{i} f_N (sliding)")),
            _ => out.unknowns.push(format!("{i} f_N")),
        }
    }
    out.consistency = match lcp.solve(None, &LemkeOptions::default()) {
        Ok(Outcome::Solution(s)) => {
            out.pivots = s.pivots;
            out.forces = Some(lcp.contact_forces(&s.z));
            Consistency::Consistent
        }
        Ok(Outcome::Ray(ray)) => {
            out.pivots = ray.pivots;
            out.ray = Some(lcp.contact_forces(&ray.direction));
            Consistency::Inconsistent
        }
        Ok(Outcome::PivotLimit { pivots } | Outcome::Singular { pivots }) => {
            out.pivots = pivots;
            Consistency::Unsolved
        }
        Err(_) => Consistency::Unsolved,
    };
    if size <= MAX_ENUMERATED
        && let Ok(all) = basic_solutions(&lcp.matrix, &lcp.vector, ENUMERATION_TOLERANCE)
    {
        out.solutions = Some(all.len());
        // Solutions that move the bodies differently: the accelerations at the contacts differ.
        let accelerations: Vec<Vec<Vec3>> = all
            .iter()
            .map(|s| system.accelerations(&lcp.contact_forces(&s.z)))
            .collect();
        let scale = accelerations
            .iter()
            .flatten()
            .map(|a| a.amax())
            .fold(lcp.vector.amax(), f64::max);
        let differ = accelerations.iter().skip(1).any(|a| {
            a.iter()
                .zip(&accelerations[0])
                .any(|(x, y)| (x - y).amax() > ENUMERATION_TOLERANCE * scale.max(1.0))
        });
        if differ && out.consistency == Consistency::Consistent {
            out.consistency = Consistency::Indeterminate;
        }
    }
    out.matrix = lcp.matrix;
    out.vector = lcp.vector;
    out
}

/// Relative accuracy of enumerated solutions, and how far their accelerations may differ and
/// still be one motion.
const ENUMERATION_TOLERANCE: f64 = 1e-9;
