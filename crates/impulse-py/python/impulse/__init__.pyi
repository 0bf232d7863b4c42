from typing import Any, Dict, List, Mapping, Optional, Sequence

from ._impulse import (
    ImpulseError as ImpulseError,
    OverrideError as OverrideError,
    SceneError as SceneError,
    SimulationError as SimulationError,
    World as World,
    apply_overrides as apply_overrides,
    load as load,
    mass_properties as mass_properties,
    merge_poses as merge_poses,
    pose_probabilities as pose_probabilities,
)
from .sweep import (
    RayUnreachableError as RayUnreachableError,
    SweepError as SweepError,
    grid as grid,
    sweep as sweep,
    sweep_poses as sweep_poses,
)

def poses_text(part: str, **job: Any) -> str: ...
def poses(part: str, **job: Any) -> Dict[str, Any]: ...
