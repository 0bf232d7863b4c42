"""Reference values for the collisions of `tests/collision_response.rs` whose K barely moves
the contact along one tangent: cases 0 and 1 for
`a_contact_held_on_a_ray_by_a_stiff_balance_is_finished_along_it`, case 2 for
`a_stick_correction_friction_cannot_supply_is_left_undone`.

Integrates a frictional collision (Mirtich Theorem 8: du/dp_z = K xi(theta), dW_z/dp_z = u_z) with
SciPy's LSODA, a stiff solver independent of the engine, through compression (u_z = 0) and
Stronge restitution (W_z = (1 - e^2) W_c). Cases 0 and 1 slide the whole way along a ray that a
stiff balance holds them on; case 2 slides, nearly stops and slides away. None passes exactly
through u_t = 0, where the equations are discontinuous. Radau agrees with case 0 to all digits
printed. Run: python3 near_null_tangent.py (SciPy 1.17).
"""

import numpy as np
from scipy.integrate import solve_ivp

CASES = [
    (
        [1.6548178258780117, -0.00042352812251681316, -0.11998468311713782,
         -0.00042352812251681316, 8.000519694264854e-7, 3.20246150949989e-5,
         -0.11998468311713782, 3.20246150949989e-5, 0.01797919683652602],
        [-0.00041665293509408023, 5.077603887180296e-6, -0.15449333317835642],
        0.7197666850272505,
        0.5677294995618999,
    ),
    (
        [1.422068432487138, -0.0012890891553617835, 0.3508337959806682,
         -0.0012890891553617835, 1.234780772428013e-6, -0.0003045654422263583,
         0.3508337959806682, -0.0003045654422263583, 0.5357984454022603],
        [-0.0012548090861022368, -0.00010696263431559901, -4.652095157751812],
        1.3107993307256895,
        0.8043202517852918,
    ),
    (
        [1.3388286862757357, -0.00038869830493474947, 0.8807283885180954,
         -0.00038869830493474947, 4.7222440047101104e-7, -0.0006134319322682005,
         0.8807283885180954, -0.0006134319322682005, 0.9425520616756112],
        [-0.000203253814036389, 2.9204173726093906e-6, -3.75931085476868],
        0.023274353245070656,
        0.5618773698134132,
    ),
]


def collide(columns, u0, mu, e):
    k = np.array(columns).reshape(3, 3).T  # column by column

    def rate(_p, y):
        u = y[:3]
        speed = np.hypot(u[0], u[1])
        xi = np.array([-mu * u[0] / speed, -mu * u[1] / speed, 1.0])
        return np.concatenate([k @ xi, [u[2]], xi[:2]])

    def settle(y0, p0, event):
        event.terminal, event.direction = True, 1
        run = solve_ivp(rate, [p0, 1e4], y0, method="LSODA", rtol=1e-11, atol=1e-15, events=event)
        return run.y[:, -1], run.t[-1]

    y, p = settle(np.array(list(u0) + [0.0, 0.0, 0.0]), 0.0, lambda _p, y: y[2])
    target = (1.0 - e * e) * y[3]
    y, p = settle(y, p, lambda _p, y: y[3] - target)
    return y[:3], np.array([y[4], y[5], p])


for case in CASES:
    u, p = collide(*case)
    print("u_f", [float(x) for x in u], "p", [float(x) for x in p])
