//! `impulse.mass_properties(mesh)`: `impulse mass FILE --json` as a dict.

use std::path::PathBuf;

use impulse::geometry::read_solid_mesh;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::ImpulseError;

/// Mass properties of a closed mesh (OBJ or STL) of uniform `density`, as `impulse mass FILE
/// --json` reports them: `volume`, `mass`, `center_of_mass` (3,), `inertia` (3, 3) about the
/// centre of mass along the mesh's axes, `principal_moments` (3,) and `principal_axes` (3, 3),
/// one axis a row, plus `file`, `vertices`, `faces` and `density`. Raises `ImpulseError` with
/// the command line's message for a mesh that cannot be read or is not a closed solid.
#[pyfunction]
#[pyo3(signature = (mesh, density = 1.0))]
pub fn mass_properties<'py>(
    py: Python<'py>,
    mesh: PathBuf,
    density: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if !(density.is_finite() && density > 0.0) {
        return Err(PyValueError::new_err(format!(
            "density must be a positive number, got {density}"
        )));
    }
    let solid = read_solid_mesh(&mesh).map_err(|e| ImpulseError::new_err(e.to_string()))?;
    let props = solid.volume_integrals().mass_properties(density);
    let (moments, axes) = props.principal();
    let axes = axes.to_rotation_matrix().into_inner();
    let c = props.center_of_mass;
    let m = props.inertia;
    let dict = PyDict::new(py);
    dict.set_item("file", mesh.display().to_string())?;
    dict.set_item("vertices", solid.vertices.len())?;
    dict.set_item("faces", solid.faces.len())?;
    dict.set_item("density", density)?;
    dict.set_item("volume", props.volume)?;
    dict.set_item("mass", props.mass)?;
    dict.set_item(
        "center_of_mass",
        PyArray1::from_vec(py, vec![c.x, c.y, c.z]),
    )?;
    let rows = |f: &dyn Fn(usize, usize) -> f64| -> PyResult<Bound<'py, PyAny>> {
        let data: Vec<f64> = (0..9).map(|k| f(k / 3, k % 3)).collect();
        Ok(PyArray1::from_vec(py, data).reshape([3, 3])?.into_any())
    };
    dict.set_item("inertia", rows(&|i, j| m[(i, j)])?)?;
    dict.set_item(
        "principal_moments",
        PyArray1::from_vec(py, vec![moments.x, moments.y, moments.z]),
    )?;
    // Row k is the k-th principal axis (a column of the rotation).
    dict.set_item("principal_axes", rows(&|k, i| axes[(i, k)])?)?;
    Ok(dict)
}
