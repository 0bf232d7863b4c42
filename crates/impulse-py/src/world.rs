//! `impulse.load` and `impulse.World`: a scene's world, stepped from Python, its states as
//! numpy arrays, and `World.run`, which is `impulse run` without the files.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use impulse::math::{Quat, Vec3, pose};
use impulse::prelude::{BodyId, BodyState, Material, Scene};
use impulse::run::events::EventWriter;
use impulse::run::trajectory::{TRAJECTORY_HEADER, TrajectoryWriter};
use impulse::run::{Recorders, run_scene};
use impulse::scene::{self, RunOptions};
use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::{OverrideError, SceneError, SimulationError};
use crate::overrides::{self, Override};

/// The path a scene given as text is read "from" (messages name it; meshes are found
/// relative to the working directory).
const TEXT_PATH: &str = "<string>";

/// A scene given as a path or as TOML text, with overrides written in, read into a scene.
/// The errors are the command line's: `impulse run` prints the same lines.
pub fn read_scene(
    scene: &str,
    path: Option<PathBuf>,
    overrides: &[Override],
) -> Result<Scene, PyErr> {
    let is_text = !Path::new(scene).is_file() && (scene.contains('\n') || scene.contains('='));
    let (path, text) = if is_text {
        (
            path.unwrap_or_else(|| PathBuf::from(TEXT_PATH)),
            scene.to_string(),
        )
    } else {
        let file = PathBuf::from(scene);
        let text = std::fs::read_to_string(&file).map_err(|e| {
            SceneError::new_err(format!(
                "{}: cannot read the scene file: {e}",
                file.display()
            ))
        })?;
        (path.unwrap_or(file), text)
    };
    let text = if overrides.is_empty() {
        text
    } else {
        overrides::apply(&text, overrides).map_err(OverrideError::new_err)?
    };
    scene::parse(&path, &text).map_err(|error| {
        // An override naming a key the scene format does not know: say so first.
        for d in error.diagnostics() {
            if overrides.iter().any(|(key, _)| *key == d.key) && d.message.contains("unknown key") {
                return OverrideError::new_err(format!("unknown override key `{}`: {d}", d.key));
            }
        }
        SceneError::new_err(error.to_string())
    })
}

/// Python values (numbers, strings, booleans, lists, tuples, dicts, numpy arrays) as JSON
/// values, the form overrides travel in.
pub fn to_json(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    use serde_json::Value as J;
    if value.is_none() {
        return Err(PyTypeError::new_err("None is not a scene value"));
    }
    if let Ok(b) = value.extract::<bool>() {
        return Ok(J::Bool(b));
    }
    if value.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(J::from(value.extract::<i64>()?));
    }
    if value.is_instance_of::<pyo3::types::PyFloat>() {
        let x: f64 = value.extract()?;
        return serde_json::Number::from_f64(x)
            .map(J::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{x} is not a finite number")));
    }
    // numpy arrays and scalars (np.int64 → int, np.float32 → float).
    if value.hasattr("tolist")? && !value.is_instance_of::<PyList>() {
        return to_json(&value.call_method0("tolist")?);
    }
    if let Ok(s) = value.extract::<String>() {
        return Ok(J::String(s));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in dict.iter() {
            map.insert(k.extract::<String>()?, to_json(&v)?);
        }
        return Ok(J::Object(map));
    }
    if let Ok(items) = value.try_iter() {
        return items
            .map(|item| to_json(&item?))
            .collect::<PyResult<Vec<_>>>()
            .map(J::Array);
    }
    Err(PyTypeError::new_err(format!(
        "{} is not a scene value (numbers, strings, booleans and lists of them)",
        value.repr()?
    )))
}

/// Overrides from a Python mapping `{"world.gravity": [0, 0, -1.62], ...}`, in its order.
pub fn overrides_of(overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Override>> {
    let Some(dict) = overrides else {
        return Ok(Vec::new());
    };
    dict.iter()
        .map(|(k, v)| {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("override keys are dotted strings"))?;
            let value = to_json(&v).map_err(|e| {
                PyTypeError::new_err(format!("override `{key}`: {}", e.value(v.py())))
            })?;
            Ok((key, value))
        })
        .collect()
}

