"""`python3 -m impulse sweep SPEC.toml [--backend local|ray|serial] [--out DIR]`: a sweep
described in a file, for users who do not write Python (`impulse sweep` runs this).

A spec file:

    base = "scenes/impulse/block_drop.toml"   # relative to the spec file; or scenes = [...]
    duration = 0.3                             # optional: the scenes' own otherwise
    fps = 50                                   # optional
    backend = "local"                          # optional: local, ray or serial
    workers = 2                                # optional: the local pool's size
    retries = 2                                # optional
    address = "10.0.0.5:6379"                  # optional: the Ray cluster (else RAY_ADDRESS,
                                               # else a local one); probed first

    [grid]                                     # every combination
    "world.gravity" = [[0, 0, -981], [0, 0, -500]]
    "materials.wood.friction" = [0.2, 0.6]

    [[variants]]                               # and/or explicit override sets
    "bodies.upper block.position" = [1, 0.5, 12]

Writes `results.json` (every row of `impulse.sweep`) and `table.csv` (one line per run: name,
status, simulated time, initial and final energy, collisions, microcollisions, trajectory
SHA-256) to `--out` (default `out/sweep/<spec name>`).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys

from . import ImpulseError, sweep

KEYS = {"base", "scenes", "duration", "fps", "backend", "workers", "retries", "address", "grid",
        "variants"}


def _read_spec(path: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except OSError as e:
        raise SystemExit(f"error: {path}: cannot read the sweep spec: {e}")
    except tomllib.TOMLDecodeError as e:
        raise SystemExit(f"error: {path}: not valid TOML: {e}")
    unknown = sorted(set(spec) - KEYS)
    if unknown:
        raise SystemExit(
            f"error: {path}: unknown key{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(f'`{k}`' for k in unknown)} (known keys: {', '.join(sorted(KEYS))})"
        )
    if ("base" in spec) == ("scenes" in spec):
        raise SystemExit(f"error: {path}: give either `base` (with `grid`/`variants`) or `scenes`")
    return spec


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m impulse")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("sweep", help="run the sweep a spec file describes")
    run.add_argument("spec")
    run.add_argument("--backend", choices=["local", "ray", "serial"])
    run.add_argument("--out")
    run.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    spec = _read_spec(args.spec)
    here = os.path.dirname(os.path.abspath(args.spec))

    def resolve(p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(here, p)

    options = {
        k: spec[k] for k in ("duration", "fps", "workers", "retries", "address") if k in spec
    }
    options["backend"] = args.backend or spec.get("backend", "local")
    try:
        if "scenes" in spec:
            rows = sweep([resolve(s) for s in spec["scenes"]], **options)
        else:
            rows = sweep(base=resolve(spec["base"]), grid=spec.get("grid"),
                         variants=spec.get("variants"), **options)
    except (ImpulseError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    name = os.path.splitext(os.path.basename(args.spec))[0]
    out = args.out or os.path.join("out", "sweep", name)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(rows, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        table = csv.writer(f)
        table.writerow(["name", "status", "sim_time", "energy_initial", "energy_final",
                        "collisions", "microcollisions", "trajectory_sha256"])
        for row in rows:
            s = row["summary"]
            table.writerow([row["name"], s["status"], repr(s["sim_time"]),
                            repr(s["energy"]["initial"]), repr(s["energy"]["final"]),
                            s["counters"].get("collisions", 0),
                            s["counters"].get("microcollisions", 0),
                            row["trajectory_sha256"]])
    if not args.quiet:
        print(f"{len(rows)} runs ({options['backend']}); results.json and table.csv in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
