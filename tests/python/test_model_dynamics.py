"""The engine's multibody dynamics against MuJoCo and Pinocchio on the same models.

For every model shipped in models/ and for random trees written by models/generate.py, at 100
or more random states each, the joint accelerations of this engine's articulated-body
algorithm (`impulse dynamics`, which reads the URDF or MJCF file itself) must equal

- MuJoCo's `qacc` from `mj_forward` on the MJCF file (contacts, constraints and actuators off;
  damping, springs and armature as the file gives them), and its mass matrix `mj_fullM`;
- Pinocchio's `aba` on the URDF file (and on the MJCF file where URDF cannot say it: ball
  joints), with the joint dampers and springs added to the forces it is given (its `aba` has
  none) and the armature set from MuJoCo's compiled model;

to 1e-9 relative (the largest difference over the largest entry).

Conventions (see crates/impulse/src/scene/import/coordinates.rs): `impulse dynamics` speaks
MuJoCo's coordinates — quaternions w x y z, a free joint's velocity [ẋ in the world, ω in the
body frame], a ball joint's ω in the child frame. Pinocchio's differ: quaternions x y z w, a
free flyer's velocity [v, ω] both in the body frame (so its acceleration is
[Rᵀẍ − ω × Rᵀẋ, ω̇] and its force [RᵀF, τ]), continuous URDF joints as (cos θ, sin θ).
"""

import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import mujoco
import numpy as np
import pinocchio as pin
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
sys.path.insert(0, str(MODELS))
import generate  # noqa: E402  (the models' own writer)

TOLERANCE = 1e-9
STATES = 100


@pytest.fixture(scope="session")
def impulse_bin():
    """The `impulse` program: $IMPULSE_BIN, else built here with the test profile (the build
    `cargo test --workspace` already made, so after it this is a no-op)."""
    if os.environ.get("IMPULSE_BIN"):
        return os.environ["IMPULSE_BIN"]
    subprocess.run(["cargo", "build", "--quiet", "--profile", "test", "-p", "impulse-cli"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "debug" / "impulse")


def engine(impulse_bin, model, states, tmp_path, base=None):
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"states": states}))
    command = [impulse_bin, "dynamics", str(model), "--states", str(path)]
    if base:
        command += ["--base", base]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


# ---------------------------------------------------------------------------------------------
# Random states in MuJoCo's coordinates


