//! An assembly among free balls: spheres fixed on assembly bodies ("strikers") and free solid
//! balls collide with each other, each collision resolved by the engine's collision law
//! (`response::integrate`, Mirtich §3.3, with friction and restitution) using the assembly's
//! collision matrix at the contact (`Assembly::collision_matrix`), so the joints answer every
//! impulse ideally.
//!
//! This is the first piece of "one world" (issue 36): contacts are found on the assembly's
//! fixed step grid (after each RK4 step, pairs that overlap and approach collide), not by the
//! world's event loop with its time of impact; balls fly ballistically and may be held to a
//! frictionless table (`Ball::on_table`: their height and vertical speed stay fixed, as a ball
//! rolling without friction on a table would). Penetration at detection is at most the
//! relative speed times the step. Each ball and striker may have its own friction and
//! restitution; a collision takes the mean of its two sides' (`Material::mean`, as the solids
//! and the world's bodies do).

use crate::dynamics::Material;
use crate::math::{Mat3, Vec3, orthonormal_basis};
use crate::response::integration::integrate;
use crate::response::{RestitutionLaw, body_collision_matrix};

use super::materials::OwnMaterials;
use super::{Assembly, AssemblyError};

/// A free solid ball.
#[derive(Clone, Debug, PartialEq)]
pub struct Ball {
    /// Name (for reports).
    pub name: String,
    /// Mass (positive).
    pub mass: f64,
    /// Radius (positive).
    pub radius: f64,
    /// Centre.
    pub position: Vec3,
    /// Centre velocity.
    pub velocity: Vec3,
    /// Angular velocity.
    pub angular_velocity: Vec3,
    /// Held to a frictionless table at its starting height (gravity's vertical pull is taken
    /// by the table; only horizontal motion remains).
    pub on_table: bool,
}

impl Ball {
    /// A ball at rest at `position`.
    pub fn new(name: impl Into<String>, mass: f64, radius: f64, position: Vec3) -> Self {
        Self {
            name: name.into(),
            mass,
            radius,
            position,
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            on_table: false,
        }
    }

    /// Kinetic energy, `½ m v² + ½ (2/5 m r²) ω²`.
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.norm_squared()
            + 0.2 * self.mass * self.radius.powi(2) * self.angular_velocity.norm_squared()
    }

    fn inverse_inertia(&self) -> Mat3 {
        Mat3::identity() / (0.4 * self.mass * self.radius * self.radius)
    }
}

/// A sphere fixed on an assembly body, which collides with the balls.
#[derive(Clone, Debug, PartialEq)]
pub struct Striker {
    /// Index of the assembly body.
    pub body: usize,
    /// The sphere's centre in the body frame (relative to its centre of mass).
    pub offset: Vec3,
    /// Radius (positive).
    pub radius: f64,
}

/// One collision resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Time.
    pub time: f64,
    /// Index of the striker, or `None` for two balls.
    pub striker: Option<usize>,
    /// Index of the ball (the second ball of a ball–ball hit in `other`).
    pub ball: usize,
    /// The other ball of a ball–ball hit.
    pub other: Option<usize>,
    /// Impulse on the ball (world).
    pub impulse: Vec3,
}

/// An assembly and free balls advanced together on the assembly's step grid.
#[derive(Clone, Debug)]
pub struct AssemblyWithBalls {
    /// The mechanism.
    pub assembly: Assembly,
    /// The free balls.
    pub balls: Vec<Ball>,
    /// Spheres on the assembly's bodies.
    pub strikers: Vec<Striker>,
    /// Restitution (the engine's default law, Stronge's) of a ball or striker without its own.
    pub restitution: f64,
    /// Coulomb friction of a ball or striker without its own.
    pub friction: f64,
    /// Every collision so far.
    pub hits: Vec<Hit>,
    /// Each ball's own material (without one, `restitution` and `friction`).
    ball_materials: OwnMaterials,
    /// Each striker's own material (without one, `restitution` and `friction`).
    striker_materials: OwnMaterials,
}

