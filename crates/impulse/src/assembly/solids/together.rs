//! The contacts of one instant answered together (issue 36): every contact that touches a
//! connected set of bodies — connected through joints or through contacts — is answered by one
//! solve of all its impulses, the joints' impulsive reactions included.
//!
//! The coupling of the contacts is the assembly's *Delassus* matrix `W` (3 × 3 blocks
//! `W_ij`: the change of the relative velocity at contact i per unit impulse pair at contact
//! j, joints answering — `Assembly::pair_collision_matrix`'s probes for every pair of
//! contacts). The impulses come in phases, each from the project's Lemke
//! (`lcp::lemke::solve_regularized`) on an LCP built here:
//!
//! 1. **Compression** (Poisson, Stronge–Mirtich's split of a collision): the inelastic
//!    impulses `v_N⁺ = u_N + (W P)_N ≥ 0 ⟂ P_N ≥ 0`, with Coulomb friction as a four-sided
//!    pyramid inscribed in the cone (`P_T = Σ βₖ dₖ`, `Σ βₖ ≤ μ P_N`, the slip opposed by
//!    the maximal-dissipation conditions `dₖᵀ v_T⁺ + λ ≥ 0 ⟂ βₖ ≥ 0`,
//!    `μ P_N − Σ βₖ ≥ 0 ⟂ λ ≥ 0`; Anitescu–Potra / Stewart–Trinkle), its first direction
//!    along the slip so that sliding friction is exact. By complementarity
//!    `ΔE = Pᵀv⁺ − ½ PᵀWP = −λ μ P_N − ½ PᵀWP ≤ 0`: the phase never adds energy.
//! 2. **Restitution** (Poisson's hypothesis): each normal impulse again times `e`, along the
//!    normal. Its energy is `e L + e² Q` with `L = Σ P_Nᵢ v_Nᵢ` (zero by complementarity) and
//!    `Q = ½ P_Nᵀ W_NN P_N`; frictionless, the two phases give `ΔE = −½(1 − e²) P_NᵀW_NN P_N
//!    ≤ 0` (the `e = 1` line of bodies keeps its energy exactly). With friction, or with
//!    restitution on only some contacts, `e` is lowered to the largest value that adds no
//!    energy (a quadratic in `e`).
//! 3. **Fix-up**: restitution at one contact can drive another into approach (a pushed
//!    neighbour); another compression phase answers it (it removes energy only). Rounds stop
//!    when no contact approaches faster than `APPROACH` of the group's largest relative speed,
//!    at most `ROUNDS` rounds (a compression leaves none approaching beyond Lemke's tolerance,
//!    so a second round is rare).
//! 4. **Rebound of microcollisions** (Mirtich §3.5, as the pairwise response does): contacts
//!    that approached slower than `√(2gε)` leave at least at the rebound speed
//!    (¼ `√(2gε)` `√cos` of the normal's angle to gravity), by a frictionless LCP in the normal
//!    impulses with that target (`v_N⁺ ≥ target ⟂ P_N ≥ 0`). This phase alone adds energy, the
//!    hop's `½ m v²` that keeps a resting body from sinking through the envelope — as much as
//!    the pairwise microcollisions add.
//!
//! A group of one contact is answered by the pairwise response (`respond_pair`: Mirtich's
//! integration of the collision, Stronge's law), so every lone contact is answered exactly as
//! before; if Lemke finds no solution for a group (it always does frictionless, where `W` is
//! positive semi-definite), its contacts are answered pairwise.

use nalgebra::{DMatrix, DVector};

use crate::collision::Closest;
use crate::collision::manifold::manifold;
use crate::lcp::lemke::{LemkeOptions, Outcome, solve_regularized};
use crate::math::{Mat3, Vec3, orthonormal_basis};

use super::super::{Assembly, AssemblyError};
use super::{AssemblyWithSolids, MANIFOLD_TOLERANCE, RIGID, SolidHit};