def random_unit_quaternion(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_states(joints, nq, nv, rng, count=STATES):
    states = []
    for _ in range(count):
        qpos, qvel, tau = np.zeros(nq), rng.normal(size=nv), rng.normal(scale=3.0, size=nv)
        for j in joints:
            i = j["qpos"]
            if j["kind"] == "floating":
                qpos[i : i + 3] = rng.normal(size=3)
                qpos[i + 3 : i + 7] = random_unit_quaternion(rng)
            elif j["kind"] == "spherical":
                qpos[i : i + 4] = random_unit_quaternion(rng)
            else:
                qpos[i : i + j["nq"]] = rng.uniform(-math.pi, math.pi, size=j["nq"])
        states.append({"qpos": qpos.tolist(), "qvel": qvel.tolist(), "tau": tau.tolist()})
    return states


def relative_error(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


# ---------------------------------------------------------------------------------------------
# MuJoCo


class Mujoco:
    def __init__(self, xml):
        self.m = mujoco.MjModel.from_xml_path(str(xml))
        flags = mujoco.mjtDisableBit
        self.m.opt.disableflags |= flags.mjDSBL_CONTACT | flags.mjDSBL_CONSTRAINT | flags.mjDSBL_ACTUATION
        self.d = mujoco.MjData(self.m)

    def maps(self, joints):
        """Index arrays taking the engine's qpos and qvel to MuJoCo's, by joint name."""
        pq, pv = np.zeros(self.m.nq, int), np.zeros(self.m.nv, int)
        assert sum(j["nv"] for j in joints) == self.m.nv
        for j in joints:
            mj = self.m.joint(j["name"])
            pq[mj.qposadr[0] : mj.qposadr[0] + j["nq"]] = np.arange(j["qpos"], j["qpos"] + j["nq"])
            pv[mj.dofadr[0] : mj.dofadr[0] + j["nv"]] = np.arange(j["dof"], j["dof"] + j["nv"])
        return pq, pv

    def dynamics(self, qpos, qvel, tau):
        self.d.qpos[:], self.d.qvel[:], self.d.qfrc_applied[:] = qpos, qvel, tau
        mujoco.mj_forward(self.m, self.d)
        full = np.zeros((self.m.nv, self.m.nv))
        mujoco.mj_fullM(self.m, self.d, full)
        return self.d.qacc.copy(), full


def check_mujoco(result, states, xml):
    mj = Mujoco(xml)
    pq, pv = mj.maps(result["joints"])
    worst_a = worst_m = 0.0
    for state, out in zip(states, result["results"]):
        qpos, qvel, tau = (np.asarray(state[k]) for k in ("qpos", "qvel", "tau"))
        qacc, full = mj.dynamics(qpos[pq], qvel[pv], tau[pv])
        mine = np.asarray(out["qacc"])[pv]
        mass = np.asarray(out["mass_matrix"])[np.ix_(pv, pv)]
        worst_a = max(worst_a, relative_error(mine, qacc))
        worst_m = max(worst_m, relative_error(mass, full))
    assert worst_a < TOLERANCE, f"{xml.name}: qacc differs from MuJoCo's by {worst_a:.3e} relative"
    assert worst_m < TOLERANCE, f"{xml.name}: mass matrix differs from mj_fullM by {worst_m:.3e} relative"
    return worst_a, worst_m


# ---------------------------------------------------------------------------------------------
# Pinocchio


def rotation_wxyz(q):
    return pin.Quaternion(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix()


class Pinocchio:
    def __init__(self, path, floating, passive):
        """`passive`: joint name → (damping, stiffness, spring rest, armature)."""
        if path.suffix == ".urdf":
            self.m = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
                pin.buildModelFromUrdf(str(path))
        else:
            self.m = pin.buildModelFromMJCF(str(path))
        self.d = self.m.createData()
        self.passive = passive
        for name, joint in zip(self.m.names, self.m.joints):
            if name in passive:
                self.m.armature[joint.idx_v : joint.idx_v + joint.nv] = passive[name][3]

    def joint(self, name, kind):
        """The Pinocchio joint for an engine joint (a URDF free flyer is `root_joint`)."""
        if kind == "floating" and name not in list(self.m.names):
            name = "root_joint"
        return self.m.joints[self.m.getJointId(name)]

    def check(self, result, states):
        worst = 0.0
        joints = result["joints"]
        for state, out in zip(states, result["results"]):
            qpos, qvel, tau = (np.asarray(state[k]) for k in ("qpos", "qvel", "tau"))
            qacc = np.asarray(out["qacc"])
            q, v, t, expected = np.zeros(self.m.nq), np.zeros(self.m.nv), np.zeros(self.m.nv), np.zeros(self.m.nv)
            for j in joints:
                pj = self.joint(j["name"], j["kind"])
                iq, iv, jq, jv = pj.idx_q, pj.idx_v, j["qpos"], j["dof"]
                damping, stiffness, rest, _ = self.passive.get(j["name"], (0.0, 0.0, 0.0, 0.0))
                if j["kind"] == "floating":
                    rot = rotation_wxyz(qpos[jq + 3 : jq + 7])
                    w, xdot = qvel[jv + 3 : jv + 6], qvel[jv : jv + 3]
                    vlocal = rot.T @ xdot
                    q[iq : iq + 3] = qpos[jq : jq + 3]
                    q[iq + 3 : iq + 7] = np.r_[qpos[jq + 4 : jq + 7], qpos[jq + 3]]
                    v[iv : iv + 6] = np.r_[vlocal, w]
                    t[iv : iv + 6] = np.r_[rot.T @ tau[jv : jv + 3], tau[jv + 3 : jv + 6]]
                    expected[iv : iv + 6] = np.r_[rot.T @ qacc[jv : jv + 3] - np.cross(w, vlocal), qacc[jv + 3 : jv + 6]]
                elif j["kind"] == "planar":
                    # Engine and model: [x, y, θ] and their rates in the joint frame;
                    # Pinocchio: [x, y, cos θ, sin θ] and [v, ω] in the moving frame.
                    x, y, th = qpos[jq : jq + 3]
                    c, s_ = math.cos(th), math.sin(th)
                    rt = np.array([[c, s_], [-s_, c]])
                    w = qvel[jv + 2]
                    vlocal = rt @ qvel[jv : jv + 2]
                    q[iq : iq + 4] = [x, y, c, s_]
                    v[iv : iv + 3] = np.r_[vlocal, w]
                    t[iv : iv + 3] = np.r_[rt @ tau[jv : jv + 2], tau[jv + 2]]
                    expected[iv : iv + 3] = np.r_[rt @ qacc[jv : jv + 2] - w * np.array([-vlocal[1], vlocal[0]]), qacc[jv + 2]]
                elif j["kind"] == "spherical":
                    quat = qpos[jq : jq + 4]
                    q[iq : iq + 4] = np.r_[quat[1:], quat[0]]
                    w = qvel[jv : jv + 3]
                    v[iv : iv + 3] = w
                    spring = -stiffness * pin.log3(rotation_wxyz(quat))
                    t[iv : iv + 3] = tau[jv : jv + 3] - damping * w + spring
                    expected[iv : iv + 3] = qacc[jv : jv + 3]
                else:
                    angle = qpos[jq]
                    q[iq : iq + pj.nq] = [math.cos(angle), math.sin(angle)] if pj.nq == 2 else [angle]
                    v[iv] = qvel[jv]
                    t[iv] = tau[jv] - damping * qvel[jv] - stiffness * (angle - rest)
                    expected[iv] = qacc[jv]
            ddq = pin.aba(self.m, self.d, q, v, t)
            worst = max(worst, relative_error(expected, ddq))
        assert worst < TOLERANCE, f"joint accelerations differ from Pinocchio's aba by {worst:.3e} relative"
        return worst


def urdf_passive(path):
    """Joint name → (damping, 0, 0, 0) from a URDF's <dynamics>."""
    out = {}
    for joint in ET.parse(path).getroot().iter("joint"):
        d = joint.find("dynamics")
        out[joint.get("name")] = (float(d.get("damping", 0)) if d is not None else 0.0, 0.0, 0.0, 0.0)
    return out


def mujoco_passive(xml):
    """Joint name → (damping, stiffness, spring rest, armature) as MuJoCo compiled them."""
    m = mujoco.MjModel.from_xml_path(str(xml))
    out = {}
    for j in range(m.njnt):
        joint = m.joint(j)
        dof = joint.dofadr[0]
        rest = m.qpos_spring[joint.qposadr[0]] if joint.type[0] in (2, 3) else 0.0
        out[joint.name] = (m.dof_damping[dof], m.jnt_stiffness[j], rest, m.dof_armature[dof])
    return out


# ---------------------------------------------------------------------------------------------
# The shipped models

SHIPPED = [
    # (model, floating base, has a URDF)
    ("pendulum", False, True),
    ("double_pendulum", False, True),
    ("arm", False, True),
    ("humanoid", True, True),
    ("quadruped", True, False),
]


@pytest.mark.parametrize("name,floating,has_urdf", SHIPPED)
def test_shipped_model_matches_mujoco_and_pinocchio(impulse_bin, tmp_path, name, floating, has_urdf):
    rng = np.random.default_rng(sum(map(ord, name)))
    xml = MODELS / f"{name}.xml"
    first = engine(impulse_bin, xml, [], tmp_path)
    states = random_states(first["joints"], first["nq"], first["nv"], rng)
    result = engine(impulse_bin, xml, states, tmp_path)
    worst_a, worst_m = check_mujoco(result, states, xml)
    passive = mujoco_passive(xml)
    if has_urdf:
        urdf = MODELS / f"{name}.urdf"
        from_urdf = engine(impulse_bin, urdf, states, tmp_path, base="floating" if floating else None)
        worst_p = Pinocchio(urdf, floating, urdf_passive(urdf)).check(from_urdf, states)
    else:
        worst_p = Pinocchio(xml, floating, passive).check(result, states)
    print(f"{name}: MuJoCo qacc {worst_a:.1e}, mj_fullM {worst_m:.1e}, Pinocchio aba {worst_p:.1e}")


def test_pendulum_closed_form(impulse_bin, tmp_path):
    """Mirtich V21: a rod (m = 1, L = 1) about its end at 30° from hanging, at rest:
    q̈ = −m g d sin θ / (I_c + m d²) = −7.3575 rad/s² (d = 0.5, I_c = 1/12)."""
    for model in ("pendulum.urdf", "pendulum.xml"):
        out = engine(impulse_bin, MODELS / model, [{"qpos": [math.radians(30)]}], tmp_path)
        assert abs(out["results"][0]["qacc"][0] + 7.3575) < 1e-12
        assert abs(out["results"][0]["mass_matrix"][0][0] - 1 / 3) < 1e-15


# ---------------------------------------------------------------------------------------------
# Random trees


def random_inertial(rng):
    a, b = rng.uniform(0.02, 1.0, size=2)
    c = rng.uniform(abs(a - b) + 0.01, a + b)
    return {
        "mass": float(rng.uniform(0.2, 5.0)),
        "com": rng.uniform(-0.3, 0.3, size=3).tolist(),
        "rpy": rng.uniform(-math.pi, math.pi, size=3).tolist(),
        "inertia": [float(a), float(b), float(c), 0.0, 0.0, 0.0],
    }


def random_tree(rng, n, floating, ball):
    """A random tree of n links: random parents, frames, axes and inertials; joints hinges,
    slides, continuous hinges, welds, and (MJCF only) balls with springs and armature."""
    kinds = ["revolute", "continuous", "prismatic", "fixed"] + (["ball", "ball"] if ball else [])
    bodies = [{"name": "root", "parent": None, "inertial": random_inertial(rng)}]
    for k in range(1, n):
        kind = kinds[rng.integers(len(kinds))]
        axis = rng.normal(size=3)
        body = {
            "name": f"link{k}",
            "parent": bodies[rng.integers(len(bodies))]["name"],
            "xyz": rng.uniform(-0.5, 0.5, size=3).tolist(),
            "rpy": rng.uniform(-math.pi, math.pi, size=3).tolist(),
            "inertial": random_inertial(rng),
            "joint": None if kind == "fixed" else {
                "name": f"joint{k}", "type": kind, "axis": (axis / np.linalg.norm(axis)).tolist(),
                "damping": float(rng.uniform(0, 0.5)),
            },
        }
        if ball and body["joint"] is not None:
            body["joint"]["armature"] = float(rng.uniform(0, 0.1))
            if kind in ("ball", "revolute"):
                body["joint"]["stiffness"] = float(rng.uniform(0, 2.0))
        bodies.append(body)
    return {"name": "random", "base": "floating" if floating else "fixed", "bodies": bodies}


@pytest.mark.parametrize("seed", range(8))
def test_random_trees_match_mujoco_and_pinocchio(impulse_bin, tmp_path, seed):
    """Even seeds: URDF-expressible trees (hinges, slides, welds), checked through both files;
    odd seeds: MJCF trees with ball joints, springs and armature. Half float."""
    rng = np.random.default_rng(1000 + seed)
    ball = seed % 2 == 1
    floating = seed % 4 >= 2
    description = random_tree(rng, 4 + 2 * seed, floating, ball)
    xml = tmp_path / "random.xml"
    xml.write_text(generate.mjcf(description, root_body=True))
    first = engine(impulse_bin, xml, [], tmp_path)
    states = random_states(first["joints"], first["nq"], first["nv"], rng)
    result = engine(impulse_bin, xml, states, tmp_path)
    worst_a, worst_m = check_mujoco(result, states, xml)
    if ball:
        worst_p = Pinocchio(xml, floating, mujoco_passive(xml)).check(result, states)
    else:
        urdf = tmp_path / "random.urdf"
        urdf.write_text(generate.urdf(description))
        from_urdf = engine(impulse_bin, urdf, states, tmp_path, base="floating" if floating else None)
        assert [j["name"] for j in from_urdf["joints"]] == [j["name"] for j in result["joints"]]
        worst_p = Pinocchio(urdf, floating, urdf_passive(urdf)).check(from_urdf, states)
    print(f"seed {seed}: {first['nv']} dof, MuJoCo qacc {worst_a:.1e}, mj_fullM {worst_m:.1e}, Pinocchio {worst_p:.1e}")


@pytest.mark.parametrize("seed", range(3))
def test_random_urdf_trees_with_floating_and_planar_joints_match_pinocchio(impulse_bin, tmp_path, seed):
    """URDF joints MJCF cannot say: `floating` joints inside the tree (their coordinates are
    relative to the parent's frame) and `planar` ones (about z of the joint frame), against
    Pinocchio alone."""
    rng = np.random.default_rng(2000 + seed)
    description = random_tree(rng, 6 + 3 * seed, False, False)
    for body in description["bodies"][1:]:
        if rng.random() < 0.4:
            kind = "floating" if rng.random() < 0.5 else "planar"
            body["joint"] = {"name": body["name"] + "_" + kind, "type": kind, "axis": [0.0, 0.0, 1.0]}
    urdf = tmp_path / "random.urdf"
    urdf.write_text(generate.urdf(description))
    first = engine(impulse_bin, urdf, [], tmp_path)
    kinds = {j["kind"] for j in first["joints"]}
    states = random_states(first["joints"], first["nq"], first["nv"], rng)
    result = engine(impulse_bin, urdf, states, tmp_path)
    worst = Pinocchio(urdf, False, urdf_passive(urdf)).check(result, states)
    print(f"seed {seed}: {first['nv']} dof, joints {sorted(kinds)}, Pinocchio {worst:.1e}")


GEOM_MASSES = """<mujoco model="geoms">
  <compiler angle="degree"/>
  <default><geom density="800"/><default class="heavy"><geom density="2500"/></default></default>
  <worldbody>
    <body name="body" pos="0 0 1" euler="10 20 30">
      <freejoint name="free"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.3 0.1 0"/>
      <geom type="ellipsoid" size="0.1 0.05 0.08" pos="0 0.2 0" euler="0 45 0" class="heavy"/>
      <geom type="cylinder" size="0.04 0.1" pos="0.1 0 0.2" axisangle="1 0 0 30"/>
      <geom type="box" size="0.05 0.1 0.02" pos="-0.1 0 0" mass="0.7"/>
      <geom type="sphere" size="0.03" pos="0 0 -0.1" contype="0" conaffinity="0"/>
      <body name="arm" pos="0.3 0 0" zaxis="1 1 0">
        <joint name="hinge" type="hinge" axis="0 1 0" armature="0.05"/>
        <geom type="capsule" size="0.02 0.15" pos="0 0 0.15"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_mass_from_geoms_matches_mujoco(impulse_bin, tmp_path):
    """Bodies without <inertial> weigh their geoms (capsule by fromto, ellipsoid, cylinder,
    box by mass, a visual sphere that still weighs, density from default classes), placed by
    euler, axisangle and zaxis: the mass matrix and accelerations match MuJoCo's, which
    computes the same volumes in closed form."""
    xml = tmp_path / "geoms.xml"
    xml.write_text(GEOM_MASSES)
    rng = np.random.default_rng(11)
    first = engine(impulse_bin, xml, [], tmp_path)
    states = random_states(first["joints"], first["nq"], first["nv"], rng)
    result = engine(impulse_bin, xml, states, tmp_path)
    worst_a, worst_m = check_mujoco(result, states, xml)
    print(f"geoms: MuJoCo qacc {worst_a:.1e}, mj_fullM {worst_m:.1e}")