impl AssemblyWithBalls {
    /// Checks the balls and strikers and puts them with the assembly.
    pub fn new(
        assembly: Assembly,
        balls: Vec<Ball>,
        strikers: Vec<Striker>,
        restitution: f64,
        friction: f64,
    ) -> Result<Self, AssemblyError> {
        for b in &balls {
            let finite = [b.position, b.velocity, b.angular_velocity]
                .iter()
                .all(|v| v.iter().all(|x| x.is_finite()));
            let sized =
                b.mass.is_finite() && b.mass > 0.0 && b.radius.is_finite() && b.radius > 0.0;
            if !(sized && finite) {
                return Err(AssemblyError::Body {
                    body: b.name.clone(),
                    message: "a ball needs a positive mass and radius and a finite state".into(),
                });
            }
        }
        for (i, s) in strikers.iter().enumerate() {
            if s.body >= assembly.bodies().len()
                || !(s.radius.is_finite() && s.radius > 0.0)
                || !s.offset.iter().all(|x| x.is_finite())
            {
                return Err(AssemblyError::Body {
                    body: format!("striker {i}"),
                    message:
                        "a striker needs an existing body, a finite offset and a positive radius"
                            .into(),
                });
            }
        }
        let restitution_ok = restitution.is_finite() && (0.0..=1.0).contains(&restitution);
        let friction_ok = friction.is_finite() && friction >= 0.0;
        if !(restitution_ok && friction_ok) {
            return Err(AssemblyError::Body {
                body: String::new(),
                message: format!(
                    "restitution must be in [0, 1] and friction non-negative, found {restitution} and {friction}"
                ),
            });
        }
        Ok(Self {
            ball_materials: OwnMaterials::new("ball", balls.len()),
            striker_materials: OwnMaterials::new("striker", strikers.len()),
            assembly,
            balls,
            strikers,
            restitution,
            friction,
            hits: Vec::new(),
        })
    }

    /// Gives ball `b` its own friction and restitution (without one, a ball has
    /// `friction` and `restitution`).
    pub fn set_ball_material(&mut self, b: usize, material: Material) -> Result<(), AssemblyError> {
        let balls = &self.balls;
        self.ball_materials
            .set(b, |b| balls[b].name.clone(), material)
    }

    /// Gives striker `s` its own friction and restitution (without one, a striker has
    /// `friction` and `restitution`).
    pub fn set_striker_material(
        &mut self,
        s: usize,
        material: Material,
    ) -> Result<(), AssemblyError> {
        self.striker_materials
            .set(s, |s| format!("striker {s}"), material)
    }

    /// Ball `b`'s friction and restitution: its own, or the common ones.
    pub fn ball_material(&self, b: usize) -> Material {
        self.ball_materials.get(b, self.friction, self.restitution)
    }

    /// Striker `s`'s friction and restitution: its own, or the common ones.
    pub fn striker_material(&self, s: usize) -> Material {
        self.striker_materials
            .get(s, self.friction, self.restitution)
    }

    /// Current time.
    pub fn time(&self) -> f64 {
        self.assembly.time()
    }

    /// Striker `s`'s centre in the world now.
    pub fn striker_center(&self, s: usize) -> Vec3 {
        let st = &self.strikers[s];
        let pose = self.assembly.bodies()[st.body].pose();
        (pose * crate::math::Point::from(st.offset)).coords
    }

    /// Kinetic energy of the assembly and the balls.
    pub fn kinetic_energy(&self) -> f64 {
        self.assembly.kinetic_energy() + self.balls.iter().map(Ball::kinetic_energy).sum::<f64>()
    }

    /// Steps to the last grid time at or before `t`, resolving the collisions found after
    /// each step.
    pub fn advance_to(&mut self, t: f64) -> Result<(), AssemblyError> {
        let h = self.assembly.settings().step;
        let g = self.assembly.settings().gravity;
        loop {
            let before = self.assembly.time();
            let next = (self.assembly.steps() + 1) as f64 * h;
            if next > t + 1e-6 * h {
                return Ok(());
            }
            self.assembly.advance_to(next)?;
            let dt = self.assembly.time() - before;
            for b in &mut self.balls {
                // Exact ballistic flight over the step.
                let a = if b.on_table { g - g.z * Vec3::z() } else { g };
                b.position += b.velocity * dt + a * (0.5 * dt * dt);
                b.velocity += a * dt;
            }
            self.collide()?;
        }
    }

