//! Scaffolding shared by the integration tests (each takes what it needs with `mod common;`):
//! seeded random draws (`random`), multibodies (`multibodies`), Kalra assemblies
//! (`assemblies`), worlds and bodies with their momentum and energy (`worlds`), and scene files
//! (`scenes`).

// Each test file uses only some of these.
#![allow(dead_code)]

pub mod assemblies;
pub mod multibodies;
pub mod random;
pub mod scenes;
pub mod worlds;
