//! The response phase: a pair in contact and approaching is answered by the contact model.
//! Under the impulse model (Mirtich ch. 3) that is a simultaneous cluster solve where it
//! applies ([`super::clusters`]), else one frictional collision or microcollision integrated
//! in the normal impulse (`response::respond`); same-instant cascades of such single
//! responses are bounded here.

use super::colliders::{Colliders, Participants};
use super::energy::ReboundBudget;
use super::event_loop::EventLoop;
use super::{CollisionEvent, ContactModel, SimulationError};
use crate::collision::Closest;
use crate::collision::broad::{FastMap, Pair};
use crate::math::{Mat3, Point, orthonormal_basis};
use crate::response::cascade::{WedgeSeries, extrapolate};
use crate::response::{Microcollisions, ResponseKind, Settling, respond};

/// Who was hit at the current instant, for cascades.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Responses {
    /// Per collider, when it last took an impulse (dynamic colliders only).
    pub(super) hit_at: Vec<f64>,
    /// How many impulses it took at that instant.
    pub(super) hits_now: Vec<u32>,
    /// Responses at the current instant, to stop a cascade that would never end.
    pub(super) instant: (f64, u64),
    /// Per pair in an inelastic sweep at the current instant: its normal impulses so far.
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) wedges: FastMap<Pair, WedgeSeries>,
    /// What microcollisions may still add to a closed world's energy (not saved: measured
    /// afresh at a resumed run's first request).
    #[serde(skip)]
    pub(super) rebound_budget: ReboundBudget,
    /// Per collider, the energy a free body may reach by free floors (see
    /// [`EventLoop::free_floor_for`]); `None` until its first response.
    pub(super) rest_ceilings: Vec<Option<f64>>,
}

impl Responses {
    pub(super) fn new() -> Self {
        Self {
            hit_at: Vec::new(),
            hits_now: Vec::new(),
            instant: (f64::NAN, 0),
            wedges: FastMap::default(),
            rebound_budget: ReboundBudget::default(),
            rest_ceilings: Vec::new(),
        }
    }
}

impl EventLoop {
    /// Answers pair `p`, found within the envelope and approaching at `t`, by the world's
    /// contact model.
    pub(super) fn respond(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        match world.settings.contact_model {
            // Mirtich ch. 3: a microcollision among resting free bodies is answered with the
            // contacts around it by one simultaneous solve where it can be (see
            // `collide_cluster`); everything else by one frictional collision.
            // Paradigm switching: the same, and a resting cluster the solve finds at rest and
            // able to carry its weight is held by contact forces instead (`hold_cluster`).
            ContactModel::Impulse | ContactModel::Switching => {
                if !self.collide_cluster(p, t, contact, world)? {
                    self.collide(p, t, contact, world)?;
                }
            }
            // Baraff: collisions by one simultaneous solve, resting contacts held by forces.
            // Baraff ch. 7: the same, with the contacts held by springs (`super::penalty`).
            ContactModel::Constraint | ContactModel::Penalty => {
                self.respond_constraint(p, t, contact, world)?
            }
        }
        Ok(())
    }