/// A contact approaches when its normal velocity is below −`APPROACH` times the largest
/// relative speed at its group's contacts (rounding of the solve left behind is not an
/// approach; Lemke's own tolerance is 1e-9).
const APPROACH: f64 = 1e-8;
/// Below this relative speed (m/s) nothing approaches (a group at rest).
const SPEED_FLOOR: f64 = 1e-12;
/// Compression rounds at most per group and instant.
const ROUNDS: usize = 4;
/// Friction directions per contact (the pyramid's sides).
const SIDES: usize = 4;

/// A pair in contact now: where and along which normal it is answered.
#[derive(Clone, Debug)]
pub(super) struct Touch {
    pair: usize,
    a: Option<usize>,
    b: Option<usize>,
    point: Vec3,
    normal: Vec3,
}

impl AssemblyWithSolids {
    /// Pair `p` if it is in contact (within the envelope and at its level, as
    /// `respond_pair` asks): the point is the centroid of the approaching points of its
    /// manifold (the fastest approaching point if the centroid does not approach), or of
    /// all of them if none approaches.
    fn touch(&mut self, p: usize) -> Option<Touch> {
        let (i, k) = self.pairs[p];
        let (pose_i, pose_k) = (self.pose(i), self.pose(k));
        let c: Closest = self.closest_at(p, &pose_i, &pose_k)?;
        if !self.in_contact(p, c.distance) {
            return None;
        }
        let envelope = self.settings.envelope;
        let asm = &self.assembly;
        let (part_i, part_k) = (
            &self.models[i].parts[c.parts.0],
            &self.models[k].parts[c.parts.1],
        );
        let points: Vec<Vec3> = manifold(
            &part_i.convex,
            &(pose_i * part_i.pose),
            &part_k.convex,
            &(pose_k * part_k.pose),
            &c,
            MANIFOLD_TOLERANCE * envelope,
        )
        .iter()
        .map(|q| q.coords)
        .collect();
        let (a, b) = (self.solids[i].body, self.solids[k].body);
        let n = c.normal;
        let approach = |q: &Vec3| relative(asm, a, b, q).dot(&n);
        let centroid = |qs: &[Vec3]| qs.iter().sum::<Vec3>() / qs.len() as f64;
        let closing: Vec<Vec3> = points
            .iter()
            .copied()
            .filter(|q| approach(q) < 0.0)
            .collect();
        let point = if closing.is_empty() {
            if points.is_empty() {
                c.contact_point().coords
            } else {
                centroid(&points)
            }
        } else {
            let middle = centroid(&closing);
            if approach(&middle) < 0.0 {
                middle
            } else {
                closing
                    .iter()
                    .copied()
                    .min_by(|x, y| approach(x).total_cmp(&approach(y)))
                    .unwrap_or(middle)
            }
        };
        Some(Touch {
            pair: p,
            a,
            b,
            point,
            normal: n,
        })
    }

    /// Answers every group of contacts with an approaching contact (among the pairs `near`
    /// flags: the broad phase's); true if any impulse was applied. `inelastic`: restitution 0 and no microcollision rebound (after
    /// `ELASTIC_SWEEPS` sweeps).
    pub(super) fn respond_together(
        &mut self,
        near: &[bool],
        inelastic: bool,
    ) -> Result<bool, AssemblyError> {
        let touches: Vec<Touch> = (0..self.pairs.len())
            .filter(|&p| near[p])
            .filter_map(|p| self.touch(p))
            .collect();
        let mut any = false;
        for group in self.groups(&touches) {
            let members: Vec<Touch> = group.iter().map(|&t| touches[t].clone()).collect();
            if members.len() == 1 {
                // A lone contact: the pairwise response, exactly as before.
                any |= self.respond_pair(members[0].pair, inelastic)?;
                continue;
            }
            let speeds: Vec<Vec3> = members
                .iter()
                .map(|t| relative(&self.assembly, t.a, t.b, &t.point))
                .collect();
            if !approaching(&members, &speeds) {
                continue;
            }
            any |= self.solve_group(&members, inelastic)?;
        }
        Ok(any)
    }

