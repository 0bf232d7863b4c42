//! Collision detection: closest features between convex polyhedra (V-Clip), distances for curved
//! shapes, broad phases, time-of-impact bounds and the collision heap (Mirtich ch. 2).

pub mod vclip;
