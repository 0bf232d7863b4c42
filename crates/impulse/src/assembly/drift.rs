//! Drift control by projection (kalra.md §5.2 item 1, §5.3): after a step, positions are moved
//! back onto φ(q, t) = 0 by Gauss–Newton steps of least mass-weighted size, then velocities onto
//! `J u + φ_t = 0` the same way. Both use the constraint solve, so redundant rows are dropped
//! there as in the dynamics.

use crate::math::Quat;

use super::solve::{self, body_forces};
use super::{Assembly, AssemblyError};

/// Newton iterations at most per projection.
const ITERATIONS: usize = 8;
/// Positions are taken as on the constraints below this gap.
const GAP: f64 = 1e-13;

impl Assembly {
    /// Moves positions onto the constraints: `Δq = M⁻¹ Jᵀ μ` with `J M⁻¹ Jᵀ μ = −φ`.
    pub(crate) fn project_positions(&mut self) -> Result<(), AssemblyError> {
        let mut last = f64::INFINITY;
        for _ in 0..ITERATIONS {
            let states = self.states();
            let (rows, _) = self.rows_at(&states, self.time);
            let gap = rows.iter().fold(0.0_f64, |m, r| m.max(r.phi.abs()));
            // Done, or no longer converging (an inconsistent pose stays as close as it gets).
            if gap <= GAP || gap >= last {
                break;
            }
            last = gap;
            let inverse = self.inverse_masses(&states);
            let rhs: Vec<f64> = rows.iter().map(|r| -r.phi).collect();
            let mu = solve::solve(&rows, &inverse, &rhs).lambda;
            for (i, (f, tau)) in body_forces(&rows, &mu, self.bodies.len())
                .into_iter()
                .enumerate()
            {
                let s = &mut self.bodies[i].state;
                s.position += f * inverse[i].mass;
                let turn = inverse[i].inertia * tau;
                s.orientation = Quat::from_scaled_axis(turn) * s.orientation;
            }
        }
        Ok(())
    }

    /// Moves velocities onto the constraints: `Δu = M⁻¹ Jᵀ μ` with
    /// `J M⁻¹ Jᵀ μ = −(J u + φ_t)` (a mass-weighted projection: for joints fixed in time it never adds kinetic energy).
    pub(crate) fn project_velocities(&mut self) -> Result<(), AssemblyError> {
        let states = self.states();
        let (sides, poses) = self.frames(&states);
        let (rows, _) = self.rows_from(&sides, &poses, self.time);
        let velocities: Vec<_> = sides.iter().map(|s| (s.velocity, s.omega)).collect();
        let rhs: Vec<f64> = rows
            .iter()
            .map(|r| -(r.velocity(&velocities) + r.phi_t))
            .collect();
        let inverse = self.inverse_masses(&states);
        let mu = solve::solve(&rows, &inverse, &rhs).lambda;
        // The impulse Jᵀμ changes momentum and angular momentum directly.
        for (i, (p, l)) in body_forces(&rows, &mu, self.bodies.len())
            .into_iter()
            .enumerate()
        {
            let s = &mut self.bodies[i].state;
            s.momentum += p;
            s.angular_momentum += l;
        }
        Ok(())
    }
}
