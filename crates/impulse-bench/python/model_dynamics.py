#!/usr/bin/env python3
"""Forward dynamics per call on the shipped arm and humanoid: this engine's articulated-body
algorithm against MuJoCo's mj_forward and Pinocchio's aba, on the same model files.

    pip install mujoco pin numpy
    cargo build --release -p impulse-cli
    python3 crates/impulse-bench/python/model_dynamics.py [--calls N]

The engine is timed by `impulse dynamics --bench N` (a Rust loop over N calls at each of 20
random states, median of the states: gravity, joint springs and dampers, ABA); MuJoCo's
mj_forward (contacts, constraints and actuators off, so it is the smooth dynamics: kinematics,
inertia, sparse factorization, bias forces, qacc) and Pinocchio's aba are timed in Python loops
over the same states, so their figures include a Python call each (the cost of a call that
does nothing is subtracted in the last columns; the one-link pendulum's time, printed last,
bounds what the bindings add, argument conversion included). One engine at a time.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "models"
sys.path.insert(0, str(ROOT / "tests" / "python"))
from test_model_dynamics import random_states  # noqa: E402


def engine(binary, model, states, calls, base=None):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"states": states}, f)
    command = [binary, "dynamics", str(model), "--states", f.name, "--bench", str(calls)]
    if base:
        command += ["--base", base]
    out = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    os.unlink(f.name)
    return out


def per_call(function, states, calls):
    times = []
    for args in states:
        start = time.perf_counter()
        for _ in range(calls):
            function(*args)
        times.append((time.perf_counter() - start) / calls)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    binary = os.environ.get("IMPULSE_BIN", str(ROOT / "target" / "release" / "impulse"))
    rng = np.random.default_rng(1)
    empty = per_call(lambda: None, [()] * 5, args.calls)
    print(f"Forward dynamics per call, median over 20 random states, {args.calls} calls each")
    print(f"(a Python call costs {empty * 1e9:.0f} ns; MuJoCo and Pinocchio are timed through one)\n")
    header = f"{'model':<10}{'dof':>5}{'impulse ABA':>14}{'mj_forward':>13}{'pin.aba':>11}{'mj−call':>11}{'pin−call':>11}"
    print(header)
    print("-" * len(header))
    for name, floating in (("arm", False), ("humanoid", True)):
        xml, urdf = MODELS / f"{name}.xml", MODELS / f"{name}.urdf"
        first = engine(binary, xml, [], 1)
        states = random_states(first["joints"], first["nq"], first["nv"], rng, count=20)
        mine = engine(binary, xml, states, args.calls)["bench"]["median_seconds_per_call"]

        m = mujoco.MjModel.from_xml_path(str(xml))
        flags = mujoco.mjtDisableBit
        m.opt.disableflags |= flags.mjDSBL_CONTACT | flags.mjDSBL_CONSTRAINT | flags.mjDSBL_ACTUATION
        d = mujoco.MjData(m)
        pq = np.zeros(m.nq, int)
        pv = np.zeros(m.nv, int)
        for j in first["joints"]:
            mj = m.joint(j["name"])
            pq[mj.qposadr[0]: mj.qposadr[0] + j["nq"]] = np.arange(j["qpos"], j["qpos"] + j["nq"])
            pv[mj.dofadr[0]: mj.dofadr[0] + j["nv"]] = np.arange(j["dof"], j["dof"] + j["nv"])

        def mj_call(qpos, qvel, tau):
            mujoco.mj_forward(m, d)

        mj_states = []
        for s in states:
            d.qpos[:] = np.asarray(s["qpos"])[pq]
            d.qvel[:] = np.asarray(s["qvel"])[pv]
            d.qfrc_applied[:] = np.asarray(s["tau"])[pv]
            mj_states.append((None, None, None))
        mj = per_call(mj_call, mj_states, args.calls)

        model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer()) if floating else \
            pin.buildModelFromUrdf(str(urdf))
        data = model.createData()
        pin_states = [(pin.randomConfiguration(model, -np.ones(model.nq) * 3, np.ones(model.nq) * 3)
                       if floating else pin.randomConfiguration(model),
                       rng.normal(size=model.nv), rng.normal(size=model.nv)) for _ in range(20)]
        for q, _, _ in pin_states:
            if floating:
                q[3:7] /= np.linalg.norm(q[3:7])
        pn = per_call(lambda q, v, t: pin.aba(model, data, q, v, t), pin_states, args.calls)
        ns = lambda x: f"{x * 1e9:.0f} ns"
        print(f"{name:<10}{first['nv']:>5}{ns(mine):>14}{ns(mj):>13}{ns(pn):>11}{ns(mj - empty):>11}{ns(pn - empty):>11}")

    # What a call through the bindings costs with almost no dynamics to do: the one-link
    # pendulum. Pinocchio's arguments are converted from numpy on every call, which the empty
    # call above does not measure, so its rows above are upper bounds on its C++ aba.
    m = mujoco.MjModel.from_xml_path(str(MODELS / "pendulum.xml"))
    d = mujoco.MjData(m)
    model = pin.buildModelFromUrdf(str(MODELS / "pendulum.urdf"))
    data = model.createData()
    q, v, t = pin.neutral(model), np.zeros(1), np.zeros(1)
    mj1 = per_call(lambda: mujoco.mj_forward(m, d), [()] * 5, args.calls)
    pn1 = per_call(lambda: pin.aba(model, data, q, v, t), [()] * 5, args.calls)
    print(f"\nthe one-link pendulum through the bindings: mj_forward {mj1 * 1e9:.0f} ns, pin.aba {pn1 * 1e9:.0f} ns")


if __name__ == "__main__":
    main()