    /// The touches grouped by the connected sets of bodies they touch (through joints and
    /// through the touches themselves; a fixed solid connects nothing), in the order of each
    /// group's first touch.
    fn groups(&self, touches: &[Touch]) -> Vec<Vec<usize>> {
        let mut parent: Vec<usize> = (0..self.assembly.bodies.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let join = |parent: &mut Vec<usize>, x: usize, y: usize| {
            let (rx, ry) = (root(parent, x), root(parent, y));
            if rx != ry {
                parent[rx.max(ry)] = rx.min(ry);
            }
        };
        for j in &self.assembly.joints {
            if let Some(b) = j.b {
                join(&mut parent, j.a, b);
            }
        }
        for t in touches {
            if let (Some(a), Some(b)) = (t.a, t.b) {
                join(&mut parent, a, b);
            }
        }
        let mut keys: Vec<usize> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, t) in touches.iter().enumerate() {
            let Some(body) = t.a.or(t.b) else { continue };
            let key = root(&mut parent, body);
            match keys.iter().position(|&k| k == key) {
                Some(g) => groups[g].push(i),
                None => {
                    keys.push(key);
                    groups.push(vec![i]);
                }
            }
        }
        groups
    }

    /// Answers one group of touches together (the phases of the module comment); true if
    /// any impulse was applied.
    fn solve_group(&mut self, touches: &[Touch], inelastic: bool) -> Result<bool, AssemblyError> {
        let all = self.assembly.delassus(touches)?;
        // A point the joints hold along its normal takes no impulse there (as pairwise).
        let keep: Vec<usize> = (0..touches.len())
            .filter(|&i| {
                let t = &touches[i];
                let scale = [t.a, t.b]
                    .iter()
                    .flatten()
                    .map(|&b| 1.0 / self.assembly.bodies[b].mass())
                    .fold(0.0, f64::max);
                let n = t.normal;
                n.dot(&(all[i * touches.len() + i] * n)) > RIGID * scale
            })
            .collect();
        let n = touches.len();
        let w: Vec<Mat3> = keep
            .iter()
            .flat_map(|&i| keep.iter().map(move |&j| (i, j)))
            .map(|(i, j)| all[i * n + j])
            .collect();
        let touches: Vec<Touch> = keep.iter().map(|&i| touches[i].clone()).collect();
        self.solve_kept(&touches, &w, inelastic)
    }

