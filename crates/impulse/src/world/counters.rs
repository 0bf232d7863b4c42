//! What a run did, counted: the event loop's work, the narrow phase's, the integrators', and
//! the multibodies'. `summary.json` writes them under the names [`Counters::entries`] gives.

use std::ops::Index;

/// Event and work counters of a world, from the start of its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Accepted and rejected steps of the free bodies' rotational integration.
    pub integrator_steps: u64,
    pub integrator_rejected_steps: u64,
    /// Pair checks (narrow-phase queries between colliders).
    pub collision_checks: u64,
    /// Events taken from the heap.
    pub heap_events: u64,
    /// Pairs that became broad-phase candidates.
    pub broad_phase_pairs: u64,
    /// Box-period refreshes.
    pub box_refreshes: u64,
    /// Ordinary collisions.
    pub collisions: u64,
    /// Microcollisions (reversals, partial reversals, boosted collisions, and contact points
    /// of simultaneous cluster solves that took an impulse).
    pub microcollisions: u64,
    /// Of those, the boosted collisions: integrated like a collision, where a reversal is one
    /// linear solve.
    pub boosted_microcollisions: u64,
    /// Of those, the partial reversals (as much of the tangential velocity as friction allows).
    pub partial_reversals: u64,
    /// Integration steps of the collisions and boosted microcollisions.
    pub collision_integration_steps: u64,
    /// Responses at an instant when one of the two colliders had already been hit.
    pub cascade_responses: u64,
    /// Responses of a wedge's slowly converging cascade that took the rest of its geometric
    /// series at once.
    pub extrapolated_sweeps: u64,
    /// Simultaneous cluster solves, and their Gauss–Seidel sweeps in all.
    pub cluster_solves: u64,
    pub cluster_sweeps: u64,
    /// Cluster solves that did not settle, answered one contact at a time instead.
    pub cluster_fallbacks: u64,
    /// Same-instant cascades of collisions answered by one simultaneous inelastic solve over
    /// the bodies they reached (their sweeps count in `cluster_sweeps`).
    pub impact_solves: u64,
    /// Resting clusters found at rest and able to carry their weight, held still by contact
    /// forces (`contact_model = "switching"`); an impulse on a held body counts in `wakes`.
    pub holds: u64,
    /// Islands put to sleep, and sleeping islands woken by an impulse.
    pub sleeps: u64,
    pub wakes: u64,
    /// Convex part pairs the narrow phase examined.
    pub narrow_part_queries: u64,
    /// V-Clip walks that fell back to exhaustive search.
    pub vclip_fallbacks: u64,
    /// Part pairs settled exactly by a flat face, without GJK.
    pub flat_face_contacts: u64,
    /// Cylinder pairs settled at their curved features by Newton's method, without GJK.
    pub curved_contacts: u64,
    /// The multibodies' counters, when the world has any.
    pub multibody: Option<MultibodyCounters>,
    /// The constraint groups' counters, under constraint-based contact.
    pub constraint: Option<ConstraintCounters>,
    /// The penalty groups' counters, under the penalty model.
    pub penalty: Option<PenaltyCounters>,
}

/// What the penalty model did (`contact_model = "penalty"`), summed over groups; its deepest
/// penetration is the run's `max_penetration`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PenaltyCounters {
    /// Evaluations of the spring–damper forces (one per derivative evaluation of a group).
    pub evaluations: u64,
    /// Integration steps of the groups (the stiff springs set their size).
    pub steps: u64,
    /// Collision solves answered without friction because Lemke could not solve the
    /// frictional problem (as [`ConstraintCounters::frictionless_fallbacks`]).
    pub frictionless_fallbacks: u64,
}

/// What constraint-based contact did (`contact_model = "constraint"`), summed over groups.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConstraintCounters {
    /// Contact-force LCP solves (one per derivative evaluation of a group), and of those the
    /// ones Lemke's last basis answered at once (a warm start kept, one linear solve).
    pub solves: u64,
    pub warm_solves: u64,
    /// Integration steps of the groups, and restarts at a change of LCP basis.
    pub steps: u64,
    pub basis_restarts: u64,
    /// Inconsistent configurations (no valid contact forces) answered by a Lemke ray's
    /// impulse (Baraff ch. 13).
    pub ray_impulses: u64,
    /// Velocity-level time steps: taken where the contact mode changed faster than the
    /// integrator could follow (a chattering mode: no step of any size held one), and every
    /// step of a group too large for Lemke's algorithm (more than 48 held contacts) or whose
    /// flight restarted 100 times within 100 time steps (moved by time steps whose impulses
    /// projected Gauss–Seidel finds).
    pub time_steps: u64,
    /// Collision solves (a pair joining a group, a new group's approaches stopped, a time
    /// step) answered without friction because Lemke could not solve the frictional impulse
    /// problem, even regularised: the frictionless problem always has a solution.
    pub frictionless_fallbacks: u64,
}

