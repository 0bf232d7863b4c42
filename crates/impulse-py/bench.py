"""Benchmark of the Python package (prints figures; run from the repository's root after
`pip install ./crates/impulse-py ray`):

    python3 crates/impulse-py/bench.py

1. The cost of a Python `World.step(dt)` call against the same step taken by the engine's own
   loop (`World.step(dt, steps=N)`: N calls of `World::advance_to` in Rust, one Python call),
   on a free-flying scene (a step is cheap, so the call's overhead shows) and a contact scene.
2. Sweep throughput: the same 16-variant sweep of the coins in one process, on a local process
   pool and on a local Ray cluster (both with 2 workers on this 2-core machine).
"""

import os
import time

import impulse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")


def per_call(scene, dt, n):
    # Each timing on a fresh world from the same start, 3 repeats, the fastest kept.
    best_py = best_rust = float("inf")
    for _ in range(3):
        world = impulse.load(scene)
        start = time.perf_counter()
        for _ in range(n):
            world.step(dt)
        best_py = min(best_py, time.perf_counter() - start)
        end_py = world.positions
        world = impulse.load(scene)
        start = time.perf_counter()
        world.step(dt, steps=n)
        best_rust = min(best_rust, time.perf_counter() - start)
        assert (world.positions == end_py).all(), "the two loops must reach the same state"
    return best_py / n, best_rust / n


def sweep_rate(backend, **kwargs):
    # 16 variants of the coins (3.6 s each, ≈ 0.2 s of wall time in one process).
    grid = {
        "world.gravity": [[0, 0, -981], [0, 0, -800], [0, 0, -600], [0, 0, -400]],
        "materials.coin.friction": [0.2, 0.3, 0.4, 0.5],
    }
    start = time.perf_counter()
    rows = impulse.sweep(base=os.path.join(SCENES, "impulse", "coins.toml"), grid=grid,
                         backend=backend, **kwargs)
    wall = time.perf_counter() - start
    return len(rows), wall, rows


def main():
    print("Python step call against the engine's own loop (same steps, same end state)")
    for name, scene, dt, n in [
        ("free flight (dzhanibekov)", "free/dzhanibekov.toml", 1e-3, 20000),
        ("contact (block_drop)", "impulse/block_drop.toml", 1e-3, 800),
    ]:
        py, rust = per_call(os.path.join(SCENES, scene), dt, n)
        print(f"  {name:28s} {n:6d} steps of {dt:g}: Python call {py * 1e6:8.2f} µs/step, "
              f"Rust loop {rust * 1e6:8.2f} µs/step, overhead {(py - rust) * 1e6:6.2f} µs/call")

    print("Sweep throughput: coins, 16 variants (gravity × friction), 3.6 s at 100 fps each")
    n, wall, reference = sweep_rate("serial")
    print(f"  serial (one process)      {wall:6.2f} s  {n / wall:6.2f} runs/s")
    n, wall, rows = sweep_rate("local", workers=2)
    same = [r["trajectory_sha256"] for r in rows] == [r["trajectory_sha256"] for r in reference]
    print(f"  local pool, 2 workers     {wall:6.2f} s  {n / wall:6.2f} runs/s  (same result: {same})")
    try:
        import ray
    except ImportError:
        print("  ray: not installed (pip install ray)")
        return
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"  ray.init(num_cpus=2)      {time.perf_counter() - start:6.2f} s")
    n, wall, rows = sweep_rate("ray")
    same = [r["trajectory_sha256"] for r in rows] == [r["trajectory_sha256"] for r in reference]
    print(f"  ray, first sweep          {wall:6.2f} s  {n / wall:6.2f} runs/s  (same result: {same})")
    n, wall, rows = sweep_rate("ray")
    print(f"  ray, warm workers         {wall:6.2f} s  {n / wall:6.2f} runs/s")
    ray.shutdown()


if __name__ == "__main__":
    main()