/// Reads a scene into a world at time 0.
///
/// `scene` is a scene file's path or the TOML text of a scene. `overrides` maps dotted keys
/// (`"world.gravity"`, `"materials.steel.friction"`, `"bodies.ball.velocity"`: an element of
/// an array of tables by its `name` or index) to new values, written into the TOML document
/// before it is read. `path` is where a scene given as text is read from (messages name it;
/// meshes are found relative to it; default `<string>` in the working directory).
///
/// Raises `SceneError` with the messages `impulse check` prints, `OverrideError` for an
/// override key the scene has not got. Warnings are issued as `UserWarning`s.
#[pyfunction]
#[pyo3(signature = (scene, overrides = None, *, path = None))]
pub fn load(
    py: Python<'_>,
    scene: &str,
    overrides: Option<&Bound<'_, PyDict>>,
    path: Option<PathBuf>,
) -> PyResult<World> {
    let overrides = overrides_of(overrides)?;
    let scene = read_scene(scene, path, &overrides)?;
    for warning in &scene.warnings {
        let text = std::ffi::CString::new(warning.to_string()).map_err(value_error)?;
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyUserWarning>(),
            &text,
            1,
        )?;
    }
    Ok(World {
        inner: Mutex::new(scene),
    })
}

/// The TOML text of `scene` (a path or text) with `overrides` written in: what `load` reads.
#[pyfunction]
#[pyo3(signature = (scene, overrides))]
pub fn apply_overrides(scene: &str, overrides: &Bound<'_, PyDict>) -> PyResult<String> {
    let overrides = overrides_of(Some(overrides))?;
    let text = if !Path::new(scene).is_file() && (scene.contains('\n') || scene.contains('=')) {
        scene.to_string()
    } else {
        std::fs::read_to_string(scene)
            .map_err(|e| SceneError::new_err(format!("{scene}: cannot read the scene file: {e}")))?
    };
    overrides::apply(&text, &overrides).map_err(OverrideError::new_err)
}

/// A world built from a scene, at its current time.
#[pyclass(module = "impulse", name = "World")]
pub struct World {
    // Python objects may be shared between threads: the engine's state is behind a lock
    // (never waited for: a World busy in another thread raises instead).
    inner: Mutex<Scene>,
}

/// A body's state as the trajectory gives it: model-frame position, quaternion (w, x, y, z),
/// centre-of-mass velocity, angular velocity.
type Row = ([f64; 3], [f64; 4], [f64; 3], [f64; 3]);

fn row_of(body: &impulse::RigidBody) -> Row {
    let model = body.model_pose();
    let p = model.translation.vector;
    let q = model.rotation.quaternion();
    let (v, w) = (body.state().velocity, body.state().angular_velocity);
    (
        [p.x, p.y, p.z],
        [q.w, q.i, q.j, q.k],
        [v.x, v.y, v.z],
        [w.x, w.y, w.z],
    )
}

/// Rows of `K` numbers as a float64 `(rows, K)` array. The numbers are gathered from the
/// engine once, into a buffer the numpy array then owns: one copy, none after (the engine keeps
/// each body's state in its own record, and model frames are computed, so there is no engine
/// memory laid out as the array to view).
fn rows_array<'py, const K: usize>(
    py: Python<'py>,
    rows: impl Iterator<Item = [f64; K]>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rows: Vec<[f64; K]> = rows.collect();
    let n = rows.len();
    Array2::from_shape_vec((n, K), rows.into_flattened())
        .map(|array| array.into_pyarray(py))
        .map_err(|e| PyValueError::new_err(format!("cannot shape the array: {e}")))
}

/// An engine error as Python's `ValueError` (a value the engine refused).
fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// Material `now` with the friction and restitution that are given.
fn changed(now: Material, friction: Option<f64>, restitution: Option<f64>) -> Material {
    Material {
        friction: friction.unwrap_or(now.friction),
        restitution: restitution.unwrap_or(now.restitution),
    }
}

fn vec3(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn positive(name: &str, value: Option<f64>) -> PyResult<Option<f64>> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(PyValueError::new_err(format!(
            "{name} must be a positive number, got {v}"
        ))),
        other => Ok(other),
    }
}

/// Rows of an `(n, k)` float64 array argument, checked against the body count.
fn rows_of(
    name: &str,
    array: Option<PyReadonlyArray2<'_, f64>>,
    n: usize,
    k: usize,
) -> PyResult<Option<Vec<Vec<f64>>>> {
    let Some(array) = array else { return Ok(None) };
    let view = array.as_array();
    let shape = view.shape();
    if shape != [n, k] {
        return Err(PyValueError::new_err(format!(
            "{name} must have shape ({n}, {k}) (one row per body), got {shape:?}"
        )));
    }
    Ok(Some(view.rows().into_iter().map(|r| r.to_vec()).collect()))
}