/// Counters summed over a world's multibodies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MultibodyCounters {
    /// Accepted and rejected steps of their forward-dynamics integration.
    pub integrator_steps: u64,
    pub integrator_rejected_steps: u64,
    /// Controller updates.
    pub controller_updates: u64,
    /// Impulses their links took.
    pub impulses: u64,
}

impl Counters {
    /// Every counter under its `summary.json` name, sorted by name.
    pub fn entries(&self) -> Vec<(&'static str, u64)> {
        let mut entries = vec![
            ("integrator_steps", self.integrator_steps),
            ("integrator_rejected_steps", self.integrator_rejected_steps),
            ("collision_checks", self.collision_checks),
            ("heap_events", self.heap_events),
            ("broad_phase_pairs", self.broad_phase_pairs),
            ("box_refreshes", self.box_refreshes),
            ("collisions", self.collisions),
            ("microcollisions", self.microcollisions),
            ("boosted_microcollisions", self.boosted_microcollisions),
            ("partial_reversals", self.partial_reversals),
            (
                "collision_integration_steps",
                self.collision_integration_steps,
            ),
            ("cascade_responses", self.cascade_responses),
            ("extrapolated_sweeps", self.extrapolated_sweeps),
            ("cluster_solves", self.cluster_solves),
            ("cluster_sweeps", self.cluster_sweeps),
            ("cluster_fallbacks", self.cluster_fallbacks),
            ("impact_solves", self.impact_solves),
            ("holds", self.holds),
            ("sleeps", self.sleeps),
            ("wakes", self.wakes),
            ("narrow_part_queries", self.narrow_part_queries),
            ("vclip_fallbacks", self.vclip_fallbacks),
            ("flat_face_contacts", self.flat_face_contacts),
            ("curved_contacts", self.curved_contacts),
        ];
        if let Some(m) = &self.multibody {
            entries.extend([
                ("multibody_integrator_steps", m.integrator_steps),
                (
                    "multibody_integrator_rejected_steps",
                    m.integrator_rejected_steps,
                ),
                ("controller_updates", m.controller_updates),
                ("multibody_impulses", m.impulses),
            ]);
        }
        if let Some(c) = &self.constraint {
            entries.extend([
                ("constraint_solves", c.solves),
                ("constraint_warm_solves", c.warm_solves),
                ("constraint_steps", c.steps),
                ("constraint_basis_restarts", c.basis_restarts),
                ("ray_impulses", c.ray_impulses),
                ("constraint_time_steps", c.time_steps),
                ("frictionless_fallbacks", c.frictionless_fallbacks),
            ]);
        }
        if let Some(p) = &self.penalty {
            entries.extend([
                ("penalty_evaluations", p.evaluations),
                ("penalty_steps", p.steps),
                ("frictionless_fallbacks", p.frictionless_fallbacks),
            ]);
        }
        entries.sort_unstable_by_key(|&(name, _)| name);
        entries
    }
}

impl Index<&str> for Counters {
    type Output = u64;