    /// The phases of the module comment for `touches` with Delassus blocks `w`.
    fn solve_kept(
        &mut self,
        touches: &[Touch],
        w: &[Mat3],
        inelastic: bool,
    ) -> Result<bool, AssemblyError> {
        let n = touches.len();
        let speeds = |asm: &Assembly| -> Vec<Vec3> {
            touches
                .iter()
                .map(|t| relative(asm, t.a, t.b, &t.point))
                .collect()
        };
        let u0 = speeds(&self.assembly);
        if n == 0 || !approaching(touches, &u0) {
            return Ok(false);
        }
        let s = self.settings;
        let g = self.assembly.settings().gravity;
        // Microcollisions (Mirtich §3.5) as the pairwise response takes them.
        let threshold = if g.norm() > 0.0 && !inelastic {
            (2.0 * g.norm() * s.envelope).sqrt()
        } else {
            0.0
        };
        let micro: Vec<bool> = touches
            .iter()
            .zip(&u0)
            .map(|(t, u)| {
                let un = t.normal.dot(u);
                un < 0.0 && -un < threshold
            })
            .collect();
        let collision = touches
            .iter()
            .zip(&u0)
            .zip(&micro)
            .any(|((t, u), &m)| t.normal.dot(u) < 0.0 && !m);
        // Each touch's material (its two solids' mean, `AssemblyWithSolids::contact_material`).
        let materials: Vec<_> = touches
            .iter()
            .map(|t| {
                let (i, k) = self.pairs[t.pair];
                self.contact_material(i, k)
            })
            .collect();
        let friction: Vec<f64> = materials.iter().map(|m| m.friction).collect();
        // The largest restitution e, and each touch's share of it (1 where all are equal).
        let e = if collision && !inelastic {
            materials.iter().map(|m| m.restitution).fold(0.0, f64::max)
        } else {
            0.0
        };
        let share: Vec<f64> = materials
            .iter()
            .map(|m| if e > 0.0 { m.restitution / e } else { 0.0 })
            .collect();
        let mut total = vec![Vec3::zeros(); n];
        let add = |total: &mut Vec<Vec3>, p: &[Vec3]| {
            for (t, q) in total.iter_mut().zip(p) {
                *t += q;
            }
        };
        // 1. Compression.
        let energy = self.assembly.kinetic_energy();
        let Some(compression) = compress(touches, w, &u0, &friction) else {
            return self.pairwise(touches, inelastic);
        };
        self.assembly.apply_touch_impulses(touches, &compression)?;
        add(&mut total, &compression);
        // 2. Restitution (Poisson), lowered if it would add energy.
        if e > 0.0 {
            let loss = (self.assembly.kinetic_energy() - energy).min(0.0);
            // Poisson restitution e_k P_N,k at each touch: e times its share of e.
            let pn: Vec<f64> = touches
                .iter()
                .zip(&compression)
                .zip(&share)
                .map(|((t, p), &r)| r * t.normal.dot(p))
                .collect();
            let after = speeds(&self.assembly);
            let linear: f64 = (0..n)
                .map(|i| pn[i] * touches[i].normal.dot(&after[i]))
                .sum();
            let mut quadratic = 0.0;
            for i in 0..n {
                for j in 0..n {
                    let (ni, nj) = (touches[i].normal, touches[j].normal);
                    quadratic += 0.5 * pn[i] * pn[j] * ni.dot(&(w[i * n + j] * nj));
                }
            }
            let gain = |x: f64| loss + x * linear + x * x * quadratic;
            let scale = if gain(e) <= 0.0 || quadratic <= 0.0 {
                e
            } else {
                let root = (-linear + (linear * linear - 4.0 * quadratic * loss).sqrt())
                    / (2.0 * quadratic);
                root.clamp(0.0, e)
            };
            let restitution: Vec<Vec3> = touches
                .iter()
                .zip(&pn)
                .map(|(t, &p)| t.normal * (scale * p))
                .collect();
            self.assembly.apply_touch_impulses(touches, &restitution)?;
            add(&mut total, &restitution);
        }
        // 3. Fix-up rounds: a compression for any contact driven into approach.
        for _ in 0..ROUNDS {
            let now = speeds(&self.assembly);
            if !approaching(touches, &now) {
                break;
            }
            let Some(more) = compress(touches, w, &now, &friction) else {
                break;
            };
            self.assembly.apply_touch_impulses(touches, &more)?;
            add(&mut total, &more);
        }
        // 4. The microcollisions' rebound.
        if micro.iter().any(|&m| m) {
            let targets: Vec<f64> = touches
                .iter()
                .zip(&micro)
                .map(|(t, &m)| {
                    if m {
                        let closing = (g.dot(&t.normal) / g.norm()).abs();
                        0.25 * threshold * closing.sqrt()
                    } else {
                        0.0
                    }
                })
                .collect();
            let now = speeds(&self.assembly);
            if let Some(lift) = rebound(touches, w, &now, &targets) {
                self.assembly.apply_touch_impulses(touches, &lift)?;
                add(&mut total, &lift);
            }
        }
        let time = self.time();
        for (t, (p, m)) in touches.iter().zip(total.iter().zip(&micro)) {
            if *p != Vec3::zeros() {
                self.hits.push(SolidHit {
                    time,
                    solids: self.pairs[t.pair],
                    point: t.point,
                    normal: t.normal,
                    impulse: *p,
                    micro: *m,
                });
            }
        }
        Ok(true)
    }

