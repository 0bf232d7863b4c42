//! The penalty model in the event loop (`world.contact_model = "penalty"`, Baraff ch. 7).
//!
//! It runs on the constraint model's machinery (`super::groups`): an approaching pair is
//! answered by the same collision solve (impulses with the materials' restitution and
//! friction), and the contacts it leaves slower than the rest speed are held by a group — but
//! the group's forces come from a spring–damper at each held contact
//! (`contact::constraint::penalty`) instead of the contact LCP. So impacts are impulses and
//! persistent contacts are springs; there is no Lemke ray (an inconsistent configuration is
//! answered by the springs, which give its impulse in the limit K → ∞, Baraff §12.1).
//!
//! This module gives the groups their penalty law and each contact its spring from the
//! materials ([`PenaltyMaterial`]).

use super::colliders::Participants;
use super::event_loop::EventLoop;
use super::settings::{ContactModel, WorldSettings};
use crate::collision::broad::Pair;
use crate::contact::constraint::penalty::{PenaltyLaw, Spring, damping_ratio_for};

/// A material's penalty spring (`penalty_stiffness`, `penalty_damping` in a scene's
/// `[materials.NAME]` table), used under `contact_model = "penalty"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PenaltyMaterial {
    /// Stiffness K of each contact point (force per length). Two materials that both give one
    /// act in series, `K_a K_b / (K_a + K_b)`. `None`: chosen from the contact's effective
    /// mass so that a body's weight sinks it a hundredth of the collision envelope.
    pub stiffness: Option<f64>,
    /// Damping ratio ζ of each contact's spring–damper (dimensionless; the mean of the two
    /// materials' where both give one). `None`: the ratio whose spring–damper, never
    /// pulling, has the pair's coefficient of restitution.
    pub damping: Option<f64>,
}

/// How much of the collision envelope a body's weight sinks it into a contact whose stiffness
/// is defaulted: `K = m_eff g / (SAG ε)`.
const SAG: f64 = 1e-2;

/// The slip speed below which friction is viscous, in rest speeds `√(2 g ε)`.
const SLIP_SPEED: f64 = 1e-2;

/// The penalty law of a world under the penalty model.
pub(super) fn penalty_law(settings: &WorldSettings) -> Option<PenaltyLaw> {
    (settings.contact_model == ContactModel::Penalty).then(|| {
        let epsilon = settings.collision_epsilon;
        let gravity = settings.gravity.norm();
        let rest = (2.0 * gravity * epsilon)
            .sqrt()
            .max(epsilon / settings.box_period);
        PenaltyLaw {
            // ω₀ = √(g / (SAG ε)); without gravity ten oscillations a box period.
            frequency: (gravity / (SAG * epsilon))
                .sqrt()
                .max(10.0 / settings.box_period),
            slip_speed: SLIP_SPEED * rest,
            // Full damping from a body's static sag on.
            onset: SAG * epsilon,
        }
    })
}

/// Whether a pair found in the envelope approaching at `approach` is left to the springs: under
/// the penalty model, a pair slower than the rest speed `rest` (the speed below which a
/// collision's contacts are held) is not an impact. Its contacts join the group as springs,
/// which stop it within `approach / ω₀` (under 0.14 ε at the rest speed `√(2 g ε)`: ω₀ =
/// `√(g / (SAG ε))`) and give it the pair's restitution (the damping is derived from it). A
/// collision solve here would be one of the island's held contacts at (nearly) no approach —
/// the chain of balls' and the pool rack's neighbours on the table, found approaching at
/// 1e-15 cm/s: a degenerate frictional LCP, on which Lemke broke down (issue 35).
pub(super) fn springs_answer(settings: &WorldSettings, approach: f64, rest: f64) -> bool {
    settings.contact_model == ContactModel::Penalty && approach < rest
}

impl EventLoop {
    /// The spring of a contact between the colliders of pair `p`, whose material has
    /// restitution `restitution`: from the bodies' materials' penalty keys (a body naming no
    /// material has the `default` one's).
    pub(super) fn pair_spring(
        &self,
        p: Pair,
        restitution: f64,
        world: &Participants<'_>,
    ) -> Spring {
        let of = |c: usize| {
            let body = self.colliders.body(c).map(|id| &world.bodies[id.0]);
            let name = body.and_then(|b| b.material_name()).unwrap_or("default");
            world
                .settings
                .penalty_materials
                .get(name)
                .copied()
                .unwrap_or_default()
        };
        let (a, b) = (of(p.0), of(p.1));
        let stiffness = match (a.stiffness, b.stiffness) {
            (Some(ka), Some(kb)) => Some(ka * kb / (ka + kb)),
            (k, None) | (None, k) => k,
        };
        let damping_ratio = match (a.damping, b.damping) {
            (Some(za), Some(zb)) => 0.5 * (za + zb),
            (Some(z), None) | (None, Some(z)) => z,
            (None, None) => damping_ratio_for(restitution),
        };
        Spring {
            stiffness,
            damping_ratio,
            k: 0.0,
            c: 0.0,
        }
    }
}
