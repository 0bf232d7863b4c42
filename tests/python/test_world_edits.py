"""Changes made to a running world from Python — applied forces and torques, gravity, contact
materials — against closed forms; the state arrays (one copy out of the engine); and the GIL
released while the engine works.

Every edit goes through an engine method that makes the event loop start afresh at the next
advance (`crates/impulse/src/world/edit.rs`), so a change made mid-run acts from that instant.
"""

import threading
import time
from pathlib import Path

import numpy as np
import pytest

import impulse

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "scenes"

# A 2 kg sphere of radius 0.5 m in zero gravity (SI): m = 2, I = (2/5) m r² = 0.2 about any
# axis through its centre.
FREE = """
[world]
gravity = [0, 0, 0]
units = "SI"
[[bodies]]
name = "ball"
mass = 2.0
shape = { type = "sphere", radius = 0.5 }
[[bodies]]
name = "anchor"
motion = "fixed"
shape = { type = "sphere", radius = 0.1 }
position = [0, 0, -100]
"""

# A 10 cm, 1 kg block resting on a long fixed table under 9.81 m/s² (SI).
TABLE = """
[world]
gravity = [0, 0, -9.81]
units = "SI"
[[bodies]]
name = "table"
motion = "fixed"
shape = { type = "box", size = [20, 4, 0.2] }
position = [0, 0, -0.1]
[[bodies]]
name = "block"
mass = 1.0
shape = { type = "box", size = [0.1, 0.1, 0.1] }
position = [0, 0, 0.05]
friction = 0.5
"""

# A 5 cm ball dropped from 1 m (its bottom) onto a fixed slab.
DROP = """
[world]
gravity = [0, 0, -9.81]
units = "SI"
[[bodies]]
name = "table"
motion = "fixed"
shape = { type = "box", size = [4, 4, 0.2] }
position = [0, 0, -0.1]
[[bodies]]
name = "ball"
mass = 1.0
shape = { type = "sphere", radius = 0.05 }
position = [0, 0, 1.05]
"""


# --- applied forces and torques --------------------------------------------------------------


def test_a_constant_force_moves_a_free_body_f_t2_over_2m():
    world = impulse.load(FREE)
    world.advance_to(0.5)
    assert np.array_equal(world.positions[0], [0.0, 0.0, 0.0])
    force = np.array([3.0, 0.0, -1.0])
    world.apply_force("ball", force)
    assert np.array_equal(world.applied_forces[0], force)
    assert np.array_equal(world.applied_torques[0], [0.0, 0.0, 0.0])
    world.advance_to(1.5)
    # x = F t² / (2m) over the 1 s since the force was applied (closed form; the flight's
    # rounding is ~1e-16 m here: 1e-12 is a wide bound).
    expected = force * 1.0**2 / (2 * 2.0)
    assert np.allclose(world.positions[0], expected, rtol=0, atol=1e-12)
    assert np.allclose(world.velocities[0], force / 2.0 * 1.0, rtol=0, atol=1e-12)
    # Held until changed: removed at t = 1.5, the ball then coasts at v = F t / m.
    world.apply_force("ball", [0.0, 0.0, 0.0])
    world.advance_to(2.5)
    assert np.allclose(world.positions[0], expected + force / 2.0 * 1.0, rtol=0, atol=1e-12)
    assert np.array_equal(world.applied_forces[0], [0.0, 0.0, 0.0])


def test_a_force_at_a_point_adds_its_moment_and_a_torque_spins_at_tau_over_i():
    world = impulse.load(FREE)
    # F = (2, 0, 0) at 0.5 m above the centre along y: moment r × F = (0, 0.5, 0) × (2, 0, 0)
    # = (0, 0, −1), held fixed in the world frame.
    world.apply_force(0, [2.0, 0.0, 0.0], point=[0.0, 0.5, 0.0])
    assert np.allclose(world.applied_torques[0], [0.0, 0.0, -1.0], rtol=0, atol=1e-15)
    world.advance_to(1.0)
    # A sphere's inertia is isotropic, so ω = τ t / I exactly: −1 · 1 / 0.2 = −5 rad/s (the
    # rotation's adaptive integrator, tolerance 1e-10 relative: 1e-9 bound); the centre
    # moves as under the same force at the centre: x = F t² / (2m) = 0.5 m.
    assert np.allclose(world.angular_velocities[0], [0.0, 0.0, -5.0], rtol=0, atol=1e-9)
    assert np.allclose(world.positions[0], [0.5, 0.0, 0.0], rtol=0, atol=1e-12)
    # apply_torque replaces the torque and keeps the force.
    world.apply_torque("ball", [0.4, 0.0, 0.0])
    assert np.array_equal(world.applied_forces[0], [2.0, 0.0, 0.0])
    world.advance_to(2.0)
    # Another second: ω_x = 0.4 / 0.2 = 2 rad/s; ω_z stays −5 (no torque about z now).
    assert np.allclose(world.angular_velocities[0], [2.0, 0.0, -5.0], rtol=0, atol=1e-9)