    /// Resolves every overlapping, approaching pair, in a fixed order (strikers against
    /// balls, then ball pairs), once per step.
    fn collide(&mut self) -> Result<(), AssemblyError> {
        for s in 0..self.strikers.len() {
            for b in 0..self.balls.len() {
                let c = self.striker_center(s);
                let ball = &self.balls[b];
                let d = ball.position - c;
                let reach = ball.radius + self.strikers[s].radius;
                if d.norm() >= reach || d.norm() == 0.0 {
                    continue;
                }
                let n = d / d.norm();
                let point = c + n * self.strikers[s].radius;
                let body = self.strikers[s].body;
                let r_ball = -n * ball.radius;
                let u = ball.velocity + ball.angular_velocity.cross(&r_ball)
                    - self.assembly.bodies()[body].point_velocity(&point);
                if u.dot(&n) >= 0.0 {
                    continue;
                }
                let k = body_collision_matrix(1.0 / ball.mass, &ball.inverse_inertia(), &r_ball)
                    + self.assembly.collision_matrix(body, &point)?;
                let material = self.striker_material(s).mean(&self.ball_material(b));
                let p = resolve(&k, &u, &n, &material);
                let ball = &mut self.balls[b];
                ball.velocity += p / ball.mass;
                ball.angular_velocity += ball.inverse_inertia() * r_ball.cross(&p);
                self.assembly.apply_impulse(body, &point, &-p)?;
                self.hits.push(Hit {
                    time: self.assembly.time(),
                    striker: Some(s),
                    ball: b,
                    other: None,
                    impulse: p,
                });
            }
        }
        for i in 0..self.balls.len() {
            for j in i + 1..self.balls.len() {
                let (a, b) = (&self.balls[i], &self.balls[j]);
                let d = a.position - b.position;
                if d.norm() >= a.radius + b.radius || d.norm() == 0.0 {
                    continue;
                }
                let n = d / d.norm();
                let (ra, rb) = (-n * a.radius, n * b.radius);
                let u = a.velocity + a.angular_velocity.cross(&ra)
                    - b.velocity
                    - b.angular_velocity.cross(&rb);
                if u.dot(&n) >= 0.0 {
                    continue;
                }
                let k = body_collision_matrix(1.0 / a.mass, &a.inverse_inertia(), &ra)
                    + body_collision_matrix(1.0 / b.mass, &b.inverse_inertia(), &rb);
                let material = self.ball_material(i).mean(&self.ball_material(j));
                let p = resolve(&k, &u, &n, &material);
                let (ia, ib) = (
                    self.balls[i].inverse_inertia(),
                    self.balls[j].inverse_inertia(),
                );
                let (ma, mb) = (self.balls[i].mass, self.balls[j].mass);
                self.balls[i].velocity += p / ma;
                self.balls[i].angular_velocity += ia * ra.cross(&p);
                self.balls[j].velocity -= p / mb;
                self.balls[j].angular_velocity -= ib * rb.cross(&p);
                self.hits.push(Hit {
                    time: self.assembly.time(),
                    striker: None,
                    ball: i,
                    other: Some(j),
                    impulse: p,
                });
            }
        }
        Ok(())
    }
}

/// The impulse on body 1 (world) for collision matrix `k` (world), relative velocity `u`,
/// normal `n` (towards body 1) and the pair's `material` (the mean of its two sides', as
/// between two bodies of the world: `Material::mean`), by the engine's collision
/// integration.
fn resolve(k: &Mat3, u: &Vec3, n: &Vec3, material: &Material) -> Vec3 {
    let (t1, t2) = orthonormal_basis(n);
    let frame = Mat3::from_columns(&[t1, t2, *n]);
    let k_local = frame.transpose() * k * frame;
    let u_local = frame.transpose() * u;
    let out = integrate(
        &k_local,
        &u_local,
        material.friction,
        material.restitution,
        RestitutionLaw::default(),
    );
    frame * out.impulse
}
