//! Impulses on a jointed body: the joints answer with the ideal impulsive reaction `Jᵀμ`, the
//! least-kinetic-energy velocity change that keeps `J u + φ_t = 0` (Gauss's principle for
//! impulses). This is the seam through which an assembly takes part in collisions: the
//! collision matrix at a point of a jointed body, and the impulse applied there.

use crate::math::{Mat3, Vec3};

use super::{Assembly, AssemblyError};

impl Assembly {
    /// Applies `impulse` at world point `point` to body `body`; the joints' impulsive
    /// reactions follow (the velocities are projected onto the constraints in the mass metric).
    pub fn apply_impulse(
        &mut self,
        body: usize,
        point: &Vec3,
        impulse: &Vec3,
    ) -> Result<(), AssemblyError> {
        let s = &mut self.bodies[body].state;
        s.momentum += impulse;
        s.angular_momentum += (point - s.position).cross(impulse);
        self.project_velocities()
    }

    /// The collision matrix at world point `point` of body `body`: the change of that point's
    /// velocity per unit impulse applied there, joints answering (`Δv = K p`). Symmetric,
    /// positive semi-definite; singular along directions the joints forbid.
    pub fn collision_matrix(&self, body: usize, point: &Vec3) -> Result<Mat3, AssemblyError> {
        // K is linear: the velocity change from each unit impulse, against the same projection
        // with no impulse (which removes any rounding-level drift of the current velocities).
        let mut base = self.clone();
        base.project_velocities()?;
        let v0 = base.bodies[body].point_velocity(point);
        let mut k = Mat3::zeros();
        for axis in 0..3 {
            let mut probe = self.clone();
            probe.apply_impulse(body, point, &Vec3::ith(axis, 1.0))?;
            let dv = probe.bodies[body].point_velocity(point) - v0;
            k.set_column(axis, &dv);
        }
        // Symmetrise the rounding away (K = G W Gᵀ is symmetric).
        Ok((k + k.transpose()) * 0.5)
    }
}
