//! Sleep: islands of still bodies held at rest.
//!
//! Impulse-based resting contact never ends: a box on the floor takes a microcollision every
//! few milliseconds, forever, and creeps down a slope however strong the friction (Mirtich
//! §3.5; docs/sources.md, "Creep of resting boxes"). Like every production engine, we put a
//! body to sleep once it and everything it touches have stayed still long enough, and wake it
//! when something hits it.
//!
//! - **Still**: a free body (dynamic, without applied torque) is still while every point of it
//!   stays within `speed × time` of where it was when it became still, and no point moves
//!   faster than a microcollision throws it. Checked at every box refresh (never at output
//!   frames, so sampling cannot change the outcome), on the pose: a resting body vibrates in
//!   its envelope at up to ~3 threshold speeds, and only its drift tells rest from motion. It
//!   became still at the earliest refresh whose pose every later one has stayed near
//!   ([`Stillness`]).
//! - **Islands**: bodies joined by contacts that took an impulse within the last `time`, plus
//!   the members of sleeping islands. A contact with a collider that moves and cannot sleep (a
//!   kinematic body, a multibody link) keeps its island awake; fixed bodies join nothing, and
//!   neither do kinematic bodies whose prescribed motion is zero.
//! - **Falling asleep**: an island every member of which has been still for `time` sleeps
//!   whole. Each member's velocities become zero and it leaves gravity's pull
//!   ([`crate::RigidBody::fall_asleep`]); pairs of which neither side can move leave the heap.
//! - **Waking**: any impulse on a sleeper (a collision with an awake body, a kinematic body or
//!   a link) wakes its whole island, from rest: what it held up must be free to fall.

use crate::math::{Quat, Vec3};

/// When bodies fall asleep. An island of bodies (bodies joined by contacts that took impulses
/// within `time`) whose every body has stayed still for `time` is put to sleep: held at rest until
/// an impulse on any of them wakes them all. A body is still while every point of it stays within
/// `speed × time` of where it was at the start and moves no faster than a microcollision throws
/// it (see [`Sleep::speed_ceiling`]). See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sleep {
    /// Whether islands fall asleep at all.
    pub enabled: bool,
    /// How long an island must stay still.
    pub time: f64,
    /// Mean speed below which a body counts as still (its drift over `time` divided by
    /// `time`). `None`: [`Sleep::DEFAULT_SPEED`] times the microcollision threshold speed
    /// √(2 g ε_c), or ε_c per `time` without gravity.
    pub speed: Option<f64>,
}

impl Sleep {
    /// The default still speed, in microcollision threshold speeds.
    pub const DEFAULT_SPEED: f64 = 0.25;

    /// The mean speed below which a body counts as still under these settings.
    pub fn slow_speed(&self, gravity: f64, collision_epsilon: f64) -> f64 {
        self.speed.unwrap_or(if gravity > 0.0 {
            Self::DEFAULT_SPEED * (2.0 * gravity * collision_epsilon).sqrt()
        } else {
            collision_epsilon / self.time
        })
    }

    /// The fastest a still body's points may move: resting contact is a train of
    /// microcollisions, each of which may throw a contact point off at up to the boosted
    /// restitution `max_restitution` times the threshold speed √(2 g ε_c). At least ten times
    /// the still speed.
    pub fn speed_ceiling(&self, gravity: f64, collision_epsilon: f64, max_restitution: f64) -> f64 {
        let slow = self.slow_speed(gravity, collision_epsilon);
        (max_restitution * (2.0 * gravity * collision_epsilon).sqrt()).max(10.0 * slow)
    }
}

impl Default for Sleep {
    fn default() -> Self {
        Self {
            enabled: true,
            time: 0.5,
            speed: None,
        }
    }
}