fn simulation_error(scene: &Scene, error: impl std::fmt::Display) -> PyErr {
    SimulationError::new_err(format!(
        "{error}; the world stopped at t = {}",
        scene.world.time()
    ))
}

impl World {
    /// The scene, for reading.
    fn scene(&self) -> PyResult<MutexGuard<'_, Scene>> {
        match self.inner.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "this World is busy in another thread (step, advance_to or run)",
            )),
        }
    }

    /// The scene, for changing (Python's borrow of `self` is exclusive).
    fn scene_mut(&mut self) -> &mut Scene {
        self.inner.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    fn advance(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        let scene = self.scene_mut();
        let result = py.detach(|| {
            let result = scene.world.advance_to(t);
            // Events are recorded only by `run`; here they would pile up.
            drop(scene.world.take_events());
            result
        });
        result.map_err(|e| simulation_error(scene, e))
    }

    fn body_index(scene: &Scene, body: &Bound<'_, PyAny>) -> PyResult<BodyId> {
        let n = scene.world.bodies().len();
        if let Ok(i) = body.extract::<usize>() {
            return if i < n {
                Ok(BodyId(i))
            } else {
                Err(PyIndexError::new_err(format!(
                    "body index {i} out of range: the world has {n} bodies"
                )))
            };
        }
        let name: String = body
            .extract()
            .map_err(|_| PyTypeError::new_err("a body is named by its name or index"))?;
        scene
            .world
            .body_id(&name)
            .ok_or_else(|| PyKeyError::new_err(format!("the world has no body named `{name}`")))
    }
}

