#!/usr/bin/env python3
"""Writes exploding_text.toml (Mirtich §7.1, Fig. 7.14; digest S12): the letters of
"impulse-based simulation" flying apart inside a closed box, gravity off.

Run from this directory: python3 exploding_text.py > exploding_text.toml
"""
import math
import random

# Glyph widths on the 1 cm grid of meshes/generate.py (GLYPHS), and which mesh each is.
WIDTH = {"i": 1, "l": 1, "m": 5, "n": 4, "u": 4, "p": 4, "b": 4, "d": 4, "o": 4, "a": 4,
         "s": 4, "e": 4, "t": 3, "-": 3}
MESH = {c: f"letter_{'hyphen' if c == '-' else c}.obj" for c in WIDTH}
# Glyph heights (z range) for the bounding box used to aim the explosion.
Z_RANGE = {"p": (-2, 5), "b": (0, 7), "d": (0, 7), "l": (0, 7), "t": (0, 7), "-": (2, 3)}
LINES = [("impulse-based", 3.0), ("simulation", -8.0)]  # text and baseline z
HALF = 40.0  # inner half-size of the box (cm)
WALL = 2.0  # wall thickness (cm)
SEED = 11


def main():
    rng = random.Random(SEED)
    bodies = []
    for text, baseline in LINES:
        width = sum(WIDTH[c] for c in text) + (len(text) - 1)
        x = -width / 2
        counts = {}
        for c in text:
            counts[c] = counts.get(c, 0) + 1
            name = f"{'hyphen' if c == '-' else c} {counts[c]} ({text})"
            z0, z1 = Z_RANGE.get(c, (0, 5))
            centre = (x + WIDTH[c] / 2, 0.0, baseline + (z0 + z1) / 2)
            bodies.append((name, MESH[c], (x, 0.0, baseline), centre))
            if c == "i":
                # The dot: its own body, 1 cm above the stem (the mesh is at z 6..7).
                bodies.append((f"dot {counts[c]} ({text})", "letter_dot.obj", (x, 0.0, baseline),
                               (x + 0.5, 0.0, baseline + 6.5)))
            x += WIDTH[c] + 1
    print(HEADER.strip())
    print()
    for name, mesh, position, centre in bodies:
        # Outward from the middle of the text, plus a random part.
        out = [c / 10.0 * SPEED_OUT for c in centre]
        v = [o + rng.uniform(-SPEED_RANDOM, SPEED_RANDOM) for o in out]
        w = [rng.uniform(-SPIN, SPIN) for _ in range(3)]
        fmt = lambda xs: "[" + ", ".join(f"{x:.2f}" for x in xs) + "]"
        print("[[bodies]]")
        print(f'name = "{name}"')
        print('material = "plastic"')
        print(f'shape = {{ type = "mesh", file = "meshes/{mesh}", pieces = "objects" }}')
        print("density = 1.0")
        print(f"position = {fmt(position)}")
        print(f"velocity = {fmt(v)}")
        print(f"angular_velocity = {fmt(w)}")
        print()


SPEED_OUT = 25.0  # cm/s per 10 cm from the middle of the text
SPEED_RANDOM = 30.0  # cm/s, each component
SPIN = 6.0  # rad/s, each component

HEADER = f'''
# Exploding text (Mirtich §7.1, Fig. 7.14; Table 7.1: 4.0 s simulated; digest S12). Units: cm, g, s.
# Written by exploding_text.py (edit that, not this).
#
# The letters of "impulse-based simulation" (22 letters, a hyphen and 3 i-dots: 26 bodies, many
# non-convex) are given random velocities inside a closed box with gravity off, and fly apart,
# colliding with each other and the walls: a collision-detection stress test.
#
# Not given in the thesis (chosen):
# - block letters on a 1 cm grid, 1 cm deep (meshes/letter_*.obj, from meshes/generate.py:
#   one convex box per stroke), x-height 5 cm; letters 1 cm apart, "impulse-based" on a
#   baseline at z = 3 above "simulation" at z = -8, centred on x = 0;
# - density 1 g/cm³ (plastic);
# - letter-letter and letter-wall friction 0.3, restitution 0.6;
# - ε_c = 0.01 cm (1/100 of a stroke's width);
# - the box: inner cube of half-size {HALF:g} cm about the origin, walls {WALL:g} cm thick, one fixed
#   body of six boxes;
# - velocities: {SPEED_OUT:g} cm/s outward per 10 cm of the letter's middle from the origin, plus
#   a uniform random {SPEED_RANDOM:g} cm/s per component; angular velocities uniform random in
#   ±{SPIN:g} rad/s per component (Python random, seed {SEED}).

[world]
name = "exploding text"
contact_model = "impulse"  # the thesis's impulse paradigm alone (Table 7.1)
gravity = [0, 0, 0]
units = "cgs"                 # cm, g, s (no gravity to tell by)
duration = 4.0
output_rate = 100
collision_epsilon = 0.01

[materials.plastic]
friction = 0.3
restitution = 0.6

[[bodies]]
name = "box"
motion = "fixed"
material = "plastic"
shapes = [
  {{ type = "box", size = [{2*HALF+2*WALL:g}, {2*HALF+2*WALL:g}, {WALL:g}], position = [0, 0, {-HALF-WALL/2:g}] }},
  {{ type = "box", size = [{2*HALF+2*WALL:g}, {2*HALF+2*WALL:g}, {WALL:g}], position = [0, 0, {HALF+WALL/2:g}] }},
  {{ type = "box", size = [{WALL:g}, {2*HALF:g}, {2*HALF:g}], position = [{-HALF-WALL/2:g}, 0, 0] }},
  {{ type = "box", size = [{WALL:g}, {2*HALF:g}, {2*HALF:g}], position = [{HALF+WALL/2:g}, 0, 0] }},
  {{ type = "box", size = [{2*HALF:g}, {WALL:g}, {2*HALF:g}], position = [0, {-HALF-WALL/2:g}, 0] }},
  {{ type = "box", size = [{2*HALF:g}, {WALL:g}, {2*HALF:g}], position = [0, {HALF+WALL/2:g}, 0] }},
]
'''

if __name__ == "__main__":
    main()