    /// Applies the single frictional collision impulse (or microcollision, §3.5) between the
    /// colliders of pair `p` at time `t`.
    pub(super) fn collide(
        &mut self,
        p: Pair,
        t: f64,
        contact: &Closest,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let (a, b) = p;
        // Stop a cascade of responses that never ends at one instant.
        let responses = self.respond_at(t);
        if responses > 10_000 + 1_000 * self.colliders.len() as u64 {
            return Err(SimulationError::NoProgress {
                bodies: (self.colliders.name(a, world), self.colliders.name(b, world)),
                time: t,
                responses,
                epsilon: world.settings.collision_epsilon,
            });
        }
        let settings = world.settings;
        let point = contact.contact_point();
        // Collision frame: z along the normal (from b to a), tangents completing it (§3.2).
        let (t1, t2) = orthonormal_basis(&contact.normal);
        let frame = Mat3::from_columns(&[t1, t2, contact.normal]);
        // K = K_a + K_b (eq. 5.2): each the rigid body's (eq. 3.4) or the link's (§5.3.3),
        // with body a taking the impulse at `at.0` and body b at `at.1`; u, the relative
        // velocity of those points.
        let collision_frame =
            |colliders: &Colliders, at: (&Point, &Point), world: &Participants<'_>| {
                let k_world = colliders.collision_matrix(a, at.0, world)
                    + colliders.collision_matrix(b, at.1, world);
                let u = colliders.point_velocity(a, at.0, world)
                    - colliders.point_velocity(b, at.1, world);
                (frame.transpose() * k_world * frame, frame.transpose() * u)
            };
        let (mut k, mut u) = collision_frame(&self.colliders, (&point, &point), world);
        let material = world
            .materials
            .between(self.colliders.kind(a), self.colliders.kind(b));
        // Cascades at one instant (an impulse elsewhere on a body made this contact approach:
        // a ball wedged under a mallet, a domino on the table leaning on its neighbour, a ball
        // in a slot narrower than the envelope) are Gauss–Seidel sweeps towards a state where
        // no contact of the cluster approaches. Their responses get no boosted restitution: a
        // boost multiplies each contact's approach into the next one's, and round a wedge the
        // products grow without end. They keep the rebound, a fixed speed, so that a cluster
        // that can separate leaves on a flight instead of at rest, approaching again at once
        // (the triple pendulum's wedged ball was hit every 2 µs, then every few ns). Once
        // either body has been hit CASCADE_REBOUNDS times at this instant, the responses are
        // plain inelastic collisions, which cannot pump and always converge: where nothing
        // can separate (a ball between two fixed walls), reversals and rebounds would
        // ping-pong for ever. See docs/sources.md, "Cascades".
        let hits = |c: usize| {
            if self.responses.hit_at[c] == t {
                self.responses.hits_now[c]
            } else {
                0
            }
        };
        let cascade = hits(a) > 0 || hits(b) > 0;
        let inelastic = hits(a).max(hits(b)) >= CASCADE_REBOUNDS;
        // A cascade that has gone that far is answered at once where it can be: one
        // inelastic solve over every contact of the bodies it reached.
        if inelastic && self.collide_impact(p, t, contact, -u.z, world)? {
            return Ok(());
        }
        let restitution = if inelastic { 0.0 } else { material.restitution };
        let gravity = settings.gravity.norm();
        // A curved body rolling on a support that impulses do not move (the floor, a fixed
        // track) takes its microcollisions where the two surfaces touch, not midway across
        // the gap: the settled slip is reckoned there (`settled_slip`), and friction's lever
        // must be the radius the body rolls on. Midway, δ (up to ε/2) beyond a ball's surface,
        // the lever was R + δ, and each hop's friction impulse did work at that point's slip,
        // which differs from the surface's by ω δ: a ball rolling down a 10° slope gained
        // 8.5e-4 J in 1.5 s, δ/R = 2.5e-3 of its rotational energy, and the soak's rattleback
        // rose 158 erg above its start. The normal velocity is the same at both points (they
        // lie on the normal).
        // Between two free bodies the midpoint stays, where the pair's impulses form no
        // couple and angular momentum is conserved (`Closest::contact_point`); so it does for
        // a multibody's links (with the surface point, scenes/models/arm.toml's wrist,
        // hitting its fixed cylindrical pedestal, stopped at 2.24 s on a link integration
        // whose step size underflowed).
        let rolls_on_support = settings.microcollisions
            && gravity > 0.0
            && !inelastic
            && settings.settles_slip()
            && -u.z < settings.threshold_speed()
            && ((self.colliders.free_body(a, world) && !self.colliders.dynamic(b, world))
                || (self.colliders.free_body(b, world) && !self.colliders.dynamic(a, world)))
            && (self.colliders.curved(a, contact.parts.0)
                || self.colliders.curved(b, contact.parts.1));
        let (point_a, point_b) = if rolls_on_support {
            let at = (contact.point_a, contact.point_b);
            (k, u) = collision_frame(&self.colliders, (&at.0, &at.1), world);
            at
        } else {
            (point, point)
        };
        let micro = (settings.microcollisions && gravity > 0.0 && !inelastic).then(|| {
            // The rebound stands in for gravity's pull over the flight to come.
            Microcollisions {
                threshold_speed: settings.threshold_speed(),
                epsilon: settings.collision_epsilon,
                max_restitution: if cascade {
                    material.restitution
                } else {
                    settings.microcollision_max_restitution
                },
                rebound_speed: settings.rebound_speed(false, &contact.normal, contact.distance),
                // A curved body rolls: its contact settles (see `settled_slip`). A polyhedron
                // pivots on its corners, and the thesis's reversed slip is what stopped a
                // faceted coin rolling on its rim (docs/sources.md, "Slip at rest").
                settling: (settings.settles_slip()
                    && (self.colliders.curved(a, contact.parts.0)
                        || self.colliders.curved(b, contact.parts.1)))
                .then(|| {
                    let pull = self.colliders.flight_acceleration(a, world)?
                        - self.colliders.flight_acceleration(b, world)?;
                    let surface_velocity =
                        self.colliders.point_velocity(a, &contact.point_a, world)
                            - self.colliders.point_velocity(b, &contact.point_b, world);
                    Some(Settling {
                        pull: frame.transpose() * pull,
                        surface_velocity: frame.transpose() * surface_velocity,
                    })
                })
                .flatten(),
            }
        });
        let answer = |micro: Option<&Microcollisions>| {
            respond(
                &k,
                &u,
                material.friction,
                restitution,
                settings.restitution_law,
                contact.distance,
                micro,
            )
        };
        let (mut outcome, mut kind) = answer(micro.as_ref());
        // The rebound floor and the boosted restitution add energy, which a closed world's
        // contacts must have taken out first (`ReboundBudget`); where they have not, the
        // microcollision is the reversal without the floor, or a collision at a restitution of
        // at most 1 (but for the settled slip's work, see `settled_slip`). Not where the
        // contact has come down to the surface (`free_floor`): a body set down at rest on its
        // support must hop.
        let floored = matches!(
            kind,
            ResponseKind::Reversal | ResponseKind::PartialReversal | ResponseKind::Boosted
        );
        let in_band = free_floor(contact.distance, settings.collision_epsilon);
        let free = self.free_floor_for(
            [a, b].into_iter(),
            in_band.then_some(contact.distance),
            outcome.work,
            world,
        );
        if let Some(micro) = micro
            && floored
            && !free
            && !self.responses.rebound_budget.grant(outcome.work, world)
        {
            let plain = Microcollisions {
                // (Still out of an overlap: from below the surface a body has lost more than
                // the rise gives back.)
                rebound_speed: settings.rise_speed(&contact.normal, contact.distance),
                max_restitution: micro.max_restitution.min(1.0),
                ..micro
            };
            (outcome, kind) = answer(Some(&plain));
        }
        if self.responses.hit_at[a] == t || self.responses.hit_at[b] == t {
            self.counters.cascade_responses += 1;
        }
        self.counters.collision_integration_steps += u64::from(outcome.steps);
        if outcome.out_of_steps {
            let singular = k.singular_values();
            return Err(SimulationError::StiffCollision {
                bodies: (self.colliders.name(a, world), self.colliders.name(b, world)),
                time: t,
                steps: u64::from(outcome.steps),
                condition: singular.max() / singular.min(),
            });
        }
        match kind {
            ResponseKind::Collision => self.counters.collisions += 1,
            ResponseKind::Reversal => self.counters.microcollisions += 1,
            ResponseKind::PartialReversal => {
                self.counters.microcollisions += 1;
                self.counters.partial_reversals += 1;
            }
            ResponseKind::Boosted => {
                self.counters.microcollisions += 1;
                self.counters.boosted_microcollisions += 1;
            }
            ResponseKind::Simultaneous => self.counters.microcollisions += 1,
            // Held groups answer rays themselves (counted as `ray_impulses`).
            ResponseKind::Ray => {}
        }
        // The inelastic sweep of a frictional wedge converges slowly: a ball sliding between a
        // dish and a mallet had each contact's friction drive it into the other, and the
        // responses of one pair shrank by only 0.5 % a round. Such a sweep is a linear
        // fixed-point iteration (sliding directions do not turn at these impulses) whose error
        // falls by a constant ratio ρ a round, so when a pair's normal impulses shrink by the
        // same ratio twice in a row, this response takes the rest of the geometric series at
        // once, 1/(1 − ρ) times its own (Aitken's Δ² extrapolation).
        let mut scale = 1.0;
        if inelastic {
            let (factor, series) =
                extrapolate(self.responses.wedges.get(&p).copied(), outcome.impulse.z);
            match series {
                Some(series) => {
                    self.responses.wedges.insert(p, series);
                }
                None => {
                    self.responses.wedges.remove(&p);
                    self.counters.extrapolated_sweeps += 1;
                }
            }
            scale = factor;
        }
        let impulse = frame * (outcome.impulse * scale);
        let mut woken = [a, b].map(|c| self.islands.island_of[c]);
        if woken[0] == woken[1] {
            woken[1] = None; // one island, woken once
        }
        self.colliders
            .apply_impulse(a, t, &impulse, &point_a, world)?;
        self.colliders
            .apply_impulse(b, t, &-impulse, &point_b, world)?;
        self.islands.touches.insert(p, t);
        for c in [a, b] {
            if self.colliders.dynamic(c, world) {
                self.responses.hits_now[c] = if self.responses.hit_at[c] == t {
                    self.responses.hits_now[c] + 1
                } else {
                    1
                };
                self.responses.hit_at[c] = t;
            }
        }
        self.events.push(CollisionEvent {
            time: t,
            kind,
            colliders: (self.colliders.kind(a), self.colliders.kind(b)),
            point,
            normal: contact.normal,
            impulse,
        });
        // New flights: new swept boxes for the rest of the period (for a link, its whole
        // multibody's), and every heap pair of the changed colliders checked again now.
        let mut changed: Vec<usize> = Vec::new();
        for c in [a, b] {
            self.renew_motion(c, t, world, &mut changed)?;
        }
        // An impulse on a sleeper wakes its whole island: what it held up must fall again.
        for island in woken.into_iter().flatten() {
            changed.extend(self.wake_island(island, t, world)?);
        }
        self.recheck_moved(&changed, Some(p), t, world);
        Ok(())
    }

    /// Whether a response that adds `gain` to the kinetic energy of colliders `members` gets
    /// its rebound floor free, whatever the rebound budget holds: where its contacts have all
    /// come down to the surface (`in_band`: the least of their distances, see [`free_floor`])
    /// and its free bodies stay within their rest ceilings. A free body's ceiling is set at
    /// its first response (on a rebuilt event loop, again): its energy then plus the rise out
    /// of any overlap and the hop from the band, `m g (|d| + (1/16 + rebound²) ε)` (the
    /// cluster rebound, the larger), if that response finds it in the band, where it was set
    /// down at rest; none (−∞) if it is caught higher up, with height of its own to fall from.
    /// Without the ceilings, the part sorter's parts, set down 0.2 ε above their track, were
    /// caught at 0.1 ε, where nothing had been dissipated to pay a floor; the single responses
    /// left a 120 g part rocking, and a corner that fell into the band took the floor free,
    /// 155 erg: the world rose 288 erg above its start within 2 ms. A body set down in the band
    /// still hops, its energy at most its ceiling. (Links, whose energy is their multibody's,
    /// are judged by the band alone.)
    pub(super) fn free_floor_for(
        &mut self,
        members: impl Iterator<Item = usize>,
        in_band: Option<f64>,
        gain: f64,
        world: &Participants<'_>,
    ) -> bool {
        let settings = world.settings;
        // Per unit mass: the rise out of the overlap and the hop from the band.
        let allowance = in_band.map_or(0.0, |distance| {
            settings.gravity.norm()
                * ((FREE_FLOOR_BAND + settings.rebound(true).powi(2)) * settings.collision_epsilon
                    - distance.min(0.0))
        });
        let (mut energy, mut ceiling, mut free_bodies) = (0.0, 0.0, false);
        for c in members {
            let Some((e, m)) = self.colliders.free_energy(c, world) else {
                continue;
            };
            ceiling += *self.responses.rest_ceilings[c].get_or_insert(if in_band.is_some() {
                e + m * allowance
            } else {
                f64::NEG_INFINITY
            });
            energy += e;
            free_bodies = true;
        }
        in_band.is_some() && (!free_bodies || energy + gain <= ceiling)
    }

    /// Counts a response at instant `t` and returns how many that instant has had (a new
    /// instant forgets the last one's settled sweeps).
    pub(super) fn respond_at(&mut self, t: f64) -> u64 {
        if self.responses.instant.0 == t {
            self.responses.instant.1 += 1;
        } else {
            self.responses.instant = (t, 1);
            self.responses.wedges.clear();
        }
        self.responses.instant.1
    }
}