#[pymethods]
impl World {
    /// The scene's name (`world.name`, or the file's stem).
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.scene()?.name.clone())
    }

    /// The scene file (or `<string>` for a scene given as text).
    #[getter]
    fn path(&self) -> PyResult<String> {
        Ok(self.scene()?.path.display().to_string())
    }

    /// The current simulated time.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.scene()?.world.time())
    }

    /// The scene's `world.duration` (what `run` simulates by default).
    #[getter]
    fn duration(&self) -> PyResult<f64> {
        Ok(self.scene()?.duration)
    }

    /// The scene's `world.output_rate`, frames per unit time (what `run` records by default).
    #[getter]
    fn output_rate(&self) -> PyResult<f64> {
        Ok(self.scene()?.output_rate)
    }

    /// The gravity vector, a float64 array of shape (3,). Assigning it (`world.gravity =
    /// [0, 0, -1.62]`) changes the gravity from the current time on: every body and multibody
    /// flies on from its present state under the new one, sleeping bodies wake. `ValueError`
    /// for a vector that is not three finite numbers.
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.scene()?.world.settings().gravity;
        Ok(PyArray1::from_vec(py, vec![g.x, g.y, g.z]))
    }

    #[setter]
    fn set_gravity(&mut self, gravity: [f64; 3]) -> PyResult<()> {
        self.scene_mut()
            .world
            .set_gravity(Vec3::from(gravity))
            .map_err(value_error)
    }

    /// Applies `force` (3 numbers, world frame) to a dynamic body (by name or index) from the
    /// current time on, held until changed — as MuJoCo's `xfrc_applied` is, not for one step as
    /// pybullet's `applyExternalForce` is. The force replaces the body's applied force *and*
    /// torque: acting at `point` (world coordinates), the torque becomes its moment about the
    /// centre of mass, `(point − c) × force`, taken now and then held fixed in the world frame
    /// (the point does not travel with the body: call again to follow it); without `point`
    /// it acts at the centre of mass and the torque becomes zero. `apply_force(body, [0, 0,
    /// 0])` removes both. A scene's `force`/`torque` keys are the initial values.
    /// `ValueError` for a fixed or kinematic body or numbers that are not finite.
    #[pyo3(signature = (body, force, point = None))]
    fn apply_force(
        &mut self,
        body: &Bound<'_, PyAny>,
        force: [f64; 3],
        point: Option<[f64; 3]>,
    ) -> PyResult<()> {
        let scene = self.scene_mut();
        let id = Self::body_index(scene, body)?;
        let force = Vec3::from(force);
        let torque = match point {
            Some(p) => (Vec3::from(p) - scene.world.body(id).state().position).cross(&force),
            None => Vec3::zeros(),
        };
        scene
            .world
            .set_applied_force(id, force, torque)
            .map_err(value_error)
    }

    /// Applies `torque` (3 numbers, world frame) to a dynamic body from the current time on,
    /// held until changed; replaces the body's applied torque and keeps its applied force.
    /// `ValueError` as `apply_force`.
    fn apply_torque(&mut self, body: &Bound<'_, PyAny>, torque: [f64; 3]) -> PyResult<()> {
        let scene = self.scene_mut();
        let id = Self::body_index(scene, body)?;
        let force = scene.world.body(id).force();
        scene
            .world
            .set_applied_force(id, force, Vec3::from(torque))
            .map_err(value_error)
    }

    /// The bodies' applied forces (at the centres of mass, world frame), float64 (n, 3).
    #[getter]
    fn applied_forces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let scene = self.scene()?;
        rows_array(py, scene.world.bodies().iter().map(|b| vec3(&b.force())))
    }

    /// The bodies' applied torques (world frame), float64 (n, 3).
    #[getter]
    fn applied_torques<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let scene = self.scene()?;
        rows_array(py, scene.world.bodies().iter().map(|b| vec3(&b.torque())))
    }

    /// Friction and restitution of a contact between two bodies (by name or index) now:
    /// `{"friction": ..., "restitution": ...}` (a body-pair override, else a material-pair
    /// one, else the mean of the bodies' own).
    fn contact_material(
        &self,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<std::collections::BTreeMap<String, f64>> {
        let scene = self.scene()?;
        let (a, b) = (Self::body_index(&scene, a)?, Self::body_index(&scene, b)?);
        let m = scene.world.contact_material(a, b);
        Ok([("friction", m.friction), ("restitution", m.restitution)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect())
    }

    /// Friction and restitution of contacts between two particular bodies (by name or index),
    /// from the next contact on; what is not given stays as `contact_material` gives it now.
    /// This override wins over material pairs and the bodies' own materials. `ValueError` for
    /// friction < 0 or restitution outside [0, 1].
    #[pyo3(signature = (a, b, friction = None, restitution = None))]
    fn set_pair_material(
        &mut self,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        friction: Option<f64>,
        restitution: Option<f64>,
    ) -> PyResult<()> {
        let scene = self.scene_mut();
        let (a, b) = (Self::body_index(scene, a)?, Self::body_index(scene, b)?);
        let material = changed(scene.world.contact_material(a, b), friction, restitution);
        scene
            .world
            .set_pair_material(a, b, material)
            .map_err(value_error)
    }

    /// A body's own surface material (by name or index), from the next contact on: what a
    /// contact takes the mean of when no pair override applies. What is not given is kept.
    /// `ValueError` for friction < 0 or restitution outside [0, 1].
    #[pyo3(signature = (body, friction = None, restitution = None))]
    fn set_body_material(
        &mut self,
        body: &Bound<'_, PyAny>,
        friction: Option<f64>,
        restitution: Option<f64>,
    ) -> PyResult<()> {
        let scene = self.scene_mut();
        let id = Self::body_index(scene, body)?;
        let material = changed(scene.world.body(id).material(), friction, restitution);
        scene
            .world
            .set_body_material(id, material)
            .map_err(value_error)
    }

    /// The bodies' names, in the order of the state arrays' rows.
    #[getter]
    fn body_names(&self) -> PyResult<Vec<String>> {
        let scene = self.scene()?;
        Ok(scene
            .world
            .bodies()
            .iter()
            .map(|b| b.name().to_string())
            .collect())
    }

    /// Model-frame positions of the bodies (where the scene placed them), float64 (n, 3).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, self.scene()?.world.bodies().iter().map(|b| row_of(b).0))
    }

    /// Model-frame orientations as unit quaternions (w, x, y, z), float64 (n, 4).
    #[getter]
    fn quaternions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, self.scene()?.world.bodies().iter().map(|b| row_of(b).1))
    }

    /// Velocities of the centres of mass, float64 (n, 3).
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, self.scene()?.world.bodies().iter().map(|b| row_of(b).2))
    }

    /// Angular velocities (world frame), float64 (n, 3).
    #[getter]
    fn angular_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, self.scene()?.world.bodies().iter().map(|b| row_of(b).3))
    }

    /// The multibodies' links, `multibody/link`, in the order of the link arrays' rows (and of
    /// `run`'s rows after the bodies).
    #[getter]
    fn link_names(&self) -> PyResult<Vec<String>> {
        let scene = self.scene()?;
        let bodies = scene.world.bodies().len();
        Ok(frame_names(&scene).split_off(bodies))
    }

    /// Model-frame positions of the links, float64 (m, 3).
    #[getter]
    fn link_positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, link_rows(&*self.scene()?).into_iter().map(|r| r.0))
    }

    /// Model-frame orientations of the links (w, x, y, z), float64 (m, 4).
    #[getter]
    fn link_quaternions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, link_rows(&*self.scene()?).into_iter().map(|r| r.1))
    }

    /// Velocities of the links' centres of mass, float64 (m, 3).
    #[getter]
    fn link_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, link_rows(&*self.scene()?).into_iter().map(|r| r.2))
    }

    /// Angular velocities of the links, float64 (m, 3).
    #[getter]
    fn link_angular_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        rows_array(py, link_rows(&*self.scene()?).into_iter().map(|r| r.3))
    }

    /// The joint coordinates `q` of a multibody (by name), float64.
    fn joint_positions<'py>(
        &self,
        py: Python<'py>,
        multibody: &str,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let scene = self.scene()?;
        let id = multibody_id(&scene, multibody)?;
        Ok(PyArray1::from_slice(py, scene.world.multibody(id).q()))
    }

    /// The joint velocities `v` of a multibody (by name), float64.
    fn joint_velocities<'py>(
        &self,
        py: Python<'py>,
        multibody: &str,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let scene = self.scene()?;
        let id = multibody_id(&scene, multibody)?;
        Ok(PyArray1::from_slice(py, scene.world.multibody(id).v()))
    }

    /// Sets a multibody's joint velocities at the current time (one finite value per velocity
    /// coordinate, as `joint_velocities` gives them; `ValueError` otherwise).
    fn set_joint_velocities(&mut self, multibody: &str, v: Vec<f64>) -> PyResult<()> {
        let scene = self.scene_mut();
        let id = multibody_id(scene, multibody)?;
        scene
            .world
            .set_multibody_velocities(id, &v)
            .map_err(value_error)
    }

    /// Whether each body is asleep, bool (n,).
    #[getter]
    fn asleep<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let scene = self.scene()?;
        let data: Vec<bool> = scene.world.bodies().iter().map(|b| b.is_asleep()).collect();
        Ok(PyArray1::from_vec(py, data))
    }

    /// Masses of the bodies, float64 (n,) (fixed and kinematic bodies have one from their
    /// shapes too, but move as if infinitely massive).
    #[getter]
    fn masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let scene = self.scene()?;
        let data: Vec<f64> = scene.world.bodies().iter().map(|b| b.mass()).collect();
        Ok(PyArray1::from_vec(py, data))
    }

    /// Sets body states at the current time. Each argument is a float64 array with one row
    /// per body (shapes as the properties: (n, 3), or (n, 4) for quaternions w, x, y, z);
    /// what is not given is kept. A row equal to the body's present state is left alone (so
    /// fixed bodies may be given their own rows); any other change to a fixed or kinematic
    /// body, or to a body held in resting contact, raises `ValueError`. Quaternions are
    /// normalised (their length must be 1 within 1e-6). Changed bodies wake and start a new
    /// flight; the energy bound measures from the new state.
    #[pyo3(signature = (positions = None, quaternions = None, velocities = None, angular_velocities = None))]
    fn set_states(
        &mut self,
        positions: Option<PyReadonlyArray2<'_, f64>>,
        quaternions: Option<PyReadonlyArray2<'_, f64>>,
        velocities: Option<PyReadonlyArray2<'_, f64>>,
        angular_velocities: Option<PyReadonlyArray2<'_, f64>>,
    ) -> PyResult<()> {
        let scene = self.scene_mut();
        let n = scene.world.bodies().len();
        let p = rows_of("positions", positions, n, 3)?;
        let q = rows_of("quaternions", quaternions, n, 4)?;
        let v = rows_of("velocities", velocities, n, 3)?;
        let w = rows_of("angular_velocities", angular_velocities, n, 3)?;
        // Every row is checked before any body changes.
        let mut changes = Vec::new();
        for i in 0..n {
            let body = &scene.world.bodies()[i];
            let now = row_of(body);
            let pick3 = |rows: &Option<Vec<Vec<f64>>>, old: [f64; 3]| {
                rows.as_ref().map_or(old, |r| [r[i][0], r[i][1], r[i][2]])
            };
            let new: Row = (
                pick3(&p, now.0),
                q.as_ref()
                    .map_or(now.1, |r| [r[i][0], r[i][1], r[i][2], r[i][3]]),
                pick3(&v, now.2),
                pick3(&w, now.3),
            );
            if new == now {
                continue;
            }
            // Refused here, before any body changes, as `set_body_state` would refuse it.
            if !body.is_dynamic() || body.is_held() {
                return Err(PyValueError::new_err(format!(
                    "body `{}`: only a dynamic body no constraint group holds can be given a \
                     new state, and this one is {}",
                    body.name(),
                    if body.is_held() {
                        "held in resting contact"
                    } else {
                        "fixed or kinematic"
                    }
                )));
            }
            changes.push((i, state_of(body, &new)?));
        }
        for (i, state) in changes {
            scene
                .world
                .set_body_state(BodyId(i), state)
                .map_err(value_error)?;
        }
        Ok(())
    }

    /// Sets one body's state (by name or index); arguments as `set_states`, one row each.
    #[pyo3(signature = (body, position = None, quaternion = None, velocity = None, angular_velocity = None))]
    fn set_state(
        &mut self,
        body: &Bound<'_, PyAny>,
        position: Option<[f64; 3]>,
        quaternion: Option<[f64; 4]>,
        velocity: Option<[f64; 3]>,
        angular_velocity: Option<[f64; 3]>,
    ) -> PyResult<()> {
        let scene = self.scene_mut();
        let id = Self::body_index(scene, body)?;
        let now = row_of(scene.world.body(id));
        let new: Row = (
            position.unwrap_or(now.0),
            quaternion.unwrap_or(now.1),
            velocity.unwrap_or(now.2),
            angular_velocity.unwrap_or(now.3),
        );
        let state = state_of(scene.world.body(id), &new)?;
        scene.world.set_body_state(id, state).map_err(value_error)
    }

    /// Advances the world by `dt` (> 0) to `time + dt`, `steps` times over (the loop runs in
    /// the engine: one call, not `steps`). The GIL is released meanwhile. Raises
    /// `SimulationError` if the simulation cannot go on.
    #[pyo3(signature = (dt, steps = 1))]
    fn step(&mut self, py: Python<'_>, dt: f64, steps: u64) -> PyResult<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(PyValueError::new_err(format!(
                "dt must be a positive number, got {dt}"
            )));
        }
        let scene = self.scene_mut();
        let result = py.detach(|| {
            for _ in 0..steps {
                let t = scene.world.time() + dt;
                scene.world.advance_to(t)?;
                // Events are recorded only by `run`; here they would pile up.
                drop(scene.world.take_events());
            }
            Ok(())
        });
        result.map_err(|e: impulse::prelude::SimulationError| simulation_error(scene, e))
    }

    /// Advances the world to time `t` (not before the current time); exact frame times do not
    /// accumulate rounding as repeated `step`s do. The GIL is released meanwhile.
    fn advance_to(&mut self, py: Python<'_>, t: f64) -> PyResult<()> {
        self.advance(py, t)
    }

    /// The event and work counters, as in `summary.json` (without `output_frames`).
    fn counters(&self) -> PyResult<std::collections::BTreeMap<String, u64>> {
        let scene = self.scene()?;
        let entries = scene.world.counters().entries();
        Ok(entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect())
    }

    /// Kinetic, potential and total energy now: `{"kinetic": ..., "potential": ..., "total": ...}`.
    fn energy(&self) -> PyResult<std::collections::BTreeMap<String, f64>> {
        let e = self.scene()?.world.energy();
        Ok([
            ("kinetic", e.kinetic),
            ("potential", e.potential),
            ("total", e.total()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect())
    }

    /// Deepest interpenetration of two bodies seen so far.
    #[getter]
    fn max_penetration(&self) -> PyResult<f64> {
        Ok(self.scene()?.world.max_penetration())
    }

    /// Friction and restitution of contacts between bodies of materials `a` and `b` (names
    /// from the scene's `[materials]`), from the next contact on. Raises `ValueError` for
    /// friction < 0 or restitution outside [0, 1].
    fn set_material_pair(
        &mut self,
        a: &str,
        b: &str,
        friction: f64,
        restitution: f64,
    ) -> PyResult<()> {
        self.scene_mut()
            .world
            .set_material_pair(
                a,
                b,
                Material {
                    friction,
                    restitution,
                },
            )
            .map_err(value_error)
    }

    /// Runs the world from t = 0 for `duration` (default: the scene's), recording `fps` frames
    /// per unit time (default: the scene's `output_rate`) — exactly what `impulse run` does.
    ///
    /// Returns a dict: the trajectory's columns as in `trajectory.csv` (`"t"`, `"body"` (list
    /// of str), `"x"`, `"y"`, `"z"`, `"qw"`, `"qx"`, `"qy"`, `"qz"`, `"vx"`, `"vy"`, `"vz"`,
    /// `"wx"`, `"wy"`, `"wz"` float64 and `"asleep"` bool, one entry per row, frames × bodies
    /// (links included, as `multibody/link`)); the same by frame: `"frames"` (F,), `"names"`
    /// (N,), `"positions"` (F, N, 3), `"quaternions"` (F, N, 4), `"velocities"` (F, N, 3),
    /// `"angular_velocities"` (F, N, 3); `"summary"`, the contents of `summary.json`; and with
    /// `csv=True`, `"csv"`: the bytes of `trajectory.csv`. The GIL is released during the run.
    /// A run the simulation stops early raises `SimulationError` whose `result` attribute
    /// holds this dict up to the stop.
    #[pyo3(signature = (duration = None, fps = None, *, csv = false))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        duration: Option<f64>,
        fps: Option<f64>,
        csv: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let duration = positive("duration", duration)?;
        let fps = positive("fps", fps)?;
        let scene = self.scene_mut();
        if scene.world.time() != 0.0 {
            return Err(PyValueError::new_err(format!(
                "run() records from t = 0, and this world is at t = {}; load the scene again",
                scene.world.time()
            )));
        }
        let options = RunOptions {
            duration: duration.unwrap_or(scene.duration),
            frame_rate: fps.unwrap_or(scene.output_rate),
        };
        options.check().map_err(PyValueError::new_err)?;
        let (bytes, outcome) = py
            .detach(|| -> io::Result<_> {
                let mut bytes = Vec::new();
                let mut trajectory = TrajectoryWriter::new(&mut bytes)?;
                let mut events = EventWriter::new(io::sink(), &scene.world)?.keeping(&[]);
                let mut records = Recorders {
                    trajectory: &mut trajectory,
                    events: &mut events,
                };
                let outcome = run_scene(scene, &options, &mut records, &mut |_| {})?;
                Ok((bytes, outcome))
            })
            .map_err(|e| PyValueError::new_err(format!("recording the run: {e}")))?;
        let names = frame_names(scene);
        let result = trajectory_dict(py, &bytes, &names)?;
        let summary = serde_json::to_string(&outcome.summary)
            .map_err(|e| PyValueError::new_err(format!("cannot format the summary: {e}")))?;
        let json = py.import("json")?;
        result.set_item("summary", json.call_method1("loads", (summary,))?)?;
        if csv {
            result.set_item("csv", PyBytes::new(py, &bytes))?;
        }
        if let Some(error) = outcome.error {
            let err = SimulationError::new_err(format!(
                "{error}; the run stopped at t = {}",
                outcome.summary.sim_time
            ));
            err.value(py).setattr("result", &result)?;
            return Err(err);
        }
        Ok(result)
    }

    fn __repr__(&self) -> PyResult<String> {
        let scene = self.scene()?;
        Ok(format!(
            "<impulse.World {:?}: {} bodies, {} multibodies, t = {}>",
            scene.name,
            scene.world.bodies().len(),
            scene.world.multibodies().len(),
            scene.world.time()
        ))
    }
}

