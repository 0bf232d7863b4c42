//! The `impulse` Python package's native module, `impulse._impulse`: scenes loaded into
//! worlds, stepped and read as numpy arrays, mass properties and pose statistics. The pure
//! Python part (`python/impulse/`) adds sweeps on a process pool or Ray. Everything here goes
//! through the engine's public API.

use pyo3::prelude::*;

mod errors;
mod mass;
mod overrides;
mod poses;
mod world;

#[pymodule]
fn _impulse(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ImpulseError", py.get_type::<errors::ImpulseError>())?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("OverrideError", py.get_type::<errors::OverrideError>())?;
    m.add("SimulationError", py.get_type::<errors::SimulationError>())?;
    m.add_class::<world::World>()?;
    m.add_function(wrap_pyfunction!(world::load, m)?)?;
    m.add_function(wrap_pyfunction!(world::apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(mass::mass_properties, m)?)?;
    m.add_function(wrap_pyfunction!(poses::poses, m)?)?;
    m.add_function(wrap_pyfunction!(poses::merge_poses, m)?)?;
    m.add_function(wrap_pyfunction!(poses::pose_probabilities, m)?)?;
    Ok(())
}