/// Whether a microcollision at `distance` (envelope `epsilon`) may get its floor whatever the
/// rebound budget holds (if its bodies stay within their rest ceilings, see
/// [`EventLoop::free_floor_for`]): where the contact has come down to within
/// `FREE_FLOOR_BAND` of the surface (or into it). A body set down at rest on its support has
/// lost nothing the budget could give back, and the reversal alone would leave its hops ever
/// shorter and its microcollisions ever closer together (a ball let go ε/100 above the floor
/// was hit 1 566 times a second instead of 221). Caught higher, a body has height of its own
/// to fall from, which the reversal gives back; the floor there is what let bodies set down
/// higher inside the envelope climb above where they started. So a body's energy rises above
/// its start by at most the rise out of its overlap and the hop from the band,
/// `m g (|d| + (1/16 + rebound²) ε)`, and only if it was set down in the band.
pub(super) fn free_floor(distance: f64, epsilon: f64) -> bool {
    distance <= FREE_FLOOR_BAND * epsilon
}

/// See [`free_floor`]: a sixteenth of the envelope, the hop of a single microcollision's
/// default rebound (¼² ε).
const FREE_FLOOR_BAND: f64 = 1.0 / 16.0;

/// Impulses a collider may take at one instant before its contacts' responses become plain
/// inelastic collisions, with no microcollision rebound (see `EventLoop::collide`).
const CASCADE_REBOUNDS: u32 = 16;