/// The body state (centre of mass, principal frame) that gives `body` the trajectory row `row`.
fn state_of(body: &impulse::RigidBody, row: &Row) -> PyResult<BodyState> {
    let (p, q, v, w) = row;
    let finite = p.iter().chain(q).chain(v).chain(w).all(|x| x.is_finite());
    if !finite {
        return Err(PyValueError::new_err(format!(
            "body `{}`: states must be finite numbers",
            body.name()
        )));
    }
    let quaternion = nalgebra_quaternion(*q);
    let norm = quaternion.norm();
    if (norm - 1.0).abs() > 1e-6 {
        return Err(PyValueError::new_err(format!(
            "body `{}`: a quaternion (w, x, y, z) must have length 1, got {norm}",
            body.name()
        )));
    }
    let model = pose(Vec3::new(p[0], p[1], p[2]), Quat::new_normalize(quaternion));
    // model pose = body pose · body_to_model⁻¹ (`RigidBody::model_pose`).
    let frame = model * body.body_to_model();
    Ok(BodyState {
        position: frame.translation.vector,
        orientation: frame.rotation,
        velocity: Vec3::new(v[0], v[1], v[2]),
        angular_velocity: Vec3::new(w[0], w[1], w[2]),
    })
}

/// Every multibody link's trajectory row, in `link_names` order.
fn link_rows(scene: &Scene) -> Vec<Row> {
    let mut rows = Vec::new();
    for mb in scene.world.multibodies() {
        for i in 0..mb.tree().links().len() {
            let model = mb.link_model_pose(i);
            let p = model.translation.vector;
            let q = model.rotation.quaternion();
            let (v, w) = mb.link_velocity(i);
            rows.push((
                [p.x, p.y, p.z],
                [q.w, q.i, q.j, q.k],
                [v.x, v.y, v.z],
                [w.x, w.y, w.z],
            ));
        }
    }
    rows
}

