"""Type stubs of the native module `impulse._impulse` (see the docstrings for details)."""

from os import PathLike
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]

class ImpulseError(Exception): ...
class SceneError(ImpulseError): ...
class OverrideError(ImpulseError): ...

class SimulationError(ImpulseError):
    # Set when `World.run` stopped early: the run's dict up to the stop.
    result: Dict[str, Any]

def load(
    scene: str,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    path: Optional[Union[str, PathLike[str]]] = None,
) -> World: ...
def apply_overrides(scene: str, overrides: Mapping[str, Any]) -> str: ...
def mass_properties(mesh: Union[str, PathLike[str]], density: float = 1.0) -> Dict[str, Any]: ...
def poses(
    part: str,
    *,
    body: Optional[str] = None,
    trials: int = 2000,
    seed: int = 1,
    chains: int = 1,
    shard: Optional[str] = None,
    protocol: str = "bootstrap",
    burn_in: int = 20,
    tilt: float = 1.5,
    height: float = 12.0,
    speed: float = 5.0,
    spin: float = 0.0,
    gravity: float = 981.0,
    friction: float = 0.3,
    restitution: float = 0.3,
    envelope: float = 5e-3,
    rest_time: float = 0.25,
    time_limit: float = 20.0,
    threads: int = 0,
) -> str: ...
def merge_poses(texts: Sequence[str]) -> str: ...
def pose_probabilities(
    part: str, *, body: Optional[str] = None, cone: float = 20.0
) -> Dict[str, Any]: ...

class World:
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def time(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def output_rate(self) -> float: ...
    @property
    def gravity(self) -> F64:
        """(3,) float64. Assigning it changes the gravity from the current time on."""
    @gravity.setter
    def gravity(self, value: Sequence[float]) -> None: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def positions(self) -> F64:
        """(n, 3) float64: model-frame positions."""
    @property
    def quaternions(self) -> F64:
        """(n, 4) float64: model-frame orientations (w, x, y, z)."""
    @property
    def velocities(self) -> F64:
        """(n, 3) float64: centre-of-mass velocities."""
    @property
    def angular_velocities(self) -> F64:
        """(n, 3) float64: angular velocities."""
    @property
    def asleep(self) -> npt.NDArray[np.bool_]: ...
    @property
    def masses(self) -> F64: ...
    @property
    def max_penetration(self) -> float: ...
    def set_states(
        self,
        positions: Optional[F64] = None,
        quaternions: Optional[F64] = None,
        velocities: Optional[F64] = None,
        angular_velocities: Optional[F64] = None,
    ) -> None: ...
    def set_state(
        self,
        body: Union[int, str],
        position: Optional[Sequence[float]] = None,
        quaternion: Optional[Sequence[float]] = None,
        velocity: Optional[Sequence[float]] = None,
        angular_velocity: Optional[Sequence[float]] = None,
    ) -> None: ...
    def step(self, dt: float, steps: int = 1) -> None: ...
    def advance_to(self, t: float) -> None: ...
    def counters(self) -> Dict[str, int]: ...
    def energy(self) -> Dict[str, float]: ...
    def set_material_pair(self, a: str, b: str, friction: float, restitution: float) -> None: ...
    def set_pair_material(
        self,
        a: Union[int, str],
        b: Union[int, str],
        friction: Optional[float] = None,
        restitution: Optional[float] = None,
    ) -> None: ...
    def set_body_material(
        self,
        body: Union[int, str],
        friction: Optional[float] = None,
        restitution: Optional[float] = None,
    ) -> None: ...
    def contact_material(self, a: Union[int, str], b: Union[int, str]) -> Dict[str, float]: ...
    def apply_force(
        self,
        body: Union[int, str],
        force: Sequence[float],
        point: Optional[Sequence[float]] = None,
    ) -> None:
        """Held until changed (as MuJoCo's xfrc_applied); replaces the force and the torque."""
    def apply_torque(self, body: Union[int, str], torque: Sequence[float]) -> None: ...
    @property
    def applied_forces(self) -> F64:
        """(n, 3) float64: applied forces at the centres of mass, world frame."""
    @property
    def applied_torques(self) -> F64:
        """(n, 3) float64: applied torques, world frame."""
    def run(
        self, duration: Optional[float] = None, fps: Optional[float] = None, *, csv: bool = False
    ) -> Dict[str, Any]: ...
    @property
    def link_names(self) -> List[str]: ...
    @property
    def link_positions(self) -> F64: ...
    @property
    def link_quaternions(self) -> F64: ...
    @property
    def link_velocities(self) -> F64: ...
    @property
    def link_angular_velocities(self) -> F64: ...
    def joint_positions(self, multibody: str) -> F64: ...
    def joint_velocities(self, multibody: str) -> F64: ...
    def set_joint_velocities(self, multibody: str, v: Sequence[float]) -> None: ...
