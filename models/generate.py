#!/usr/bin/env python3
"""Writes the robot models in this folder, each in URDF and MJCF from one description.

    python3 models/generate.py          # rewrites models/*.urdf, models/*.xml, models/meshes/

Standard library only. The same writers make the random trees of
tests/python/test_model_dynamics.py, so the two formats of a model describe the same
mechanism by construction, written in each format's own conventions:

- URDF: a joint's <origin xyz rpy> places the child link's frame in the parent's; rpy are
  fixed-axis roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)); the axis is in the child frame;
  an <inertial>'s tensor is along its own <origin>'s axes.
- MJCF: the same frames as body pos + quat (w x y z), joints at the body origin, geoms placed
  by euler angles under <compiler angle="radian" eulerseq="XYZ"/> (uppercase: fixed axes, so
  euler="r p y" is URDF's rpy), inertia tensors in body axes (fullinertia, which MJCF does
  not let one rotate), half sizes.

A description is a dict: name, base ("fixed" or "floating"), and bodies, each with name,
parent (None for the root), xyz and rpy of its frame in the parent's, joint (None: welded,
else {type: revolute | continuous | prismatic | ball (MJCF only), name, axis, limits,
damping, stiffness, armature (MJCF only)}), inertial (mass, com, rpy, inertia =
[ixx, iyy, izz, ixy, ixz, iyz]) and geoms ([{type: box | cylinder | sphere | mesh, ...,
xyz, rpy}]).
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def num(x):
    """Shortest repr that reads back exactly."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def nums(xs):
    return " ".join(num(x) for x in xs)


def quat_from_rpy(r, p, y):
    """w, x, y, z of Rz(y) Ry(p) Rx(r)."""
    cr, sr = math.cos(r / 2), math.sin(r / 2)
    cp, sp = math.cos(p / 2), math.sin(p / 2)
    cy, sy = math.cos(y / 2), math.sin(y / 2)
    return (
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    )