    /// The fallback when Lemke finds no solution: each approaching pair answered alone.
    fn pairwise(&mut self, touches: &[Touch], inelastic: bool) -> Result<bool, AssemblyError> {
        let mut any = false;
        for t in touches {
            any |= self.respond_pair(t.pair, inelastic)?;
        }
        Ok(any)
    }
}

/// `v_a − v_b` at `point` (a fixed side moves with nothing).
fn relative(asm: &Assembly, a: Option<usize>, b: Option<usize>, point: &Vec3) -> Vec3 {
    let v =
        |body: Option<usize>| body.map_or(Vec3::zeros(), |i| asm.bodies[i].point_velocity(point));
    v(a) - v(b)
}

/// Whether any touch approaches beyond rounding (`APPROACH`, `SPEED_FLOOR`).
fn approaching(touches: &[Touch], speeds: &[Vec3]) -> bool {
    let largest = speeds.iter().map(|u| u.norm()).fold(0.0, f64::max);
    let tolerance = APPROACH * largest + SPEED_FLOOR;
    touches
        .iter()
        .zip(speeds)
        .any(|(t, u)| t.normal.dot(u) < -tolerance)
}

impl Assembly {
    /// The Delassus blocks of `touches` (row-major, `W_ij` = change of the relative velocity
    /// at touch i per unit impulse pair at touch j, world), by unit impulses through the
    /// joints' impulsive solve, symmetrised (`W = G M̃ Gᵀ` is symmetric).
    fn delassus(&self, touches: &[Touch]) -> Result<Vec<Mat3>, AssemblyError> {
        // A group of bodies that move on their own is probed alone (see
        // `Assembly::pair_collision_matrix`).
        let bodies: Vec<usize> = touches.iter().flat_map(|t| [t.a, t.b]).flatten().collect();
        let Some((alone, keep)) = self.alone(&bodies) else {
            return self.probe_delassus(touches);
        };
        let local = |x: Option<usize>| x.and_then(|x| keep.binary_search(&x).ok());
        let touches: Vec<Touch> = touches
            .iter()
            .map(|t| Touch {
                a: local(t.a),
                b: local(t.b),
                ..t.clone()
            })
            .collect();
        alone.probe_delassus(&touches)
    }

    /// [`Assembly::delassus`] by unit impulses on copies of this assembly.
    fn probe_delassus(&self, touches: &[Touch]) -> Result<Vec<Mat3>, AssemblyError> {
        let n = touches.len();
        let mut base = self.clone();
        base.project_velocities()?;
        let u0: Vec<Vec3> = touches
            .iter()
            .map(|t| relative(&base, t.a, t.b, &t.point))
            .collect();
        let mut w = vec![Mat3::zeros(); n * n];
        for (j, tj) in touches.iter().enumerate() {
            for axis in 0..3 {
                let mut probe = self.clone();
                probe.apply_pair_impulse(tj.a, tj.b, &tj.point, &Vec3::ith(axis, 1.0))?;
                for (i, ti) in touches.iter().enumerate() {
                    let du = relative(&probe, ti.a, ti.b, &ti.point) - u0[i];
                    w[i * n + j].set_column(axis, &du);
                }
            }
        }
        for i in 0..n {
            for j in i..n {
                let s = (w[i * n + j] + w[j * n + i].transpose()) * 0.5;
                w[i * n + j] = s;
                w[j * n + i] = s.transpose();
            }
        }
        Ok(w)
    }

    /// Applies `impulses` (on A at each touch, world; B takes the opposite) at once; the
    /// joints answer all of them in one impulsive solve (it is linear).
    fn apply_touch_impulses(
        &mut self,
        touches: &[Touch],
        impulses: &[Vec3],
    ) -> Result<(), AssemblyError> {
        for (t, p) in touches.iter().zip(impulses) {
            for (body, q) in [(t.a, *p), (t.b, -p)] {
                if let Some(body) = body {
                    let s = &mut self.bodies[body].state;
                    s.momentum += q;
                    s.angular_momentum += (t.point - s.position).cross(&q);
                }
            }
        }
        self.project_velocities()
    }
}

