#!/usr/bin/env python3
"""Regenerates the mesh files in this directory (and the broken-mesh test fixtures).

Run from the repository root: python3 meshes/generate.py
Every solid is written with faces wound counter-clockwise seen from outside.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "crates", "impulse-cli", "tests", "data")


def write_obj(path, vertices, faces, objects=None, comment=""):
    with open(path, "w") as f:
        if comment:
            for line in comment.strip().splitlines():
                f.write(f"# {line}\n")
        for v in vertices:
            f.write("v %.17g %.17g %.17g\n" % v)
        if objects is None:
            objects = [("", faces)]
        for name, fs in objects:
            if name:
                f.write(f"o {name}\n")
            for face in fs:
                f.write("f " + " ".join(str(i + 1) for i in face) + "\n")


def write_binary_stl(path, vertices, triangles):
    with open(path, "wb") as f:
        f.write(b"impulse geodesic sphere".ljust(80, b" "))
        f.write(struct.pack("<I", len(triangles)))
        for t in triangles:
            a, b, c = (vertices[i] for i in t)
            u = [b[k] - a[k] for k in range(3)]
            w = [c[k] - a[k] for k in range(3)]
            n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
            length = math.sqrt(sum(x * x for x in n)) or 1.0
            f.write(struct.pack("<3f", *(x / length for x in n)))
            for p in (a, b, c):
                f.write(struct.pack("<3f", *p))
            f.write(b"\0\0")


def box(x0, x1, y0, y1, z0, z1, base=0):
    v = [(x, y, z) for z in (z0, z1) for (x, y) in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    f = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5], [0, 4, 7, 3]]
    return v, [[i + base for i in face] for face in f]


def geodesic(level):
    phi = (1 + 5 ** 0.5) / 2
    raw = []
    for a in (-1, 1):
        for b in (-phi, phi):
            raw += [(0, a, b), (a, b, 0), (b, 0, a)]
    vertices = [tuple(c / math.sqrt(sum(x * x for x in p)) for c in p) for p in raw]
    # Icosahedron faces: triples of mutually adjacent vertices (edge length 2/|p|), oriented out.
    edge = min(math.dist(vertices[0], q) for q in vertices[1:])
    faces = []
    n = len(vertices)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                if all(abs(math.dist(vertices[p], vertices[q]) - edge) < 1e-9 for p, q in ((i, j), (j, k), (i, k))):
                    a, b, c = vertices[i], vertices[j], vertices[k]
                    u = [b[m] - a[m] for m in range(3)]
                    w = [c[m] - a[m] for m in range(3)]
                    nrm = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
                    out = sum(nrm[m] * (a[m] + b[m] + c[m]) for m in range(3)) > 0
                    faces.append([i, j, k] if out else [i, k, j])
    for _ in range(level - 1):
        cache = {}
        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                m = [(vertices[a][t] + vertices[b][t]) / 2 for t in range(3)]
                length = math.sqrt(sum(x * x for x in m))
                vertices.append(tuple(x / length for x in m))
                cache[key] = len(vertices) - 1
            return cache[key]
        new = []
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            new += [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
        faces = new
    return vertices, faces


def revolve(profile, segments):
    """Closed solid of revolution about z from a closed (r, z) profile loop, counter-clockwise in
    the (r, z) half-plane. Profile points with r = 0 become single poles."""
    vertices, index = [], []
    for r, z in profile:
        if r == 0:
            index.append([len(vertices)] * segments)
            vertices.append((0.0, 0.0, z))
        else:
            row = []
            for s in range(segments):
                a = 2 * math.pi * s / segments
                row.append(len(vertices))
                vertices.append((r * math.cos(a), r * math.sin(a), z))
            index.append(row)
    faces = []
    m = len(profile)
    for i in range(m):
        j = (i + 1) % m
        for s in range(segments):
            t = (s + 1) % segments
            # (r, z) loop counter-clockwise: outward normal is to the right of travel direction.
            quad = [index[i][s], index[j][s], index[j][t], index[i][t]]
            quad = list(dict.fromkeys(quad))  # collapse poles
            if len(quad) >= 3:
                faces.append(quad[::-1])
    return vertices, faces


def main():
    # Mirtich Table 6.1 test solids.
    write_obj(os.path.join(HERE, "tetrahedron.obj"),
              [(0, 0, 0), (5, 0, 0), (0, 4, 0), (0, 0, 3)],
              [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
              comment="Mirtich Table 6.1: convex hull of the origin, 5i, 4j and 3k.")
    v, f = box(-10, 10, -10, 10, -10, 10)
    write_obj(os.path.join(HERE, "cube20.obj"), v, f,
              comment="Mirtich Table 6.1: axis-aligned cube of side 20 centred at the origin.")
    # Geodesic sphere, level 4 of Mirtich Table 6.2 (642 vertices, 1280 faces), binary STL.
    gv, gf = geodesic(4)
    write_binary_stl(os.path.join(HERE, "geodesic_sphere_4.stl"), gv, gf)
    # L-bracket in cm: two convex blocks as two OBJ objects (pieces = "objects").
    v1, f1 = box(0, 6, 0, 1, 0, 3)
    v2, f2 = box(0, 1, 1, 5, 0, 3, base=8)
    write_obj(os.path.join(HERE, "l_bracket.obj"), v1 + v2, f1 + f2,
              objects=[("foot", f1), ("upright", f2)],
              comment="L-bracket (cm): foot 6 x 1 x 3 and upright 1 x 4 x 3, one convex OBJ object each.")
    # Insulator cap in cm: a cup, open side down (Mirtich Table 7.3 part, geometry invented).
    cap = [(0.0, 2.0), (1.0, 2.0), (1.15, 1.8), (1.2, 0.0), (0.95, 0.0), (0.9, 1.6), (0.0, 1.6)]
    # Profile as (r, z), counter-clockwise in the r-z half-plane seen with r to the right, z up:
    # outer top, down the outside, across the rim, up the inside, to the inner pole.
    cap = list(reversed(cap))
    cv, cf = revolve(cap, 48)
    write_obj(os.path.join(HERE, "insulator_cap.obj"), cv, cf,
              comment="Insulator cap (cm): a cup of outer radius 1.2 and height 2, wall 0.25, open at z = 0.\n"
                      "Revolved profile, 48 segments. Non-convex: use pieces = \"auto\".")

    # Broken meshes for the CLI's bad-input tests.
    os.makedirs(FIXTURES, exist_ok=True)
    tv = [(0, 0, 0), (5, 0, 0), (0, 4, 0), (0, 0, 3)]
    tf = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    write_obj(os.path.join(FIXTURES, "open.obj"), tv, tf[:3], comment="A tetrahedron missing a face.")
    write_obj(os.path.join(FIXTURES, "inverted.obj"), tv, [f[::-1] for f in tf],
              comment="A tetrahedron wound clockwise (inside out).")
    write_obj(os.path.join(FIXTURES, "flipped_face.obj"), tv, tf[:3] + [tf[3][::-1]],
              comment="A tetrahedron with one face wound the wrong way.")
    write_obj(os.path.join(FIXTURES, "flat.obj"),
              [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [[0, 1, 2, 3], [0, 3, 2, 1]],
              comment="Two faces back to back: encloses no volume.")
    va, fa = box(0, 1, 0, 1, 0, 1)
    vb, fb = box(0.5, 1.5, 0.3, 1.3, 0.2, 1.2, base=8)
    write_obj(os.path.join(FIXTURES, "self_intersecting.obj"), va + vb, fa + fb,
              comment="Two overlapping cubes in one surface.")


if __name__ == "__main__":
    main()