def matrix_from_rpy(r, p, y):
    """Rz(y) Ry(p) Rx(r) as rows."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]


def rotate_inertia(inertia, rpy):
    """[ixx, iyy, izz, ixy, ixz, iyz] along axes rotated by rpy, expressed in the unrotated axes: R I Rᵀ."""
    ixx, iyy, izz, ixy, ixz, iyz = inertia
    i = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
    r = matrix_from_rpy(*rpy)
    ri = [[sum(r[a][k] * i[k][b] for k in range(3)) for b in range(3)] for a in range(3)]
    out = [[sum(ri[a][k] * r[b][k] for k in range(3)) for b in range(3)] for a in range(3)]
    return [out[0][0], out[1][1], out[2][2], out[0][1], out[0][2], out[1][2]]


# ---------------------------------------------------------------------------------------------
# URDF


def urdf(model):
    out = ['<?xml version="1.0"?>', f'<!-- {model.get("comment", model["name"])} -->',
           f'<robot name="{model["name"]}">']
    for b in model["bodies"]:
        out.append(f'  <link name="{b["name"]}">')
        i = b.get("inertial")
        if i:
            ixx, iyy, izz, ixy, ixz, iyz = i["inertia"]
            out += [
                "    <inertial>",
                f'      <origin xyz="{nums(i["com"])}" rpy="{nums(i.get("rpy", (0, 0, 0)))}"/>',
                f'      <mass value="{num(i["mass"])}"/>',
                f'      <inertia ixx="{num(ixx)}" ixy="{num(ixy)}" ixz="{num(ixz)}" '
                f'iyy="{num(iyy)}" iyz="{num(iyz)}" izz="{num(izz)}"/>',
                "    </inertial>",
            ]
        for g in b.get("geoms", []):
            out += [
                "    <collision>",
                f'      <origin xyz="{nums(g.get("xyz", (0, 0, 0)))}" rpy="{nums(g.get("rpy", (0, 0, 0)))}"/>',
                f"      <geometry>{urdf_geometry(g)}</geometry>",
                "    </collision>",
            ]
        out.append("  </link>")
    for b in model["bodies"]:
        if b["parent"] is None:
            continue
        j = b.get("joint")
        kind = "fixed" if j is None else j["type"]
        name = f'{b["name"]}_weld' if j is None else j["name"]
        out.append(f'  <joint name="{name}" type="{kind}">')
        out.append(f'    <parent link="{b["parent"]}"/>')
        out.append(f'    <child link="{b["name"]}"/>')
        out.append(f'    <origin xyz="{nums(b["xyz"])}" rpy="{nums(b.get("rpy", (0, 0, 0)))}"/>')
        if j is not None:
            out.append(f'    <axis xyz="{nums(j["axis"])}"/>')
            if "limits" in j:
                lo, hi = j["limits"]
                out.append(f'    <limit lower="{num(lo)}" upper="{num(hi)}" effort="100" velocity="10"/>')
            elif kind in ("revolute", "prismatic"):
                out.append('    <limit lower="-3.14" upper="3.14" effort="100" velocity="10"/>')
            if j.get("damping"):
                out.append(f'    <dynamics damping="{num(j["damping"])}"/>')
        out.append("  </joint>")
    out.append("</robot>")
    return "\n".join(out) + "\n"


def urdf_geometry(g):
    if g["type"] == "box":
        return f'<box size="{nums(g["size"])}"/>'
    if g["type"] == "cylinder":
        return f'<cylinder radius="{num(g["radius"])}" length="{num(g["length"])}"/>'
    if g["type"] == "sphere":
        return f'<sphere radius="{num(g["radius"])}"/>'
    return f'<mesh filename="{g["file"]}" scale="{nums(g.get("scale", (1, 1, 1)))}"/>'


# ---------------------------------------------------------------------------------------------
# MJCF


def mjcf(model, root_body=False):
    """The model as MJCF. A fixed base is the world itself (its geoms the world's, its
    children top-level bodies), or with `root_body` a top-level body without joints (welded;
    Pinocchio's MJCF reader takes one top-level tree only)."""
    out = [f'<!-- {model.get("comment", model["name"])} -->', f'<mujoco model="{model["name"]}">',
           '  <compiler angle="radian" eulerseq="XYZ"/>',
           '  <option gravity="0 0 -9.81" timestep="0.002"/>']
    meshes = sorted({g["file"] for b in model["bodies"] for g in b.get("geoms", []) if g["type"] == "mesh"})
    if model.get("defaults"):
        out.append(model["defaults"])
    if meshes:
        out.append("  <asset>")
        for m in meshes:
            scale = next(g.get("scale", (1, 1, 1)) for b in model["bodies"] for g in b.get("geoms", [])
                         if g.get("file") == m)
            out.append(f'    <mesh name="{os.path.splitext(os.path.basename(m))[0]}" file="{m}" scale="{nums(scale)}"/>')
        out.append("  </asset>")
    out.append("  <worldbody>")
    for g in model.get("world_geoms", []):
        out.append("    " + mjcf_geom(g))
    children = {}
    for b in model["bodies"]:
        children.setdefault(b["parent"], []).append(b)
    root = children[None][0]
    if model["base"] == "fixed" and not root_body:
        # The root is welded to the world: its geoms are the world's, its children hang there.
        for g in root.get("geoms", []):
            out.append("    " + mjcf_geom(g))
        for c in children.get(root["name"], []):
            mjcf_body(c, children, out, 2)
    else:
        free = f'{root["name"]}_base' if model["base"] == "floating" else None
        mjcf_body(root, children, out, 2, free=free)
    out.append("  </worldbody>")
    if model.get("actuators"):
        out.append("  <actuator>")
        out += ["    " + a for a in model["actuators"]]
        out.append("  </actuator>")
    out.append("</mujoco>")
    return "\n".join(out) + "\n"


def mjcf_body(b, children, out, depth, free=None):
    pad = "  " * depth
    q = quat_from_rpy(*b.get("rpy", (0, 0, 0)))
    cls = f' childclass="{b["childclass"]}"' if b.get("childclass") else ""
    out.append(f'{pad}<body name="{b["name"]}" pos="{nums(b.get("xyz", (0, 0, 0)))}" quat="{nums(q)}"{cls}>')
    if free:
        out.append(f'{pad}  <freejoint name="{free}"/>')
    j = b.get("joint")
    if j is not None:
        kind = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slide", "ball": "ball"}[j["type"]]
        attrs = [f'name="{j["name"]}"', f'type="{kind}"']
        if kind != "ball":
            attrs.append(f'axis="{nums(j["axis"])}"')
        if "limits" in j and kind != "ball":
            attrs.append(f'range="{nums(j["limits"])}"')
        elif j["type"] in ("revolute", "prismatic"):
            attrs.append('range="-3.14 3.14"')
        for key in ("damping", "stiffness", "armature"):
            if j.get(key):
                attrs.append(f'{key}="{num(j[key])}"')
        out.append(f'{pad}  <joint {" ".join(attrs)}/>')
    i = b.get("inertial")
    if i:
        # MJCF takes either an orientation or a full tensor: the tensor goes in body axes.
        out.append(
            f'{pad}  <inertial pos="{nums(i["com"])}" mass="{num(i["mass"])}" '
            f'fullinertia="{nums(rotate_inertia(i["inertia"], i.get("rpy", (0, 0, 0))))}"/>'
        )
    for g in b.get("geoms", []):
        out.append(pad + "  " + mjcf_geom(g))
    for c in children.get(b["name"], []):
        mjcf_body(c, children, out, depth + 1)
    out.append(f"{pad}</body>")


def mjcf_geom(g):
    place = f'pos="{nums(g.get("xyz", (0, 0, 0)))}" euler="{nums(g.get("rpy", (0, 0, 0)))}"'
    if g["type"] == "box":
        return f'<geom type="box" size="{nums(x / 2 for x in g["size"])}" {place}/>'
    if g["type"] == "cylinder":
        return f'<geom type="cylinder" size="{num(g["radius"])} {num(g["length"] / 2)}" {place}/>'
    if g["type"] == "sphere":
        return f'<geom type="sphere" size="{num(g["radius"])}" {place}/>'
    if g["type"] == "plane":
        return f'<geom type="plane" size="0 0 1" {place}/>'
    name = os.path.splitext(os.path.basename(g["file"]))[0]
    return f'<geom type="mesh" mesh="{name}" {place}/>'


# ---------------------------------------------------------------------------------------------
# The shipped models


def rod(mass, length, radius):
    """A uniform rod along -z from its joint: inertial and geometry."""
    i_perp = mass * (3 * radius**2 + length**2) / 12
    return (
        {"mass": mass, "com": (0, 0, -length / 2), "inertia": [i_perp, i_perp, mass * radius**2 / 2, 0, 0, 0]},
        [{"type": "cylinder", "radius": radius, "length": length, "xyz": (0, 0, -length / 2)}],
    )


def pendulum():
    # A rod of mass 1 and length 1 about its end: I_c = 1/12 across it (Mirtich's V21 rod;
    # its axial moment 1e-3 only keeps the tensor invertible).
    return {
        "name": "pendulum",
        "comment": "A uniform rod (m = 1, L = 1) swinging about y at its top end. Written for impulse; public domain (CC0).",
        "base": "fixed",
        "bodies": [
            {"name": "base", "parent": None, "geoms": [{"type": "box", "size": (0.1, 0.1, 0.05), "xyz": (0, 0, 0.05)}]},
            {
                "name": "rod", "parent": "base", "xyz": (0, 0, 0),
                "joint": {"name": "hinge", "type": "continuous", "axis": (0, 1, 0)},
                "inertial": {"mass": 1.0, "com": (0, 0, -0.5), "inertia": [1 / 12, 1 / 12, 1e-3, 0, 0, 0]},
                "geoms": [{"type": "cylinder", "radius": 0.02, "length": 1.0, "xyz": (0, 0, -0.5)}],
            },
        ],
    }


def double_pendulum():
    i1, g1 = rod(1.0, 1.0, 0.02)
    i2, g2 = rod(0.5, 0.8, 0.015)
    return {
        "name": "double_pendulum",
        "comment": "Two rods hinged end to end about y, lightly damped. Written for impulse; public domain (CC0).",
        "base": "fixed",
        "bodies": [
            {"name": "base", "parent": None, "geoms": [{"type": "box", "size": (0.1, 0.1, 0.05), "xyz": (0, 0, 0.05)}]},
            {"name": "upper", "parent": "base", "xyz": (0, 0, 0),
             "joint": {"name": "shoulder", "type": "continuous", "axis": (0, 1, 0), "damping": 0.01},
             "inertial": i1, "geoms": g1},
            {"name": "lower", "parent": "upper", "xyz": (0, 0, -1.0),
             "joint": {"name": "elbow", "type": "continuous", "axis": (0, 1, 0), "damping": 0.01},
             "inertial": i2, "geoms": g2},
        ],
    }


def arm():
    half_pi = math.pi / 2
    return {
        "name": "arm",
        "comment": "A six-axis arm (pan, lift, elbow, three wrist axes) with a sliding finger on a welded tool, "
                   "proportions of a 5 kg-payload industrial arm. Written for impulse; public domain (CC0).",
        "base": "fixed",
        "bodies": [
            {"name": "base_link", "parent": None,
             "inertial": {"mass": 4.0, "com": (0, 0, 0.05), "inertia": [0.0072, 0.0072, 0.0128, 0, 0, 0]},
             "geoms": [{"type": "cylinder", "radius": 0.08, "length": 0.1, "xyz": (0, 0, 0.05)}]},
            {"name": "shoulder", "parent": "base_link", "xyz": (0, 0, 0.1),
             "joint": {"name": "shoulder_pan", "type": "revolute", "axis": (0, 0, 1), "limits": (-6.2832, 6.2832), "damping": 0.5},
             "inertial": {"mass": 3.7, "com": (0, 0.01, 0.05), "inertia": [0.0102, 0.0101, 0.0067, 0.0002, -0.0001, 0.0003]},
             "geoms": [{"type": "cylinder", "radius": 0.06, "length": 0.12, "xyz": (0, 0, 0.06)}]},
            {"name": "upper_arm", "parent": "shoulder", "xyz": (0, 0.12, 0.09),
             "joint": {"name": "shoulder_lift", "type": "revolute", "axis": (0, 1, 0), "limits": (-3.1416, 3.1416), "damping": 0.5},
             "inertial": {"mass": 8.4, "com": (0, 0, 0.21), "rpy": (0.02, -0.03, 0.1), "inertia": [0.134, 0.133, 0.0151, 0.001, -0.002, 0.0005]},
             "geoms": [{"type": "cylinder", "radius": 0.05, "length": 0.42, "xyz": (0, 0, 0.23)}]},
            {"name": "forearm", "parent": "upper_arm", "xyz": (0, -0.1, 0.425),
             "joint": {"name": "elbow", "type": "revolute", "axis": (0, 1, 0), "limits": (-3.1416, 3.1416), "damping": 0.3},
             "inertial": {"mass": 2.3, "com": (0, 0, 0.19), "inertia": [0.0312, 0.0311, 0.0041, 0, 0.0003, 0]},
             "geoms": [{"type": "cylinder", "radius": 0.04, "length": 0.39, "xyz": (0, 0, 0.215)}]},
            {"name": "wrist_1", "parent": "forearm", "xyz": (0, 0, 0.39), "rpy": (0, 0, half_pi),
             "joint": {"name": "wrist_1", "type": "revolute", "axis": (1, 0, 0), "limits": (-6.2832, 6.2832), "damping": 0.1},
             "inertial": {"mass": 1.2, "com": (0, 0.05, 0), "inertia": [0.0022, 0.0015, 0.0021, 0.0001, 0, -0.0001]},
             "geoms": [{"type": "cylinder", "radius": 0.04, "length": 0.1, "xyz": (0.05, 0.05, 0), "rpy": (0, half_pi, 0)}]},
            {"name": "wrist_2", "parent": "wrist_1", "xyz": (0, 0.09, 0),
             "joint": {"name": "wrist_2", "type": "revolute", "axis": (0, 0, 1), "limits": (-6.2832, 6.2832), "damping": 0.1},
             "inertial": {"mass": 1.2, "com": (0, 0, 0.05), "inertia": [0.0021, 0.0022, 0.0015, 0, 0.0001, 0]},
             "geoms": [{"type": "box", "size": (0.07, 0.07, 0.08), "xyz": (0.05, 0, 0.1)}]},
            {"name": "wrist_3", "parent": "wrist_2", "xyz": (0, 0, 0.09), "rpy": (-half_pi, 0, 0),
             "joint": {"name": "wrist_3", "type": "revolute", "axis": (0, 0, 1), "limits": (-6.2832, 6.2832), "damping": 0.1},
             "inertial": {"mass": 0.3, "com": (0, 0, 0.02), "inertia": [0.0002, 0.0002, 0.0003, 0, 0, 0]},
             "geoms": [{"type": "mesh", "file": "meshes/flange.obj", "scale": (0.01, 0.01, 0.01), "xyz": (0, 0, 0.12)}]},
            {"name": "tool", "parent": "wrist_3", "xyz": (0, 0, 0.05), "joint": None,
             "inertial": {"mass": 0.2, "com": (0, 0, 0.02), "inertia": [0.0001, 0.0001, 0.00005, 0, 0, 0]},
             "geoms": [{"type": "box", "size": (0.1, 0.02, 0.03), "xyz": (0, 0, 0.14)}]},
            {"name": "finger", "parent": "tool", "xyz": (0.02, 0, 0.17),
             "joint": {"name": "finger", "type": "prismatic", "axis": (1, 0, 0), "limits": (0.0, 0.04), "damping": 0.5},
             "inertial": {"mass": 0.05, "com": (0, 0, 0.02), "inertia": [0.00001, 0.00001, 0.000005, 0, 0, 0]},
             "geoms": [{"type": "box", "size": (0.01, 0.02, 0.04), "xyz": (0, 0, 0.02)}]},
        ],
    }


def box_inertia(mass, size):
    x, y, z = size
    return [mass * (y * y + z * z) / 12, mass * (x * x + z * z) / 12, mass * (x * x + y * y) / 12, 0, 0, 0]


def humanoid():
    """A humanoid-shaped tree on a floating torso, one hinge per link."""
    bodies = [
        {"name": "torso", "parent": None,
         "inertial": {"mass": 12.0, "com": (0, 0, 0.02), "inertia": [0.30, 0.25, 0.12, 0.002, 0, -0.001]},
         "geoms": [{"type": "box", "size": (0.22, 0.32, 0.5)}]},
        {"name": "head", "parent": "torso", "xyz": (0, 0, 0.3),
         "joint": {"name": "neck", "type": "revolute", "axis": (0, 0, 1), "limits": (-1.2, 1.2), "damping": 0.2},
         "inertial": {"mass": 2.5, "com": (0.01, 0, 0.1), "inertia": [0.011, 0.012, 0.009, 0, 0.0005, 0]},
         "geoms": [{"type": "sphere", "radius": 0.1, "xyz": (0, 0, 0.12)}]},
    ]
    for side, sign in (("left", 1.0), ("right", -1.0)):
        s = side[0]
        bodies += [
            {"name": f"{s}_upper_arm", "parent": "torso", "xyz": (0, sign * 0.21, 0.2), "rpy": (sign * 0.1, 0, 0),
             "joint": {"name": f"{side}_shoulder", "type": "revolute", "axis": (0, 1, 0), "limits": (-3.0, 1.5), "damping": 0.3},
             "inertial": {"mass": 2.0, "com": (0, 0, -0.14), "inertia": box_inertia(2.0, (0.08, 0.08, 0.28))},
             "geoms": [{"type": "cylinder", "radius": 0.04, "length": 0.26, "xyz": (0, 0, -0.15)}]},
            {"name": f"{s}_forearm", "parent": f"{s}_upper_arm", "xyz": (0, 0, -0.3),
             "joint": {"name": f"{side}_elbow", "type": "revolute", "axis": (0, 1, 0), "limits": (-2.5, 0.0), "damping": 0.2},
             "inertial": {"mass": 1.4, "com": (0, 0, -0.13), "inertia": box_inertia(1.4, (0.07, 0.07, 0.26))},
             "geoms": [{"type": "cylinder", "radius": 0.035, "length": 0.24, "xyz": (0, 0, -0.14)}]},
            {"name": f"{s}_thigh", "parent": "torso", "xyz": (0, sign * 0.1, -0.27),
             "joint": {"name": f"{side}_hip", "type": "revolute", "axis": (1, 0, 0), "limits": (-0.8, 0.8), "damping": 0.5},
             "inertial": {"mass": 5.0, "com": (0, 0, -0.2), "rpy": (0, 0.05, 0), "inertia": box_inertia(5.0, (0.12, 0.12, 0.4))},
             "geoms": [{"type": "cylinder", "radius": 0.06, "length": 0.36, "xyz": (0, 0, -0.2)}]},
            {"name": f"{s}_shin", "parent": f"{s}_thigh", "xyz": (0, 0, -0.42),
             "joint": {"name": f"{side}_knee", "type": "revolute", "axis": (0, 1, 0), "limits": (0.0, 2.5), "damping": 0.4},
             "inertial": {"mass": 3.5, "com": (0, 0, -0.2), "inertia": box_inertia(3.5, (0.1, 0.1, 0.4))},
             "geoms": [{"type": "cylinder", "radius": 0.05, "length": 0.36, "xyz": (0, 0, -0.2)}]},
            {"name": f"{s}_foot", "parent": f"{s}_shin", "xyz": (0, 0, -0.42),
             "joint": {"name": f"{side}_ankle", "type": "revolute", "axis": (0, 1, 0), "limits": (-0.7, 0.7), "damping": 0.3},
             "inertial": {"mass": 1.0, "com": (0.04, 0, -0.04), "inertia": box_inertia(1.0, (0.22, 0.1, 0.06))},
             "geoms": [{"type": "box", "size": (0.22, 0.1, 0.06), "xyz": (0.04, 0, -0.05)}]},
        ]
    return {
        "name": "humanoid",
        "comment": "A humanoid-shaped tree: floating torso, head, two arms (shoulder, elbow), two legs (hip, knee, "
                   "ankle), one hinge per link. Written for impulse; public domain (CC0).",
        "base": "floating",
        "bodies": bodies,
    }


def quadruped():
    """MJCF only: ball-jointed hips with springs and armature, default classes, servos."""
    bodies = [
        {"name": "trunk", "parent": None,
         "inertial": {"mass": 9.0, "com": (0.01, 0, 0), "inertia": [0.05, 0.2, 0.22, 0, 0.001, 0]},
         "geoms": [{"type": "box", "size": (0.6, 0.24, 0.12)}]},
    ]
    for leg, (x, y) in {"fl": (0.25, 0.11), "fr": (0.25, -0.11), "hl": (-0.25, 0.11), "hr": (-0.25, -0.11)}.items():
        bodies += [
            {"name": f"{leg}_thigh", "parent": "trunk", "xyz": (x, y, -0.06), "childclass": "leg",
             "joint": {"name": f"{leg}_hip", "type": "ball", "axis": (0, 0, 1), "damping": 0.3, "stiffness": 2.0, "armature": 0.01},
             "inertial": {"mass": 1.0, "com": (0, 0, -0.11), "inertia": box_inertia(1.0, (0.05, 0.05, 0.22))},
             "geoms": [{"type": "cylinder", "radius": 0.025, "length": 0.2, "xyz": (0, 0, -0.11)}]},
            {"name": f"{leg}_calf", "parent": f"{leg}_thigh", "xyz": (0, 0, -0.22),
             # No damping given: the class "leg" default (0.25) applies.
             "joint": {"name": f"{leg}_knee", "type": "revolute", "axis": (0, 1, 0), "limits": (-2.6, -0.1), "armature": 0.02},
             "inertial": {"mass": 0.4, "com": (0, 0, -0.1), "inertia": box_inertia(0.4, (0.04, 0.04, 0.2))},
             "geoms": [{"type": "cylinder", "radius": 0.02, "length": 0.18, "xyz": (0, 0, -0.1)},
                       {"type": "sphere", "radius": 0.025, "xyz": (0, 0, -0.21)}]},
        ]
    return {
        "name": "quadruped",
        "comment": "A quadruped: floating trunk, ball-jointed hips with springs, hinged knees with position servos. "
                   "MJCF only (URDF has no ball joint). Written for impulse; public domain (CC0).",
        "base": "floating",
        "defaults": '  <default>\n    <geom contype="1" conaffinity="1"/>\n    <default class="leg">\n'
                    '      <joint damping="0.25"/>\n    </default>\n  </default>',
        "world_geoms": [{"type": "plane", "xyz": (0, 0, -0.52)}],
        "bodies": bodies,
        "actuators": [f'<position name="{leg}_knee" joint="{leg}_knee" kp="40" kv="1" forcerange="-30 30"/>'
                      for leg in ("fl", "fr", "hl", "hr")],
    }


def flange_obj():
    """A hexagonal prism (radius 4, height 2, centred on the origin) as an OBJ, wound outward."""
    lines = ["# A hexagonal flange, radius 4, height 2. Written for impulse; public domain (CC0).", "o flange"]
    for z in (-1.0, 1.0):
        for k in range(6):
            a = k * math.pi / 3
            lines.append(f"v {num(4 * math.cos(a))} {num(4 * math.sin(a))} {num(z)}")
    lines.append("f 6 5 4 3 2 1")
    lines.append("f 7 8 9 10 11 12")
    for k in range(6):
        a, b = k + 1, (k + 1) % 6 + 1
        lines.append(f"f {a} {b} {b + 6} {a + 6}")
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(os.path.join(HERE, "meshes"), exist_ok=True)
    with open(os.path.join(HERE, "meshes", "flange.obj"), "w") as f:
        f.write(flange_obj())
    for make in (pendulum, double_pendulum, arm, humanoid):
        m = make()
        with open(os.path.join(HERE, m["name"] + ".urdf"), "w") as f:
            f.write(urdf(m))
        with open(os.path.join(HERE, m["name"] + ".xml"), "w") as f:
            f.write(mjcf(m))
    q = quadruped()
    with open(os.path.join(HERE, q["name"] + ".xml"), "w") as f:
        f.write(mjcf(q))


if __name__ == "__main__":
    main()