/// Solves the LCP `w = M z + q ≥ 0 ⟂ z ≥ 0` by the project's Lemke (regularised retry).
fn lemke(m: &DMatrix<f64>, q: &DVector<f64>) -> Option<DVector<f64>> {
    match solve_regularized(m, q, None, &LemkeOptions::default()) {
        Ok(Outcome::Solution(s)) => Some(s.z),
        _ => None,
    }
}

/// The compression phase: the inelastic impulses (on A, world) with pyramid friction, for
/// relative velocities `u` (module comment, phase 1); `None` if Lemke finds no solution.
fn compress(touches: &[Touch], w: &[Mat3], u: &[Vec3], mu: &[f64]) -> Option<Vec<Vec3>> {
    let n = touches.len();
    // Frictionless when every touch is; otherwise each touch has its pyramid (a touch with
    // μ = 0 then gets β = 0 from its own λ row).
    let frictionless = mu.iter().all(|&m| m == 0.0);
    // Per touch: the impulse directions (normal, then the pyramid's sides) and the offset of
    // its unknowns (P_N, β₁…β₄, λ with friction; P_N alone without).
    let directions: Vec<Vec<Vec3>> = touches
        .iter()
        .zip(u)
        .map(|(t, v)| {
            let normal = t.normal;
            if frictionless {
                return vec![normal];
            }
            let slip = v - normal * normal.dot(v);
            let t1 = if slip.norm() > 1e-12 * v.norm() && slip.norm() > 0.0 {
                slip.normalize()
            } else {
                orthonormal_basis(&normal).0
            };
            let t2 = normal.cross(&t1);
            vec![normal, t1, t2, -t1, -t2]
        })
        .collect();
    let width = if frictionless { 1 } else { SIDES + 2 };
    let size = n * width;
    let mut m = DMatrix::zeros(size, size);
    let mut q = DVector::zeros(size);
    for i in 0..n {
        for (r, a) in directions[i].iter().enumerate() {
            let row = i * width + r;
            q[row] = a.dot(&u[i]);
            for j in 0..n {
                let block = w[i * n + j];
                for (c, b) in directions[j].iter().enumerate() {
                    m[(row, j * width + c)] = a.dot(&(block * b));
                }
            }
        }
        if !frictionless {
            let lambda = i * width + SIDES + 1;
            for k in 1..=SIDES {
                m[(i * width + k, lambda)] = 1.0;
                m[(lambda, i * width + k)] = -1.0;
            }
            m[(lambda, i * width)] = mu[i];
        }
    }
    let z = lemke(&m, &q)?;
    Some(
        (0..n)
            .map(|i| {
                directions[i]
                    .iter()
                    .enumerate()
                    .map(|(c, d)| d * z[i * width + c])
                    .sum()
            })
            .collect(),
    )
}

/// The rebound phase: frictionless normal impulses that leave each touch separating at
/// least at its target (`v_N⁺ ≥ target ⟂ P_N ≥ 0`), from relative velocities `u`; `None` if
/// none is needed or Lemke finds no solution.
fn rebound(touches: &[Touch], w: &[Mat3], u: &[Vec3], targets: &[f64]) -> Option<Vec<Vec3>> {
    let n = touches.len();
    let q = DVector::from_fn(n, |i, _| touches[i].normal.dot(&u[i]) - targets[i]);
    if q.iter().all(|&x| x >= 0.0) {
        return None;
    }
    let m = DMatrix::from_fn(n, n, |i, j| {
        touches[i].normal.dot(&(w[i * n + j] * touches[j].normal))
    });
    let z = lemke(&m, &q)?;
    Some((0..n).map(|i| touches[i].normal * z[i]).collect())
}