def test_bad_forces_raise():
    world = impulse.load(FREE)
    with pytest.raises(ValueError, match="fixed or kinematic"):
        world.apply_force("anchor", [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="finite force and torque"):
        world.apply_force("ball", [1.0, 0.0, float("nan")])
    with pytest.raises(ValueError, match="length 3"):
        world.apply_force("ball", [1.0, 0.0])
    with pytest.raises(KeyError, match="no body named `nothing`"):
        world.apply_torque("nothing", [0.0, 0.0, 1.0])
    # Nothing changed.
    assert np.array_equal(world.applied_forces, np.zeros((2, 3)))


# --- gravity ---------------------------------------------------------------------------------


def test_gravity_changed_mid_fall_bends_the_fall_from_then_on():
    world = impulse.load(DROP.replace("1.05", "100.05"))
    world.advance_to(1.0)
    z1, v1 = 100.05 - 0.5 * 9.81, -9.81  # free fall: z0 − g t²/2, −g t
    assert abs(world.positions[1, 2] - z1) < 1e-12 * 100
    world.gravity = [0.0, 0.0, -1.62]
    assert world.gravity.tolist() == [0.0, 0.0, -1.62]
    world.advance_to(2.0)
    # From t = 1 under the Moon's g: z = z1 + v1 t − g' t²/2 with t = 1 (closed form; 1e-12
    # of the 100 m scale).
    expected = z1 + v1 * 1.0 - 0.5 * 1.62 * 1.0**2
    assert abs(world.positions[1, 2] - expected) < 1e-10
    assert abs(world.velocities[1, 2] - (v1 - 1.62)) < 1e-12
    # The potential energy is measured with the new gravity: −m g·c.
    assert abs(world.energy()["potential"] - 1.62 * world.positions[1, 2]) < 1e-12 * 100
    with pytest.raises(ValueError, match="finite vector"):
        world.gravity = [0.0, 0.0, float("inf")]
    assert world.gravity.tolist() == [0.0, 0.0, -1.62]


def test_gravity_turned_up_wakes_a_sleeping_block_and_lifts_it():
    world = impulse.load(TABLE)
    world.advance_to(1.0)
    assert world.asleep.tolist() == [False, True]
    z0 = world.positions[1, 2]
    world.gravity = [0.0, 0.0, 2.0]
    world.advance_to(1.5)
    # Woken at rest, it rises at 2 m/s²: Δz = ½ a t² = 0.25 m after 0.5 s, v = 1 m/s
    # (closed form; nothing touches it once it leaves the table).
    assert not world.asleep[1]
    assert abs(world.positions[1, 2] - z0 - 0.25) < 1e-12
    assert np.allclose(world.velocities[1], [0.0, 0.0, 1.0], rtol=0, atol=1e-12)


def test_gravity_turned_off_lets_a_pendulum_spin_on_at_constant_speed():
    world = impulse.load(str(SCENES / "multibody/pendulum.toml"))
    name = world.link_names[0].split("/")[0]
    world.advance_to(0.3)
    v = world.joint_velocities(name).copy()
    kinetic = world.energy()["kinetic"]
    world.gravity = [0.0, 0.0, 0.0]
    world.advance_to(0.8)
    # One undamped revolute joint with nothing else acting: its speed and kinetic energy stay
    # as they were (to the integrator's tolerance, 1e-9 relative); the potential is zero.
    assert np.allclose(world.joint_velocities(name), v, rtol=1e-9, atol=0)
    assert abs(world.energy()["kinetic"] - kinetic) < 1e-9 * kinetic
    assert world.energy()["potential"] == 0.0


# --- contact materials -----------------------------------------------------------------------


def slide(world, v0):
    """Pushes the block resting on the table at v0 along x; returns how far it slides."""
    x0 = world.positions[1, 0]
    world.set_state("block", velocity=[v0, 0.0, 0.0])
    t = world.time
    while world.time < t + 3.0:
        world.advance_to(world.time + 0.01)
        if world.asleep[1]:
            break
    return world.positions[1, 0] - x0


@pytest.mark.parametrize("mu", [0.2, 0.5])
@pytest.mark.parametrize("how", ["pair", "body"])
def test_friction_changed_at_run_time_sets_the_slide_distance(mu, how):
    world = impulse.load(TABLE)
    # The scene's contact: the mean of the block's μ = 0.5 and the table's default 0.3.
    assert world.contact_material("block", "table")["friction"] == pytest.approx(0.4, abs=1e-15)
    world.advance_to(0.2)  # settled on the table
    if how == "pair":
        world.set_pair_material("block", "table", friction=mu)
    else:
        # The mean of the block's own and the table's 0.3 is μ.
        world.set_body_material("block", friction=2 * mu - 0.3)
    assert world.contact_material("block", "table")["friction"] == pytest.approx(mu, abs=1e-15)
    v0 = 2.0
    d = slide(world, v0)
    # Coulomb friction decelerates a sliding block at μg: it stops after v0²/(2μg) (closed
    # form). The resting contact is a train of microcollisions, whose friction acts only when
    # they strike: within 2 % (measured 0.4 % at μ = 0.2, 0.8 % at μ = 0.5).
    expected = v0**2 / (2 * mu * 9.81)
    assert abs(d - expected) < 0.02 * expected, (d, expected)


def test_restitution_changed_before_impact_sets_the_bounce_height():
    world = impulse.load(DROP)
    world.advance_to(0.1)  # falling, 0.95 m above the slab
    world.set_pair_material("ball", "table", friction=0.0, restitution=0.8)
    apex, rising = 0.0, False
    while world.time < 1.2:
        world.advance_to(world.time + 1e-3)
        rising = rising or world.velocities[1, 2] > 0
        if rising:
            apex = max(apex, world.positions[1, 2] - 0.05)
    # A head-on impact with restitution e rebounds at e·v, to e²·h = 0.64 m (closed form);
    # the 1 ms sampling of the apex and the collision envelope: within 0.5 % (measured 0.03 %).
    assert abs(apex - 0.64) < 0.005 * 0.64, apex


def test_bad_materials_raise():
    world = impulse.load(TABLE)
    with pytest.raises(ValueError, match="friction"):
        world.set_pair_material("block", "table", friction=-1.0)
    with pytest.raises(ValueError, match="restitution"):
        world.set_body_material("block", restitution=1.5)
    assert world.contact_material("block", "table") == {"friction": pytest.approx(0.4),
                                                        "restitution": 0.5}


# --- state arrays: one copy out of the engine ------------------------------------------------


def test_state_arrays_are_one_copy_equal_to_the_summarys_states():
    world = impulse.load(str(SCENES / "multibody/pendulum.toml"))
    result = world.run(0.5, 10.0)
    # The summary's final states are written by the engine's own report code: an
    # independent copy of the same numbers, which the arrays must equal exactly.
    final = {b["name"]: b for b in result["summary"]["bodies"]}
    arrays = {
        "positions": ("position", world.positions, world.link_positions),
        "quaternions": ("orientation", world.quaternions, world.link_quaternions),
        "velocities": ("velocity", world.velocities, world.link_velocities),
        "angular_velocities": ("angular_velocity", world.angular_velocities,
                               world.link_angular_velocities),
    }
    names = world.body_names + world.link_names
    for name, (key, bodies, links) in arrays.items():
        for array in (bodies, links):
            width = 4 if name == "quaternions" else 3
            assert array.dtype == np.float64 and array.ndim == 2 and array.shape[1] == width
            assert array.flags.c_contiguous and array.flags.writeable
            # One copy: the array views the buffer the numbers were gathered into (no
            # reshape or second copy in between).
            assert type(array.base).__name__ == "PySliceContainer", name
        stacked = np.vstack([bodies, links])
        expected = np.array([final[n][key] for n in names])
        assert np.array_equal(stacked, expected), name
        # The same as the run's last frame.
        assert np.array_equal(stacked, result[name][-1])
    # Each read is a fresh copy: writing into one changes neither the world nor later reads.
    p = world.positions
    p[:] = 0.0
    assert np.array_equal(world.positions, np.array([final[n]["position"]
                                                     for n in world.body_names]))
    for key in ("x", "t", "positions"):
        assert type(result[key].base).__name__ == "PySliceContainer", key


# --- the GIL ---------------------------------------------------------------------------------


@pytest.mark.parametrize("call", ["run", "advance_to", "step"])
def test_other_threads_run_while_the_engine_works(call):
    # The stack of ten under the constraint contact model: its first second is 2–3 s of
    # engine work (the landing, then the stack's contact forces at every evaluation; measured
    # 2.6 s in a release build on the 2-core machine).
    world = impulse.load(str(SCENES / "constraint/stack_of_ten.toml"))
    work = {
        "run": lambda: world.run(1.0, 30.0),
        "advance_to": lambda: world.advance_to(1.0),
        "step": lambda: world.step(1e-2, steps=100),
    }[call]
    done = threading.Event()
    span = {}

    def engine():
        span["start"] = time.perf_counter()
        work()
        span["end"] = time.perf_counter()
        done.set()

    thread = threading.Thread(target=engine)
    stamps = []
    thread.start()
    count = 0
    while not done.is_set():
        count += 1
        if count % 1000 == 0:
            stamps.append(time.perf_counter())
    thread.join()
    elapsed = span["end"] - span["start"]
    inside = [s for s in stamps if span["start"] <= s <= span["end"]]
    gaps = np.diff([span["start"], *inside, span["end"]])
    # The call took long enough to tell (measured 2–6 s on the loaded 2-core machine).
    assert elapsed > 0.3, elapsed
    # This thread kept counting all through it: with the GIL held it could not have counted
    # at all until the call returned (one gap as long as the call). Its longest pause is
    # under a quarter of the call (measured ~20 ms), and it counted thousands of times.
    assert gaps.max() < 0.25 * elapsed, (gaps.max(), elapsed)
    assert len(inside) * 1000 > 10_000, len(inside)