fn multibody_id(scene: &Scene, name: &str) -> PyResult<impulse::prelude::MultibodyId> {
    scene
        .world
        .multibody_id(name)
        .ok_or_else(|| PyKeyError::new_err(format!("the world has no multibody named `{name}`")))
}

fn nalgebra_quaternion(q: [f64; 4]) -> nalgebra::Quaternion<f64> {
    nalgebra::Quaternion::new(q[0], q[1], q[2], q[3])
}

/// The names of a trajectory frame's rows: the bodies, then each multibody's links.
fn frame_names(scene: &Scene) -> Vec<String> {
    let world = &scene.world;
    let mut names: Vec<String> = world
        .bodies()
        .iter()
        .map(|b| b.name().to_string())
        .collect();
    for mb in world.multibodies() {
        for link in mb.tree().links() {
            names.push(format!("{}/{}", mb.name(), link.name));
        }
    }
    names
}

/// The trajectory CSV's numbers, read back exactly (they are written shortest-round-trip).
fn trajectory_dict<'py>(
    py: Python<'py>,
    bytes: &[u8],
    names: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| PyValueError::new_err(format!("trajectory is not UTF-8: {e}")))?;
    let header: Vec<&str> = TRAJECTORY_HEADER.split(',').collect();
    let numeric: Vec<&str> = header[2..header.len() - 1].to_vec();
    let mut t = Vec::new();
    let mut body = Vec::new();
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); numeric.len()];
    let mut asleep = Vec::new();
    let bad = |line: &str| PyValueError::new_err(format!("unreadable trajectory row: {line}"));
    for line in text.lines().skip(1) {
        let (time, rest) = line.split_once(',').ok_or_else(|| bad(line))?;
        t.push(time.parse::<f64>().map_err(|_| bad(line))?);
        let (name, rest) = csv_field(rest).ok_or_else(|| bad(line))?;
        body.push(name);
        let fields: Vec<&str> = rest.split(',').collect();
        if fields.len() != numeric.len() + 1 {
            return Err(bad(line));
        }
        for (column, field) in columns.iter_mut().zip(&fields) {
            column.push(field.parse::<f64>().map_err(|_| bad(line))?);
        }
        asleep.push(fields[numeric.len()] == "1");
    }
    let n = names.len().max(1);
    let frames = t.len() / n;
    let dict = PyDict::new(py);
    // By frame, (F, N, k), gathered from the columns; then the columns themselves, each moved
    // into its array (no copy). Keys in the documented order.
    let stack = |indices: &[usize]| -> PyResult<Bound<'py, PyAny>> {
        let k = indices.len();
        let columns = &columns;
        let data: Vec<f64> = (0..frames * names.len())
            .flat_map(|row| indices.iter().map(move |&c| columns[c][row]))
            .collect();
        Array3::from_shape_vec((frames, names.len(), k), data)
            .map(|array| array.into_pyarray(py).into_any())
            .map_err(|e| PyValueError::new_err(format!("cannot shape the trajectory: {e}")))
    };
    let by_frame = [
        ("positions", stack(&[0, 1, 2])?),
        ("quaternions", stack(&[3, 4, 5, 6])?),
        ("velocities", stack(&[7, 8, 9])?),
        ("angular_velocities", stack(&[10, 11, 12])?),
    ];
    let frame_times: Vec<f64> = t.iter().step_by(n).copied().collect();
    dict.set_item("t", t.into_pyarray(py))?;
    dict.set_item("body", body)?;
    for (name, column) in numeric.iter().zip(columns) {
        dict.set_item(*name, column.into_pyarray(py))?;
    }
    dict.set_item("asleep", asleep.into_pyarray(py))?;
    dict.set_item("frames", frame_times.into_pyarray(py))?;
    dict.set_item("names", names.to_vec())?;
    for (name, array) in by_frame {
        dict.set_item(name, array)?;
    }
    Ok(dict)
}

/// One CSV field at the start of `text` (quoted, with `""` for a quote, or plain), and what
/// follows its comma.
fn csv_field(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == '"' {
                if let Some((_, '"')) = chars.peek() {
                    value.push('"');
                    chars.next();
                } else {
                    return quoted[i + 1..].strip_prefix(',').map(|rest| (value, rest));
                }
            } else {
                value.push(c);
            }
        }
        None
    } else {
        let (field, rest) = text.split_once(',')?;
        Some((field.to_string(), rest))
    }
}
