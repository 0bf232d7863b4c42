"""impulse: rigid-body dynamics after Mirtich (1996), from Python.

    import impulse
    world = impulse.load("scenes/impulse/block_drop.toml")
    world.step(0.01)
    world.positions          # float64 (n, 3), model frames as in trajectory.csv
    run = impulse.load("scenes/impulse/block_drop.toml").run(duration=1.0, fps=60)
    run["positions"].shape   # (frames, bodies, 3)

Sweeps over scenes, parameter grids and pose-statistics shards run on a process pool or on
Ray with the same result as one process: see `impulse.sweep` and `impulse.sweep_poses`.
"""

from __future__ import annotations

import json as _json

from ._impulse import (
    ImpulseError,
    OverrideError,
    SceneError,
    SimulationError,
    World,
    apply_overrides,
    load,
    mass_properties,
    merge_poses,
    pose_probabilities,
)
from ._impulse import poses as _poses_text
from .sweep import RayUnreachableError, SweepError, grid, sweep, sweep_poses

__all__ = [
    "ImpulseError",
    "OverrideError",
    "RayUnreachableError",
    "SceneError",
    "SimulationError",
    "SweepError",
    "World",
    "apply_overrides",
    "grid",
    "load",
    "mass_properties",
    "merge_poses",
    "pose_probabilities",
    "poses",
    "poses_text",
    "sweep",
    "sweep_poses",
]


def poses_text(part, **job) -> str:
    """The text of `drops.json` for the drops of `part` (see `poses` for the arguments):
    byte for byte what `impulse poses PART --method dynamic` writes."""
    return _poses_text(str(part), **job)


def _pose_result(text: str, part, body=None) -> dict:
    result = _json.loads(text)
    faces = pose_probabilities(str(part), body=body)["faces"]
    counts = [0] * faces
    moving = failed = 0
    for drop in result["drops"]:
        if drop["end"] == "rest":
            counts[drop["face"] - 1] += 1
        elif drop["end"] == "moving":
            moving += 1
        else:
            failed += 1
    result["counts"] = counts
    result["moving"] = moving
    result["failed"] = failed
    result["text"] = text
    return result


def poses(part, **job) -> dict:
    """Monte-Carlo drops of `part` onto a table (the dynamic method of `impulse poses`).

    `part` is a closed mesh (OBJ or STL; lengths in cm for the default protocol) or a scene
    file with `body=`. Keyword arguments as `impulse poses`: `body`, `trials` (2000), `seed`
    (1), `chains` (1), `shard` ("k/N": one shard's partial result), `protocol` ("bootstrap"
    or "uniform"), `burn_in` (20), `tilt` (1.5 degrees), `height` (12), `speed` (5),
    `spin` (0 rad/s, about a random axis per drop), `gravity` (981), `friction` (0.3),
    `restitution` (0.3), `envelope` (5e-3), `rest_time` (0.25), `time_limit` (20),
    `threads` (0: all cores; the result does not depend on it).

    Returns `drops.json` as a dict, plus `"counts"`: the number of drops that came to rest on
    each hull face (face k at index k - 1), `"moving"`, `"failed"`, and `"text"`: the file's
    text, byte for byte what `impulse poses PART --method dynamic` writes.
    """
    return _pose_result(poses_text(part, **job), part, job.get("body"))