    /// The counter with this `summary.json` name. Panics on a name that is not one (a
    /// multibody counter in a world without multibodies is not one).
    fn index(&self, name: &str) -> &u64 {
        let m = self.multibody.as_ref();
        let c = self.constraint.as_ref();
        let p = self.penalty.as_ref();
        let counter = match name {
            "integrator_steps" => Some(&self.integrator_steps),
            "integrator_rejected_steps" => Some(&self.integrator_rejected_steps),
            "collision_checks" => Some(&self.collision_checks),
            "heap_events" => Some(&self.heap_events),
            "broad_phase_pairs" => Some(&self.broad_phase_pairs),
            "box_refreshes" => Some(&self.box_refreshes),
            "collisions" => Some(&self.collisions),
            "microcollisions" => Some(&self.microcollisions),
            "boosted_microcollisions" => Some(&self.boosted_microcollisions),
            "partial_reversals" => Some(&self.partial_reversals),
            "collision_integration_steps" => Some(&self.collision_integration_steps),
            "cascade_responses" => Some(&self.cascade_responses),
            "extrapolated_sweeps" => Some(&self.extrapolated_sweeps),
            "cluster_solves" => Some(&self.cluster_solves),
            "cluster_sweeps" => Some(&self.cluster_sweeps),
            "cluster_fallbacks" => Some(&self.cluster_fallbacks),
            "impact_solves" => Some(&self.impact_solves),
            "holds" => Some(&self.holds),
            "sleeps" => Some(&self.sleeps),
            "wakes" => Some(&self.wakes),
            "narrow_part_queries" => Some(&self.narrow_part_queries),
            "vclip_fallbacks" => Some(&self.vclip_fallbacks),
            "flat_face_contacts" => Some(&self.flat_face_contacts),
            "curved_contacts" => Some(&self.curved_contacts),
            "multibody_integrator_steps" => m.map(|m| &m.integrator_steps),
            "multibody_integrator_rejected_steps" => m.map(|m| &m.integrator_rejected_steps),
            "controller_updates" => m.map(|m| &m.controller_updates),
            "multibody_impulses" => m.map(|m| &m.impulses),
            "constraint_solves" => c.map(|c| &c.solves),
            "constraint_warm_solves" => c.map(|c| &c.warm_solves),
            "constraint_steps" => c.map(|c| &c.steps),
            "constraint_basis_restarts" => c.map(|c| &c.basis_restarts),
            "ray_impulses" => c.map(|c| &c.ray_impulses),
            "constraint_time_steps" => c.map(|c| &c.time_steps),
            "penalty_evaluations" => p.map(|p| &p.evaluations),
            "penalty_steps" => p.map(|p| &p.steps),
            "frictionless_fallbacks" => c
                .map(|c| &c.frictionless_fallbacks)
                .or(p.map(|p| &p.frictionless_fallbacks)),
            _ => None,
        };
        counter.unwrap_or_else(|| panic!("no counter named `{name}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_the_index_agree_name_by_name() {
        // Every counter a distinct value: an entry or index arm naming the wrong field shows.
        let counters = Counters {
            integrator_steps: 1,
            integrator_rejected_steps: 2,
            collision_checks: 3,
            heap_events: 4,
            broad_phase_pairs: 5,
            box_refreshes: 6,
            collisions: 7,
            microcollisions: 8,
            boosted_microcollisions: 9,
            partial_reversals: 10,
            collision_integration_steps: 11,
            cascade_responses: 12,
            extrapolated_sweeps: 13,
            cluster_solves: 14,
            cluster_sweeps: 15,
            cluster_fallbacks: 16,
            impact_solves: 37,
            holds: 38,
            sleeps: 17,
            wakes: 18,
            narrow_part_queries: 19,
            vclip_fallbacks: 20,
            flat_face_contacts: 21,
            curved_contacts: 22,
            multibody: Some(MultibodyCounters {
                integrator_steps: 23,
                integrator_rejected_steps: 24,
                controller_updates: 25,
                impulses: 26,
            }),
            constraint: Some(ConstraintCounters {
                solves: 27,
                warm_solves: 28,
                steps: 29,
                basis_restarts: 30,
                ray_impulses: 31,
                time_steps: 34,
                frictionless_fallbacks: 35,
            }),
            penalty: None,
        };
        // A world has one contact model: its constraint or its penalty counters, never both.
        let penalty = Counters {
            constraint: None,
            penalty: Some(PenaltyCounters {
                evaluations: 32,
                steps: 33,
                frictionless_fallbacks: 36,
            }),
            ..counters
        };
        for (counters, count, fields) in [
            (
                counters,
                35,
                (1..=31).chain([34, 35, 37, 38]).collect::<Vec<u64>>(),
            ),
            (penalty, 31, (1..=26).chain([32, 33, 36, 37, 38]).collect()),
        ] {
            let entries = counters.entries();
            assert_eq!(entries.len(), count);
            assert!(
                entries.windows(2).all(|w| w[0].0 < w[1].0),
                "sorted, distinct"
            );
            let mut values: Vec<u64> = entries.iter().map(|&(_, v)| v).collect();
            values.sort_unstable();
            assert_eq!(values, fields, "each field once");
            for (name, value) in entries {
                assert_eq!(counters[name], value, "{name}");
            }
        }
        // Without multibodies (or constraint groups) their counters are not written.
        let free = Counters::default();
        assert_eq!(free.entries().len(), 24);
        assert!(
            free.entries()
                .iter()
                .all(|(n, _)| !n.starts_with("multibody"))
        );
    }
}
