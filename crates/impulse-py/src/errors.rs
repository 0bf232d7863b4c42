//! The package's exceptions. Their messages are the command line's, word for word.

use pyo3::create_exception;
use pyo3::exceptions::PyException;

create_exception!(
    impulse,
    ImpulseError,
    PyException,
    "Base class of the errors the engine raises."
);
create_exception!(
    impulse,
    SceneError,
    ImpulseError,
    "A scene that cannot be read: the message lists every problem as `file:line:column: error: `key`: ...`, as `impulse check` prints them."
);
create_exception!(
    impulse,
    OverrideError,
    ImpulseError,
    "A parameter override whose key the scene (or the scene format) does not have, or whose value is not a TOML value."
);
create_exception!(
    impulse,
    SimulationError,
    ImpulseError,
    "The simulation could not go on (integrator failure, energy bound, interpenetration, ...)."
);
