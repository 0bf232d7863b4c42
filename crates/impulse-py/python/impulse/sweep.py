"""Sweeps: many runs of scenes, of one scene with parameter overrides, or of the shards of one
pose-statistics job, on a process pool (`backend="local"`), in this process
(`backend="serial"`) or as Ray tasks on whatever cluster `ray.init()` connects to
(`backend="ray"`). Every backend gives the same result, bit for bit: each run is
deterministic and results are gathered in task order. A task whose worker dies is run again
(up to `retries` more times); a task that fails (a bad scene, a simulation error) or is lost
for good is reported by name in a `SweepError`, and the sweep then returns nothing: partial
results are never returned as if they were complete.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import socket
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from . import _impulse

__all__ = ["RayUnreachableError", "SweepError", "grid", "sweep", "sweep_poses"]

# Fault injection for the tests of retries: "MARKER_FILE:TASK_NAME" makes the worker that
# first runs that task exit abruptly (after creating MARKER_FILE), as a killed or lost worker
# would. Later attempts find the marker and run normally.
_KILL_ONCE = "IMPULSE_TEST_KILL_ONCE"


class SweepError(_impulse.ImpulseError):
    """Some tasks of a sweep failed or were lost.

    `failures` maps each failed task's name to its error message; `completed` maps the other
    tasks' names to their results (for inspection only: the sweep as a whole has failed).
    """

    def __init__(self, failures: Dict[str, str], completed: Dict[str, Any], total: int):
        self.failures = failures
        self.completed = completed
        lines = [f"{len(failures)} of {total} sweep tasks failed:"]
        lines += [f"  {name}: {message}" for name, message in failures.items()]
        super().__init__("\n".join(lines))


class RayUnreachableError(_impulse.ImpulseError, ConnectionError):
    """The Ray cluster a sweep was sent to does not answer: nothing has run.

    `address` is the address tried (the `address` argument or `RAY_ADDRESS`).
    """

    def __init__(self, message: str, address: str):
        self.address = address
        super().__init__(message)


# How long the probe of a Ray address waits for a connection, in seconds. A refused
# connection (nothing listens there) fails at once; a host that drops packets takes this long.
RAY_PROBE_TIMEOUT = 5.0

# Ray's default ports: the GCS of a cluster (`ray start --head`) and the Ray Client server.
_RAY_GCS_PORT = 6379
_RAY_CLIENT_PORT = 10001


def _ray_endpoint(address: str):
    """The (host, port) an address of `ray.init` connects to, or None where it names no
    endpoint (`auto`, `local`: Ray finds or starts the cluster itself)."""
    address = address.strip()
    if address in ("", "auto", "local"):
        return None
    client = address.startswith("ray://")
    rest = address[len("ray://"):] if client else address
    rest = rest.split("/", 1)[0]
    default = _RAY_CLIENT_PORT if client else _RAY_GCS_PORT
    if rest.startswith("["):  # [IPv6]:port
        host, _, tail = rest[1:].partition("]")
        port = tail[1:] if tail.startswith(":") else ""
    elif rest.count(":") == 1:
        host, port = rest.split(":")
    else:
        host, port = rest, ""
    try:
        port = int(port) if port else default
    except ValueError:
        raise RayUnreachableError(
            f"the Ray address {address!r} has no valid port ({port!r}): give host:port, "
            f"e.g. 127.0.0.1:{_RAY_GCS_PORT} or ray://host:{_RAY_CLIENT_PORT}",
            address,
        ) from None
    return host, port


def _probe_ray(address: str, source: str, timeout: Optional[float] = None) -> None:
    """Raises RayUnreachableError, naming the address and what to do, unless something
    accepts a TCP connection at it within `timeout` s. `ray.init` itself keeps retrying an
    unreachable address for minutes before it gives up."""
    endpoint = _ray_endpoint(address)
    if endpoint is None:
        return
    timeout = RAY_PROBE_TIMEOUT if timeout is None else timeout
    host, port = endpoint
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except socket.timeout:
        reason = f"no answer within {timeout:g} s"
    except OSError as e:
        reason = e.strerror or str(e)
    raise RayUnreachableError(
        f"cannot reach the Ray cluster at {address!r} ({source}): connecting to "
        f"{host}:{port} failed: {reason}. Nothing has run. Start the cluster there "
        f"(`ray start --head --port={port}` on that machine), check the host, port and "
        f"firewall, or leave the address out (unset RAY_ADDRESS) to start a local cluster, "
        f"or use backend='local'.",
        address,
    )


def grid(parameters: Mapping[str, Sequence[Any]]) -> List[Dict[str, Any]]:
    """Every combination of the parameters' values, the first key varying slowest.

    Each value is a list of the options for that key; a vector-valued key takes a list of
    vectors (`{"world.gravity": [[0, 0, -9.81], [0, 0, -1.62]]}`). A value that is not a list
    is a single option.
    """
    keys = list(parameters)
    options = []
    for key in keys:
        value = parameters[key]
        if isinstance(value, (list, tuple)):
            if len(value) == 0:
                raise ValueError(f"grid key `{key}` has no values")
            options.append(list(value))
        else:
            options.append([value])
    return [dict(zip(keys, combo)) for combo in itertools.product(*options)]


_grid = grid


def _variant_name(overrides: Mapping[str, Any]) -> str:
    return ",".join(f"{key}={value!r}" for key, value in overrides.items()) or "base"


def _maybe_die(name: str) -> None:
    spec = os.environ.get(_KILL_ONCE)
    if not spec:
        return
    marker, _, target = spec.partition(":")
    if target == name and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(f"killed worker {os.getpid()} running {name}\n")
        os._exit(17)


def _run_scene_task(task: Dict[str, Any]) -> Dict[str, Any]:
    """One scene run (in a worker): the summary, the trajectory's digest and maybe its bytes."""
    _maybe_die(task["name"])
    world = _impulse.load(task["scene"], task["overrides"] or None, path=task["path"])
    try:
        run = world.run(task["duration"], task["fps"], csv=True)
        error = None
    except _impulse.SimulationError as e:
        # A run the simulation stopped is a result too (status "error" in its summary).
        run = e.result
        error = str(e)
    summary = run["summary"]
    wall = summary.pop("wall_time_s")
    csv = run["csv"]
    row = {
        "name": task["name"],
        "scene": task["label"],
        "overrides": task["overrides"],
        "summary": summary,
        "error": error,
        "trajectory_sha256": hashlib.sha256(csv).hexdigest(),
        "wall_time_s": wall,
    }
    if task["keep_trajectory"]:
        row["trajectory_csv"] = csv
    return row


