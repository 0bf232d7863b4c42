#!/usr/bin/env python3
"""Regenerates the mesh files of the impulse-based example scenes (scenes/impulse/).

Run from anywhere: python3 scenes/impulse/meshes/generate.py

Every mesh is a union of convex pieces, one OBJ object (`o`) each, so that the scenes can load
them with pieces = "objects": each piece is an exact convex solid, the pieces may touch but never
overlap, and the mass properties come from the whole mesh. Faces are wound counter-clockwise
seen from outside. Units are centimetres.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Obj:
    """An OBJ file under construction: objects, each a closed convex solid."""

    def __init__(self):
        self.vertices = []
        self.objects = []

    def add(self, name, vertices, faces):
        base = len(self.vertices)
        self.vertices += vertices
        self.objects.append((name, [[base + i for i in f] for f in faces]))

    def write(self, name, comment):
        path = os.path.join(HERE, name)
        with open(path, "w") as f:
            for line in comment.strip().splitlines():
                f.write(f"# {line}\n" if line else "#\n")
            for v in self.vertices:
                f.write("v %.17g %.17g %.17g\n" % tuple(0.0 if abs(c) < 1e-15 else c for c in v))
            for name, faces in self.objects:
                f.write(f"o {name}\n")
                for face in faces:
                    f.write("f " + " ".join(str(i + 1) for i in face) + "\n")


def box(x0, x1, y0, y1, z0, z1):
    """Axis-aligned box [x0, x1] × [y0, y1] × [z0, z1]."""
    v = [(x, y, z) for z in (z0, z1) for (x, y) in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
    f = [[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5], [0, 4, 7, 3]]
    return v, f


def prism(top, z_bottom):
    """The solid between a planar convex polygon `top` (counter-clockwise seen from above, its
    plane not vertical) and its vertical projection onto the plane z = z_bottom below it."""
    n = len(top)
    v = list(top) + [(x, y, z_bottom) for (x, y, _) in top]
    f = [list(range(n)), list(range(2 * n - 1, n - 1, -1))]
    for i in range(n):
        j = (i + 1) % n
        f.append([i, n + i, n + j, j])
    return v, f


def rings(profile, sides, phase=0.0):
    """A convex solid of revolution about z: regular `sides`-gons of radius r at height z for
    each (z, r) in `profile` (z increasing, r a concave function of z so the solid is convex).
    Neighbouring rings bound isosceles trapezoids, which are planar."""
    v = []
    for z, r in profile:
        for s in range(sides):
            a = phase + 2 * math.pi * s / sides
            v.append((r * math.cos(a), r * math.sin(a), z))
    m = len(profile)
    f = [list(range(sides - 1, -1, -1)), [(m - 1) * sides + s for s in range(sides)]]
    for k in range(m - 1):
        for s in range(sides):
            t = (s + 1) % sides
            f.append([k * sides + s, k * sides + t, (k + 1) * sides + t, (k + 1) * sides + s])
    return v, f


def check_concave(profile):
    slopes = [(r1 - r0) / (z1 - z0) for (z0, r0), (z1, r1) in zip(profile, profile[1:])]
    assert all(a >= b for a, b in zip(slopes, slopes[1:])), f"not convex: {profile}"


def shell_piece(top, centre, depth):
    """The convex piece under a planar convex polygon `top` (counter-clockwise seen from above)
    lying on a sphere about `centre` above it: the polygon and its copy pushed `depth` farther
    from the centre along the rays through `centre`, a frustum of the cone from the centre.
    Neighbouring pieces share their side faces, which lie in planes through the centre."""
    n = len(top)
    bottom = []
    for p in top:
        d = [p[k] - centre[k] for k in range(3)]
        length = math.sqrt(sum(x * x for x in d))
        bottom.append(tuple(p[k] + d[k] / length * depth for k in range(3)))
    v = list(top) + bottom
    f = [list(range(n)), list(range(2 * n - 1, n - 1, -1))]
    for i in range(n):
        j = (i + 1) % n
        f.append([i, n + i, n + j, j])
    return v, f


def dish():
    """A shallow dish: the inside of a sphere of radius 25 cm, cut at a rim radius of 10 cm
    (2.09 cm deep), as a shell 0.5 cm thick made of flat convex pieces. The lowest point of the
    bowl is the origin. The centre piece is a flat 24-gon of radius 0.44 cm; around it are 10
    rings of 24 pieces whose tops are isosceles trapezoids (every four corners at neighbouring
    latitudes and longitudes of a sphere lie in one plane)."""
    R, rim, sectors, ring_count, depth = 25.0, 10.0, 24, 10, 0.5
    theta_max, theta_centre = math.asin(rim / R), math.radians(1.0)
    thetas = [theta_centre + (theta_max - theta_centre) * k / ring_count
              for k in range(ring_count + 1)]
    centre_of_sphere = (0.0, 0.0, R)

    def point(theta, phi):
        return (R * math.sin(theta) * math.cos(phi), R * math.sin(theta) * math.sin(phi),
                R - R * math.cos(theta))

    obj = Obj()
    phis = [2 * math.pi * j / sectors for j in range(sectors)]
    # The centre piece's top is flat at the height of its corners: a ball on it rests 0.004 cm
    # above the sphere's lowest point.
    centre = [point(thetas[0], phi) for phi in phis]
    obj.add("centre", *shell_piece(centre, centre_of_sphere, depth))
    for k in range(ring_count):
        for j in range(sectors):
            a, b = phis[j], phis[(j + 1) % sectors]
            top = [point(thetas[k], a), point(thetas[k + 1], a), point(thetas[k + 1], b),
                   point(thetas[k], b)]
            obj.add(f"ring{k}_{j}", *shell_piece(top, centre_of_sphere, depth))
    obj.write("dish.obj", dish.__doc__)


def insulator_cap():
    """An insulator cap (the non-convex part of Mirtich's part-feeder chute, §7.1, and pose
    statistics, §7.5): a 12-sided cup of outer radius 1.2 cm and height 2 cm, closed at the top
    (z from 1.6 to 2), open at the bottom with a hollow of radius 0.95 cm, and a flange of
    radius 1.5 cm and thickness 0.25 cm around its open end. Pieces: the top plate, 12 wall
    segments and 12 flange segments (all convex prisms)."""
    sides, r_out, r_in, r_flange = 12, 1.2, 0.95, 1.5
    obj = Obj()

    def corner(r, s, z):
        a = 2 * math.pi * s / sides
        return (r * math.cos(a), r * math.sin(a), z)

    top = [corner(r_out, s, 2.0) for s in range(sides)]
    obj.add("top", *prism(top, 1.6))
    for s in range(sides):
        wall = [corner(r_in, s, 1.6), corner(r_out, s, 1.6), corner(r_out, s + 1, 1.6),
                corner(r_in, s + 1, 1.6)]
        obj.add(f"wall{s}", *prism(wall, 0.0))
    for s in range(sides):
        flange = [corner(r_out, s, 0.25), corner(r_flange, s, 0.25),
                  corner(r_flange, s + 1, 0.25), corner(r_out, s + 1, 0.25)]
        obj.add(f"flange{s}", *prism(flange, 0.0))
    obj.write("insulator_cap.obj", insulator_cap.__doc__)


def bowling_pin():
    """A ten-pin bowling pin, 15 in (38.1 cm) tall with a 4.766 in (12.1 cm) belly, after the
    regulation profile (radius against height, in inches, approximated), as a 16-sided solid of
    revolution in five convex pieces: the belly up to the neck, three frustums through the neck
    (where the surface is concave), and the head. The base is at z = 0."""
    inch = 2.54
    profile = [(0.0, 1.016), (0.75, 1.414), (2.25, 1.953), (3.375, 2.255), (4.5, 2.383),
               (5.875, 2.281), (7.25, 1.851), (8.625, 1.236), (9.375, 0.982), (10.0, 0.898),
               (10.875, 0.950), (11.75, 1.125), (12.5, 1.250), (13.5, 1.273), (14.25, 1.10),
               (14.75, 0.80), (15.0, 0.35)]
    profile = [(z * inch, r * inch) for z, r in profile]
    cuts = [0, 7, 8, 9, 10, 16]  # indices into profile where pieces meet
    obj = Obj()
    for p, (i, j) in enumerate(zip(cuts, cuts[1:])):
        part = profile[i:j + 1]
        check_concave(part)
        obj.add(f"piece{p}", *rings(part, 16))
    obj.write("bowling_pin.obj", bowling_pin.__doc__)


# Lower-case block letters on a grid of 1 cm cells: rectangles (x0, z0, x1, z1) that touch but
# never overlap, baseline at z = 0, x-height 5, ascenders to 7, descenders to -2. Each rectangle
# becomes a box 1 cm deep (y from -0.5 to 0.5), one convex piece.
GLYPHS = {
    "i": [(0, 0, 1, 5)],
    "l": [(0, 0, 1, 7)],
    "dot": [(0, 6, 1, 7)],
    "hyphen": [(0, 2, 3, 3)],
    "m": [(0, 0, 1, 5), (1, 4, 5, 5), (2, 0, 3, 4), (4, 0, 5, 4)],
    "n": [(0, 0, 1, 5), (1, 4, 4, 5), (3, 0, 4, 4)],
    "u": [(0, 1, 1, 5), (0, 0, 3, 1), (3, 0, 4, 5)],
    "p": [(0, -2, 1, 5), (1, 4, 4, 5), (3, 2, 4, 4), (1, 1, 4, 2)],
    "b": [(0, 0, 1, 7), (1, 4, 4, 5), (3, 1, 4, 4), (1, 0, 4, 1)],
    "d": [(3, 0, 4, 7), (0, 4, 3, 5), (0, 1, 1, 4), (0, 0, 3, 1)],
    "o": [(0, 4, 4, 5), (0, 0, 4, 1), (0, 1, 1, 4), (3, 1, 4, 4)],
    "a": [(0, 4, 3, 5), (3, 0, 4, 5), (0, 2, 3, 3), (0, 1, 1, 2), (0, 0, 3, 1)],
    "s": [(0, 4, 4, 5), (0, 3, 1, 4), (0, 2, 4, 3), (3, 1, 4, 2), (0, 0, 4, 1)],
    "e": [(0, 4, 4, 5), (0, 1, 1, 4), (1, 2, 4, 3), (3, 3, 4, 4), (0, 0, 4, 1)],
    "t": [(1, 1, 2, 7), (0, 5, 1, 6), (2, 5, 3, 6), (1, 0, 3, 1)],
}


def check_glyph(name, rects):
    for i, (a0, b0, a1, b1) in enumerate(rects):
        for c0, d0, c1, d1 in rects[i + 1:]:
            overlap = min(a1, c1) - max(a0, c0) > 0 and min(b1, d1) - max(b0, d0) > 0
            assert not overlap, f"glyph {name}: rectangles overlap"


def letters():
    for name, rects in GLYPHS.items():
        check_glyph(name, rects)
        obj = Obj()
        for k, (x0, z0, x1, z1) in enumerate(rects):
            obj.add(f"{name}{k}", *box(x0, x1, -0.5, 0.5, z0, z1))
        obj.write(f"letter_{name}.obj",
                  f"Block letter `{name}` for the exploding-text scene (Mirtich §7.1, Fig. 7.14):\n"
                  f"{len(rects)} box(es) on a 1 cm grid, 1 cm deep, baseline at z = 0.")


def main():
    dish()
    insulator_cap()
    bowling_pin()
    letters()


if __name__ == "__main__":
    main()
