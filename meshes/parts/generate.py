#!/usr/bin/env python3
"""Regenerates the parts of `impulse poses` (see README.md here). Lengths in cm.

Run from the repository root: python3 meshes/parts/generate.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from generate import box, revolve, write_obj  # noqa: E402


def revolved(profile_clockwise, segments):
    # `revolve` wants the (r, z) loop counter-clockwise; these are written clockwise
    # (across the top, down the outside, back along the bottom).
    return revolve(list(reversed(profile_clockwise)), segments)


def blocks(path, pieces, comment):
    """Boxes stacked face to face, one OBJ object each."""
    vertices, objects = [], []
    for name, (x0, x1, y0, y1, z0, z1) in pieces:
        v, f = box(x0, x1, y0, y1, z0, z1, base=len(vertices))
        vertices += v
        objects.append((name, f))
    write_obj(path, vertices, [f for _, fs in objects for f in fs], objects=objects, comment=comment)


def main():
    v, f = box(-1, 1, -1, 1, -1, 1)
    write_obj(os.path.join(HERE, "cube.obj"), v, f, comment="Cube of side 2 cm centred at the origin.")
    v, f = box(-0.5, 0.5, -1, 1, -1.5, 1.5)
    write_obj(os.path.join(HERE, "box_1x2x3.obj"), v, f,
              comment="Box of 1 x 2 x 3 cm centred at the origin (digest V16).")
    # Obtuse triangular prism: cross-section A(0,0), B(1,0), C(3,1) in x-z, 2 cm deep in y. Its
    # centroid (4/3, 1/3) lies beyond the edge at B of the face AB, so that face topples.
    xz = [(0, 0), (1, 0), (3, 1)]
    v = [(x, y, z) for y in (-1, 1) for (x, z) in xz]
    f = [[0, 1, 2], [3, 5, 4], [0, 3, 4, 1], [1, 4, 5, 2], [2, 5, 3, 0]]
    write_obj(os.path.join(HERE, "wedge.obj"), v, f,
              comment="Obtuse wedge (cm): triangle (0,0), (1,0), (3,1) in x-z, extruded 2 cm along y.\n"
                      "Its bottom face (z = 0) is unstable: the centre of mass is beyond its edge at x = 1.")
    v, f = revolved([(0, 1.0), (1.0, 1.0), (1.0, -1.0), (0, -1.0)], 32)
    write_obj(os.path.join(HERE, "coin_thick.obj"), v, f,
              comment="Thick coin (cm): a 32-sided prism of diameter 2 and thickness 2 (aspect ratio 1).")
    v, f = revolved([(0, 0.5), (1.0, 0.5), (1.0, -0.5), (0, -0.5)], 32)
    write_obj(os.path.join(HERE, "coin_half.obj"), v, f,
              comment="Thick coin (cm): a 32-sided prism of diameter 2 and thickness 1 (aspect ratio 1/2).")
    # Coins of the two aspect ratios of the Stand-up Maths three-sided-coin experiment, which are
    # also the fair ratios of Yong & Mahadevan's two limits (docs/poses.md): thickness d/sqrt(8)
    # (a coin dropped without bouncing from a random orientation lands on its side 1/3 of the
    # time) and d/sqrt(3) (a coin flipped about a diameter, likewise). 64, 256 and 1024 sides: a
    # coin that bounces needs the finer ones (a 64-sided prism cannot roll; see docs/poses.md).
    d = 2.0
    for name, h, what in [("coin_root8", d / 8 ** 0.5, "d/sqrt(8) = 0.70711"),
                          ("coin_root3", d / 3 ** 0.5, "d/sqrt(3) = 1.15470")]:
        for sides, suffix in [(64, ""), (256, "_256"), (1024, "_1024")]:
            v, f = revolved([(0, h / 2), (d / 2, h / 2), (d / 2, -h / 2), (0, -h / 2)], sides)
            write_obj(os.path.join(HERE, name + suffix + ".obj"), v, f,
                      comment="Thick coin (cm): a %d-sided prism of diameter 2 and thickness %s." % (sides, what))
    # The thesis's four parts (Fig. 7.31); their dimensions are not given, so these are invented.
    v, f = revolved([(0, 2.0), (1.0, 2.0), (1.15, 1.8), (1.2, 0.0), (0.95, 0.0), (0.9, 1.6), (0, 1.6)], 24)
    write_obj(os.path.join(HERE, "insulator_cap.obj"), v, f,
              comment="Insulator cap (cm, invented): a cup of outer radius 1.2, height 2 and wall 0.25, open\n"
                      "at z = 0, 24 segments (its hull has 50 faces).")
    v, f = revolved([(0, 1.3), (0.9, 1.3), (0.9, 0.8), (0.4, 0.8), (0.4, 0.0), (0, 0.0)], 24)
    write_obj(os.path.join(HERE, "button_round.obj"), v, f,
              comment="Large white push-button (cm, invented): a round cap of radius 0.9 and height 0.5 on a\n"
                      "stem of radius 0.4 and length 0.8, 24 segments (its hull has 50 faces).")
    blocks(os.path.join(HERE, "button_rect.obj"),
           [("cap", (-1.0, 1.0, -0.6, 0.6, 0.8, 1.3)), ("stem", (-0.3, 0.3, -0.3, 0.3, 0.0, 0.8))],
           "Rectangular push-button (cm, invented): a 2 x 1.2 x 0.5 cap on a 0.6 x 0.6 x 0.8 stem.")
    blocks(os.path.join(HERE, "button_square.obj"),
           [("cap", (-0.75, 0.75, -0.75, 0.75, 0.9, 1.5)), ("stem", (-0.3, 0.3, -0.3, 0.3, 0.0, 0.9)),
            ("tab", (0.3, 0.6, -0.15, 0.15, 0.0, 0.3))],
           "Square push-button (cm, invented): a 1.5 x 1.5 x 0.6 cap on a 0.6 x 0.6 x 0.9 stem with a\n"
           "0.3 x 0.3 x 0.3 latch tab at the stem's foot.")


if __name__ == "__main__":
    main()
