//! Linear complementarity problems for constraint-based contact (Baraff ch. 8–10, 13, 14,
//! App. B): Lemke's algorithm, a brute-force oracle, and Baraff's contact problems as pure
//! functions.
//!
//! - [`lemke`]: Lemke's algorithm for `w = M z + q ≥ 0, z ≥ 0, wᵀz = 0`, lexicographic (no
//!   cycling on degenerate problems), warm-started from a complementary basis, ending in a
//!   checked solution, a secondary ray, a pivot limit or a named numerical breakdown.
//! - [`enumerate`]: every basic solution of a small LCP, by trying every complementary basis.
//! - [`contact`]: the contact problem of rigid bodies touching at points, and its LCPs:
//!   frictionless (ch. 8), dynamic friction (ch. 9–10), static friction (§14.2.3's model as an
//!   LCP, and §14.2.2's crawl), and collision impulses (§4.2, §9.4).
//! - [`sticking`]: the force problem with sticking contacts held by tangential constraints,
//!   eliminated so that Lemke sees only the normal forces.
//! - [`impulse`]: the impulse a Lemke ray stands for (ch. 13), and collision impulses that
//!   never add energy.
//!
//! A typical resting-contact step: build a [`ContactSystem`] from the bodies and contacts,
//! take the LCP of the friction model, solve it warm-started from the last step's basis; on a
//! solution apply [`ContactLcp::contact_forces`]; on a ray apply [`ray_impulse`]'s impulses,
//! then resolve the collisions they leave with [`collide`].

pub mod contact;
pub mod enumerate;
pub mod impulse;
pub mod lemke;
pub(crate) mod mixed;
pub(crate) mod sticking;

pub use contact::{
    ContactBody, ContactError, ContactLcp, ContactPoint, ContactSystem, Item, apply_impulses,
    body_wrenches,
};
pub use enumerate::{BasicSolution, basic_solutions};
pub use impulse::{Collision, CollisionError, RayImpulse, collide, ray_impulse};
pub use lemke::{
    Basis, LcpError, LemkeOptions, Outcome, Ray, Solution, Start, check_ray, check_solution, solve,
};

#[cfg(test)]
mod baraff_tests;
#[cfg(test)]
mod friction_tests;
#[cfg(test)]
mod oracle_tests;