/// Since when a body has stayed still: the poses it has been sampled at (box refreshes) from
/// each of which every later sample has stayed within the drift distance, oldest first. The
/// oldest is where it has been still since.
///
/// Keeping the later poses as well as the oldest matters when a body settles slowly: anchored
/// at one pose taken while it was still moving (a domino finishing its fall), its final
/// settling could add up to the drift distance a quarter of a second after it had come to rest,
/// and restarting the clock there put the dominos' island to sleep after the run instead of at
/// 1.1 s. With the later poses, the clock restarts at the first pose that every sample since
/// stays near. The test is the same either way; only the anchor is better chosen.
///
/// Which poses are kept: the oldest, every pose of the last sleep time (the `window`), and the
/// latest pose before it. Only whether the body has been still since `window` ago is ever asked,
/// so the poses inside the window must all be there for the answer to be exact when the oldest
/// is dropped; of those before it any one still near serves, and the latest is the likeliest.
/// (Keeping the latest 15 instead, 0.3 s of them, a domino's clock restarted at 0.74 s rather
/// than 0.58 s, and the row again slept only after the run.)
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Stillness {
    anchors: Vec<Anchor>,
}

/// A sampled pose that every later sample has stayed near.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Anchor {
    time: f64,
    position: Vec3,
    orientation: Quat,
}

/// Most anchors a body keeps (a sleep time of 2.5 s at the default period, 0.02 s): beyond it
/// the oldest but one is dropped. Dropping anchors can only make a body's stillness start later,
/// never earlier.
const ANCHORS: usize = 128;

impl Stillness {
    /// Still from `t`, at this pose.
    pub fn new(t: f64, position: Vec3, orientation: Quat) -> Self {
        Self {
            anchors: vec![Anchor {
                time: t,
                position,
                orientation,
            }],
        }
    }

    /// Still from `t` again, at this pose (keeping the anchors' storage).
    pub fn restart(&mut self, t: f64, position: Vec3, orientation: Quat) {
        self.anchors.clear();
        self.anchors.push(Anchor {
            time: t,
            position,
            orientation,
        });
    }

    /// Since when the body has been still.
    pub fn since(&self) -> f64 {
        self.anchors.first().map_or(f64::INFINITY, |a| a.time)
    }

    /// Takes the body's pose at `t` (centre of mass and orientation): drops the anchors that a
    /// point of the body at most `reach` from its centre of mass has gone farther than `drift`
    /// from (the centre's displacement plus the reach times the angle turned), and those between
    /// the oldest and the latest before `t − window` (see [`Stillness`]), and adds this pose as
    /// the latest.
    pub fn sample(
        &mut self,
        t: f64,
        position: Vec3,
        orientation: Quat,
        reach: f64,
        drift: f64,
        window: f64,
    ) {
        self.anchors.retain(|a| {
            let turned = (a.orientation.inverse() * orientation).angle();
            (position - a.position).norm() + reach * turned <= drift
        });
        // Anchors before the window, the oldest aside: only the latest of them is kept.
        let before = self
            .anchors
            .iter()
            .skip(1)
            .take_while(|a| a.time < t - window)
            .count();
        if before > 1 {
            self.anchors.drain(1..before);
        }
        if self.anchors.len() >= ANCHORS {
            self.anchors.remove(1);
        }
        self.anchors.push(Anchor {
            time: t,
            position,
            orientation,
        });
    }
}

/// What deciding sleep needs to know of one collider.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// A free body: dynamic, without applied torque (awake or asleep).
    pub may_sleep: bool,
    /// Moves on its own and cannot sleep (a kinematic body with a motion, a link): keeps what it
    /// touches awake.
    pub restless: bool,
    /// Since when it has been still.
    pub still_since: f64,
    /// Its sleeping island, if asleep.
    pub island: Option<usize>,
}