def _run_pose_task(task: Dict[str, Any]) -> str:
    """One shard of a pose job (in a worker): its partial `drops.json` text."""
    _maybe_die(task["name"])
    return _impulse.poses(task["part"], shard=task["shard"], threads=1, **task["job"])


def _set_env(env: Mapping[str, str]) -> None:
    os.environ.update(env)


def _run_serial(
    fn: Callable, tasks: List[Dict[str, Any]], retries: int, env: Mapping[str, str], **_: Any
):
    results, failures = {}, {}
    saved = {k: os.environ.get(k) for k in env}
    _set_env(env)
    try:
        for task in tasks:
            try:
                results[task["name"]] = fn(task)
            except Exception as e:  # a task's failure is reported by name
                failures[task["name"]] = f"{type(e).__name__}: {e}"
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return results, failures


def _run_local(
    fn: Callable,
    tasks: List[Dict[str, Any]],
    retries: int,
    env: Mapping[str, str],
    workers: Optional[int] = None,
    **_: Any,
):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # Fresh interpreters: the engine's threads do not survive a fork.
    context = multiprocessing.get_context("spawn")
    results, failures = {}, {}
    pending = list(tasks)
    for attempt in range(retries + 1):
        if not pending:
            break
        lost = []
        with ProcessPoolExecutor(
            max_workers=workers or os.cpu_count(),
            mp_context=context,
            initializer=_set_env,
            initargs=(dict(env),),
        ) as pool:
            futures = {pool.submit(fn, task): task for task in pending}
            for future in as_completed(futures):
                task = futures[future]
                try:
                    results[task["name"]] = future.result()
                except BrokenProcessPool:
                    # The pool lost a worker: this task and any others then running are
                    # run again in a new pool.
                    lost.append(task)
                except Exception as e:
                    failures[task["name"]] = f"{type(e).__name__}: {e}"
        pending = lost
    for task in pending:
        failures[task["name"]] = (
            f"its worker process died on each of {retries + 1} attempts"
        )
    return results, failures


