#!/usr/bin/env bash
# Regenerates the pictures in this folder from the shipped scenes (runs and renders are
# deterministic, so the files come out the same).
set -euo pipefail
cd "$(dirname "$0")/../.."
impulse() { cargo run --quiet -p impulse-cli -- "$@"; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

impulse run scenes/free/dzhanibekov.toml --out "$out/dzhanibekov" --quiet
impulse render "$out/dzhanibekov" --time 4 --zoom 1.6 --frame run --out docs/images/dzhanibekov.png

impulse run scenes/free/tossed_parts.toml --out "$out/tossed_parts" --quiet
impulse plot "$out/tossed_parts" --out "$out/plots"
cp "$out/plots/energy.png" docs/images/tossed_parts-energy.png

impulse run scenes/hybrid/rover.toml --out "$out/rover" --quiet
impulse render "$out/rover" --sheet 4 --zoom 1.5 --frame run --width 640 --height 360 --out docs/images/rover.png

impulse run scenes/hybrid/creature_war.toml --duration 18 --out "$out/creature_war" --quiet
impulse render "$out/creature_war" --sheet 4 --elevation 45 --zoom 1.7 --frame run --width 640 --height 360 --out docs/images/creature_war.png

impulse poses meshes/parts/insulator_cap.obj --group --quiet --out "$out/insulator_cap"
cp "$out/insulator_cap/poses.png" docs/images/insulator_cap-poses.png