/// The islands that fall asleep now: every island, of colliders joined by `touches` (contacts
/// that took an impulse recently) and by sleeping islands, all of whose members may sleep and
/// have been still since `since` at the latest, that touches nothing restless and has an awake
/// member. Returns the members of those islands, each with its island's name (its lowest
/// member), in collider order: sleepers that an awake body joined are named anew with it.
pub(super) fn falling_asleep(
    members: &[Member],
    touches: impl Iterator<Item = (usize, usize)>,
    since: f64,
) -> Vec<(usize, usize)> {
    let n = members.len();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut c: usize) -> usize {
        while root[c] != c {
            root[c] = root[root[c]];
            c = root[c];
        }
        c
    }
    let join = |root: &mut [usize], a: usize, b: usize| {
        let (ra, rb) = (find(root, a), find(root, b));
        // The lower root stays: an island is named by its lowest member.
        root[ra.max(rb)] = ra.min(rb);
    };
    for (c, member) in members.iter().enumerate() {
        if let Some(island) = member.island {
            join(&mut root, c, island);
        }
    }
    let mut held = vec![false; n];
    for (a, b) in touches {
        let (ma, mb) = (members[a], members[b]);
        match (ma.may_sleep, mb.may_sleep) {
            (true, true) => join(&mut root, a, b),
            (true, false) if mb.restless => held[a] = true,
            (false, true) if ma.restless => held[b] = true,
            _ => {}
        }
    }
    let mut can_sleep = vec![true; n];
    let mut has_awake = vec![false; n];
    for (c, member) in members.iter().enumerate() {
        let r = find(&mut root, c);
        if !member.may_sleep || held[c] || member.still_since > since {
            can_sleep[r] = false;
        }
        if member.island.is_none() {
            has_awake[r] = true;
        }
    }
    (0..n)
        .filter_map(|c| {
            let r = find(&mut root, c);
            (members[c].may_sleep && can_sleep[r] && has_awake[r]).then_some((c, r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(still_since: f64) -> Member {
        Member {
            may_sleep: true,
            restless: false,
            still_since,
            island: None,
        }
    }

    const FIXED: Member = Member {
        may_sleep: false,
        restless: false,
        still_since: 0.0,
        island: None,
    };

    const KINEMATIC: Member = Member {
        may_sleep: false,
        restless: true,
        still_since: 0.0,
        island: None,
    };

    /// Samples a body moving along x only, at `positions` taken every 0.02 s from t = 0, with
    /// a drift allowance of 0.55 and a sleep time of 0.5 s; returns since when it has been
    /// still.
    fn still_since(positions: &[f64]) -> f64 {
        let pose = |x: f64| (Vec3::new(x, 0.0, 0.0), Quat::identity());
        let (p0, q0) = pose(positions[0]);
        let mut stillness = Stillness::new(0.0, p0, q0);
        for (k, &x) in positions.iter().enumerate().skip(1) {
            let (p, q) = pose(x);
            stillness.sample(0.02 * k as f64, p, q, 1.0, 0.55, 0.5);
        }
        stillness.since()
    }

    #[test]
    fn a_settling_body_is_still_from_where_it_came_to_rest() {
        // Sliding to a stop: 0 → 0.3 → 0.5 by t = 0.04, then creeping on to 0.56 by t = 0.30
        // and resting there. Anchored only at its first pose it would count as still from
        // t = 0.26, where it passes 0.55 from x = 0; every sample from t = 0.02 (x = 0.3) on
        // stays within 0.55 of that pose, so it has been still since 0.02.
        let mut xs = vec![0.0, 0.3, 0.5];
        xs.extend((3..=15).map(|k| 0.5 + 0.06 * (k - 2) as f64 / 13.0));
        xs.extend([0.56; 20]);
        assert_eq!(still_since(&xs), 0.02);
        // Moving on beyond 0.55 from every sample restarts the clock at the latest sample.
        xs.push(2.0);
        assert_eq!(still_since(&xs), 0.02 * (xs.len() - 1) as f64);
        // At rest throughout, with more samples than anchors kept: still from the start.
        assert_eq!(still_since(&[0.1; 100]), 0.0);
    }

    #[test]
    fn a_body_settling_over_longer_than_the_anchors_kept_is_still_from_where_it_landed() {
        // Landing: x = 0 at t = 0 (still moving), x = 0.3 at t = 0.02, then creeping at 0.5 per
        // second. The pose at t = 0 is left behind at t = 0.54 (x = 0.56 > 0.55), while every
        // sample from t = 0.02 stays within 0.26 of x = 0.3 to the end (t = 0.54): still since
        // 0.02 (by the definition, checked by brute force below). Keeping only the oldest pose
        // and the latest 15 (as before) lost t = 0.02 and answered 0.24.
        // The definition by brute force: the first sample that every later one stays near.
        let exact = |xs: &[f64]| {
            (0..xs.len())
                .find(|&i| xs[i..].iter().all(|x| (x - xs[i]).abs() <= 0.55))
                .map(|i| 0.02 * i as f64)
        };
        let xs: Vec<f64> = std::iter::once(0.0)
            .chain((1..=27).map(|k| 0.3 + 0.5 * 0.02 * (k - 1) as f64))
            .collect();
        assert_eq!(exact(&xs), Some(0.02));
        assert_eq!(still_since(&xs), 0.02);
        // Within the window every pose is kept, so the answer is exact there whatever the
        // landing: a creep that leaves poses behind one by one.
        let creep: Vec<f64> = (0..60).map(|k| 0.06 * k as f64).collect();
        assert_eq!(Some(still_since(&creep)), exact(&creep));
    }

    #[test]
    fn an_island_sleeps_only_when_every_member_has_been_still() {
        // 0 fixed ground; 1–2–3 a stack on it, 3 still only since t = 0.8; 4 alone on the
        // ground, still since 0.2. At t = 1 with a sleep time of 0.5 (since = 0.5): 4 sleeps,
        // the stack does not.
        let members = [FIXED, free(0.1), free(0.3), free(0.8), free(0.2)];
        let touches = [(0, 1), (1, 2), (2, 3), (0, 4)];
        assert_eq!(
            falling_asleep(&members, touches.into_iter(), 0.5),
            vec![(4, 4)]
        );
        // Later, all of it; named by its lowest member (the fixed ground joins nothing).
        assert_eq!(
            falling_asleep(&members, touches.into_iter(), 0.9),
            vec![(1, 1), (2, 1), (3, 1), (4, 4)]
        );
    }

    #[test]
    fn a_restless_contact_keeps_its_island_awake() {
        // 1 on a kinematic conveyor 0, 2 on 1: nothing sleeps; 3 on fixed 4 does.
        let members = [KINEMATIC, free(0.0), free(0.0), free(0.0), FIXED];
        let touches = [(0, 1), (1, 2), (3, 4)];
        assert_eq!(
            falling_asleep(&members, touches.into_iter(), 0.5),
            vec![(3, 3)]
        );
    }

    #[test]
    fn a_body_touching_a_sleeping_island_joins_it() {
        // 1 and 2 asleep as island 1 (their contact long without impulses); 3 lands on 2.
        // While 3 is not still, nothing changes; once it is, it joins island 1.
        let mut members = [FIXED, free(0.0), free(0.0), free(0.9)];
        members[1].island = Some(1);
        members[2].island = Some(1);
        let touches = [(2, 3)];
        assert!(falling_asleep(&members, touches.into_iter(), 0.5).is_empty());
        assert_eq!(
            falling_asleep(&members, touches.into_iter(), 1.0),
            vec![(1, 1), (2, 1), (3, 1)]
        );
        // Named anew when a lower collider joins: every member takes the new name.
        let mut members = [free(0.0), free(0.0), free(0.0)];
        members[1].island = Some(1);
        members[2].island = Some(1);
        assert_eq!(
            falling_asleep(&members, [(0, 2)].into_iter(), 1.0),
            vec![(0, 0), (1, 0), (2, 0)]
        );
        // And an island with no awake member has nothing to do.
        members[0] = FIXED;
        assert!(falling_asleep(&members, std::iter::empty(), 1.0).is_empty());
    }
}
