//! Islands and sleep: which bodies touch (contacts that took an impulse within the sleep
//! time), how long each has stayed still, and islands of still bodies put to sleep at a box
//! refresh, woken whole by the next impulse on any of them (the decision itself is
//! [`super::sleep::falling_asleep`]).

use super::SimulationError;
use super::colliders::Participants;
use super::event_loop::EventLoop;
use super::sleep::{Member, Stillness, falling_asleep};
use crate::collision::broad::{FastMap, FastSet, Pair};
use crate::math::{Quat, Vec3};

/// Who touches whom, who has stayed still, and who sleeps in which island.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Islands {
    /// Per collider, where it has stayed since when.
    pub(super) stillness: Vec<Stillness>,
    /// Per pair, the last time its contact took an impulse: the edges of the islands.
    #[serde(serialize_with = "crate::collision::broad::sorted::map")]
    pub(super) touches: FastMap<Pair, f64>,
    /// Per sleeping body, its island (the island's lowest collider index).
    pub(super) island_of: Vec<Option<usize>>,
}

impl EventLoop {
    /// Wakes every sleeper of `island` at `t` (at rest: each starts a free flight) and returns
    /// them, whose swept boxes are renewed and whose pairs are to be checked again.
    pub(super) fn wake_island(
        &mut self,
        island: usize,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<Vec<usize>, SimulationError> {
        let members: Vec<usize> = (0..self.colliders.len())
            .filter(|&c| self.islands.island_of[c] == Some(island))
            .collect();
        for &c in &members {
            self.islands.island_of[c] = None;
            self.islands.stillness[c] = self.still_from(c, t, world);
            self.colliders.wake(c, t, world)?;
            self.renew_box(c, t, world)?;
        }
        self.counters.wakes += 1;
        Ok(members)
    }

    /// Collider `c` still from `t`, where it is now (a link's pose is not tracked: links never
    /// sleep).
    pub(super) fn still_from(&self, c: usize, t: f64, world: &Participants<'_>) -> Stillness {
        match self.colliders.body(c) {
            Some(id) => {
                let s = world.bodies[id.0].state();
                Stillness::new(t, s.position, s.orientation)
            }
            None => Stillness::new(t, Vec3::zeros(), Quat::identity()),
        }
    }

    /// Puts to sleep, at a box refresh at `t`, every island whose bodies have all stayed still
    /// for the sleep time (see [`super::sleep`]).
    pub(super) fn put_still_islands_to_sleep(
        &mut self,
        t: f64,
        world: &mut Participants<'_>,
    ) -> Result<(), SimulationError> {
        let settings = world.settings;
        let since = t - settings.sleep.time;
        let gravity = settings.gravity.norm();
        let epsilon = settings.collision_epsilon;
        let drift = settings.sleep.slow_speed(gravity, epsilon) * settings.sleep.time;
        let ceiling =
            settings
                .sleep
                .speed_ceiling(gravity, epsilon, settings.microcollision_max_restitution);
        let n = self.colliders.len();
        // Which colliders may sleep: free bodies, awake or asleep, without applied torque.
        let mut sleeper = vec![false; n];
        for (c, may) in sleeper.iter_mut().enumerate() {
            let Some(id) = self.colliders.body(c) else {
                continue;
            };
            let body = &world.bodies[id.0];
            // (A held body moves with its group, which does not sleep.)
            if !body.is_dynamic() || body.torque() != Vec3::zeros() || body.is_held() {
                continue;
            }
            *may = true;
            // (Sampled at `t` by the box refresh that calls this.)
            if !body.is_asleep() {
                let s = body.state();
                if self.colliders.speed(c, world) > ceiling {
                    self.islands.stillness[c].restart(t, s.position, s.orientation);
                } else {
                    self.islands.stillness[c].sample(
                        t,
                        s.position,
                        s.orientation,
                        self.colliders.reach[c],
                        drift,
                        settings.sleep.time,
                    );
                }
            }
        }
        self.islands.touches.retain(|_, at| *at >= since);
        let members: Vec<Member> = (0..n)
            .map(|c| Member {
                may_sleep: sleeper[c],
                restless: !sleeper[c]
                    && self.colliders.moves(c, world)
                    && !self.colliders.stationary(c, world),
                still_since: self.islands.stillness[c].since(),
                island: self.islands.island_of[c],
            })
            .collect();
        let mut fell = Vec::new();
        let mut islands = FastSet::default();
        for (c, island) in falling_asleep(&members, self.islands.touches.keys().copied(), since) {
            islands.insert(island);
            self.islands.island_of[c] = Some(island);
            let Some(id) = self.colliders.body(c) else {
                continue;
            };
            if world.bodies[id.0].is_asleep() {
                continue;
            }
            world.bodies[id.0].fall_asleep();
            self.renew_box(c, t, world)?;
            fell.push(c);
        }
        if fell.is_empty() {
            return Ok(());
        }
        self.counters.sleeps += islands.len() as u64;
        self.recheck_moved(&fell, None, t, world);
        Ok(())
    }
}
