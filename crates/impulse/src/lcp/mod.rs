//! Linear complementarity problems for constraint-based contact (Baraff ch. 8–10, 13, 14,
//! App. B): Lemke's algorithm, a brute-force oracle, and Baraff's contact problems as pure
//! functions.
//!
//! - [`lemke`]: Lemke's algorithm for `w = M z + q ≥ 0, z ≥ 0, wᵀz = 0`, lexicographic (no
//!   cycling on degenerate problems), warm-started from a complementary basis, ending in a
//!   checked solution, a secondary ray, a pivot limit or a named numerical breakdown.
//! - [`enumerate`]: every basic solution of a small LCP, by trying every complementary basis.

pub mod enumerate;
pub mod lemke;

pub use enumerate::{BasicSolution, basic_solutions};
pub use lemke::{
    Basis, LcpError, LemkeOptions, Outcome, Ray, Solution, Start, check_ray, check_solution, solve,
};

#[cfg(test)]
mod oracle_tests;