def _run_ray(
    fn: Callable,
    tasks: List[Dict[str, Any]],
    retries: int,
    env: Mapping[str, str],
    address: Optional[str] = None,
    **_: Any,
):
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'ray>=2.9' (or use backend='local')"
        ) from e
    if not ray.is_initialized():
        # A running cluster (RAY_ADDRESS or `address`), else a local one on this machine. An
        # address is probed first: `ray.init` retries one that does not answer for minutes.
        if address is not None:
            _probe_ray(address, "the address argument")
        elif os.environ.get("RAY_ADDRESS"):
            _probe_ray(os.environ["RAY_ADDRESS"], "RAY_ADDRESS")
        ray.init(address=address)
    # A worker that dies is retried by Ray (max_retries); an exception the task raises is
    # deterministic and is not.
    remote = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(fn)
    options = {"runtime_env": {"env_vars": dict(env)}} if env else {}
    refs = [
        (task, remote.options(name=task["name"][:100], **options).remote(task)) for task in tasks
    ]
    results, failures = {}, {}
    for task, ref in refs:
        try:
            results[task["name"]] = ray.get(ref)
        except ray.exceptions.RayTaskError as e:
            cause = e.cause if getattr(e, "cause", None) is not None else e
            failures[task["name"]] = f"{type(cause).__name__}: {cause}"
        except ray.exceptions.RayError as e:
            failures[task["name"]] = f"lost after {retries + 1} attempts: {type(e).__name__}: {e}"
    return results, failures


_BACKENDS = {"serial": _run_serial, "local": _run_local, "ray": _run_ray}


def _execute(fn, tasks, backend, retries, workers, address, env):
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(_BACKENDS)}, got {backend!r}")
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be a whole number ≥ 0, got {retries!r}")
    names = [task["name"] for task in tasks]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"sweep task names must be distinct; repeated: {', '.join(duplicates)}")
    results, failures = _BACKENDS[backend](
        fn, tasks, retries, env=env or {}, workers=workers, address=address
    )
    missing = [n for n in names if n not in results and n not in failures]
    for name in missing:
        failures[name] = "no result came back"
    if failures:
        ordered = {n: failures[n] for n in names if n in failures}
        raise SweepError(ordered, results, len(tasks))
    return [results[n] for n in names]


def sweep(
    scenes: Optional[Sequence[str]] = None,
    *,
    base: Optional[str] = None,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    variants: Optional[Sequence[Mapping[str, Any]]] = None,
    duration: Optional[float] = None,
    fps: Optional[float] = None,
    backend: str = "local",
    workers: Optional[int] = None,
    retries: int = 2,
    address: Optional[str] = None,
    keep_trajectories: bool = False,
    env: Optional[Mapping[str, str]] = None,
) -> List[Dict[str, Any]]:
    """Runs many scenes, as `World.run` (that is, `impulse run`) would one at a time.

    Give either `scenes`, a list of scene files, or `base` (a scene file or TOML text) with
    `grid`, a mapping of override keys to lists of values (every combination is a variant,
    see `impulse.grid`), and/or `variants`, a list of override mappings. Override keys are
    dotted paths into the scene document (`"world.gravity"`, `"materials.steel.friction"`,
    `"bodies.ball.velocity"`); a key the scene has not got raises `OverrideError` before
    anything runs.

    `duration` and `fps` override the scenes' own. `backend` is "local" (a process pool of
    `workers` processes, default all cores), "ray" (one Ray task per run on the cluster
    `ray.init(address)` connects to, or the one already initialised) or "serial" (this
    process). `retries`: how many more times a task whose worker died is run. `env`:
    environment variables set in the processes that run the tasks (Ray: its runtime_env).

    Returns one dict per run, in the order given: `name`, `scene`, `overrides`, `summary`
    (`summary.json` without the wall time), `error` (the message of a simulation error that
    stopped the run early, else None), `trajectory_sha256` (of the `trajectory.csv` bytes),
    `wall_time_s`, and with `keep_trajectories` the `trajectory_csv` bytes. Raises
    `SweepError` naming every task that failed or was lost.
    """
    tasks = []
    if scenes is not None:
        if base is not None or grid is not None or variants is not None:
            raise ValueError("give either scenes or base with grid/variants, not both")
        for scene in scenes:
            scene = os.fspath(scene)
            tasks.append({"name": scene, "label": scene, "scene": scene, "overrides": {}})
    else:
        if base is None:
            raise ValueError("give scenes, or base with grid and/or variants")
        override_sets: List[Dict[str, Any]] = []
        if grid is not None:
            override_sets += _grid(grid)
        if variants is not None:
            override_sets += [dict(v) for v in variants]
        if not override_sets:
            override_sets = [{}]
        base = os.fspath(base)
        label = base if os.path.isfile(base) else "<string>"
        for overrides in override_sets:
            # Checked here, before any task runs: unknown keys raise OverrideError.
            _impulse.apply_overrides(base, overrides)
            tasks.append(
                {"name": _variant_name(overrides), "label": label, "scene": base,
                 "overrides": overrides}
            )
    for task in tasks:
        task.update(path=None, duration=duration, fps=fps, keep_trajectory=keep_trajectories)
    if scenes is None:
        # The variants' scenes themselves must read: a bad value fails before anything runs.
        for task in tasks:
            _impulse.load(task["scene"], task["overrides"] or None)
    return _execute(_run_scene_task, tasks, backend, retries, workers, address, env)


def sweep_poses(
    part: str,
    *,
    shards: int,
    backend: str = "local",
    workers: Optional[int] = None,
    retries: int = 2,
    address: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    **job: Any,
) -> Dict[str, Any]:
    """A pose-statistics job (`impulse.poses`) split into `shards` shards run as separate
    tasks and merged: the same `drops.json`, byte for byte, as the job in one process.

    The job's keyword arguments are those of `impulse.poses`; `chains` (the bootstrap
    protocol's independent chains, which the shards divide) defaults to `shards` and must be
    at least `shards`. Returns what `impulse.poses` returns for the whole job.
    """
    from . import _pose_result  # the counts, as `impulse.poses` gives them

    if not isinstance(shards, int) or shards < 1:
        raise ValueError(f"shards must be a whole number ≥ 1, got {shards!r}")
    job.setdefault("chains", shards)
    if job["chains"] < shards:
        raise ValueError(
            f"a job of {job['chains']} chains splits into at most {job['chains']} shards, "
            f"not {shards}"
        )
    job.pop("threads", None)
    part = os.fspath(part)
    tasks = [
        {"name": f"{os.path.basename(part)} shard {k}/{shards}", "part": part,
         "shard": f"{k}/{shards}", "job": job}
        for k in range(1, shards + 1)
    ]
    texts = _execute(_run_pose_task, tasks, backend, retries, workers, address, env)
    return _pose_result(_impulse.merge_poses(texts), part, job.get("body"))
