//! The joint primitives (kalra.md §2) and their minimal rows (kalra.md §5.3).
//!
//! A primitive is described in world coordinates at the assembly's initial pose (where the
//! anchor is, which way the axis points); building it fixes that geometry in each body's frame
//! as row templates, which are evaluated into [`Row`]s at every instant.

use crate::math::{Pose, Vec3, orthonormal_basis};

use super::curve::{self, Curve};
use super::path::Path;
use super::profile::Profile;
use super::rows::{self, Row, Side};

/// Handedness of a screw: right-handed screws advance along +axis when turned positively about
/// it (right-hand rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handedness {
    /// Turning positively about the axis advances along it.
    Right,
    /// Turning positively about the axis retreats along it.
    Left,
}

/// A joint or contact primitive between body A and body B (or the fixed world), with its
/// geometry in world coordinates at the initial pose. Axes and normals need not be unit length
/// but must not be zero.
#[derive(Clone, Debug, PartialEq)]
pub enum Primitive {
    /// Ball and socket: A's and B's points at `anchor` stay together (3 rows).
    Spherical { anchor: Vec3 },
    /// A point of A (at `point_a`) held to a point of B (at `point_b`); the two must coincide
    /// at the start (3 rows, kalra.md eq. 15).
    PointToPoint { point_a: Vec3, point_b: Vec3 },
    /// A's point at `point` fixed in space (B must be the world; 3 rows, eq. 14).
    FixedPoint { point: Vec3 },
    /// Hinge about `axis` through `anchor` (3 + 2 rows).
    Revolute { anchor: Vec3, axis: Vec3 },
    /// Slides along and turns about `axis` through `anchor` (2 + 2 rows).
    Cylindrical { anchor: Vec3, axis: Vec3 },
    /// Slides along `axis` only (2 + 3 rows).
    Prismatic { anchor: Vec3, axis: Vec3 },
    /// A's plane through `anchor` with `normal` slides and turns on B's (1 + 2 rows).
    Planar { anchor: Vec3, normal: Vec3 },
    /// Cylindrical, with the slide tied to the turn: `lead` length per turn (2 + 2 + 1 rows).
    Screw {
        anchor: Vec3,
        axis: Vec3,
        lead: f64,
        handedness: Handedness,
    },
    /// A's point at `point` stays on B's line through `origin` along `direction` (2 rows).
    PointOnLine {
        point: Vec3,
        origin: Vec3,
        direction: Vec3,
    },
    /// A's point stays on B's circle (centre, unit-less `normal`, radius) (1 + 1 rows).
    PointOnCircle {
        point: Vec3,
        center: Vec3,
        normal: Vec3,
        radius: f64,
    },
    /// A's point stays on B's plane through `origin` with `normal` (1 row).
    PointOnPlane {
        point: Vec3,
        origin: Vec3,
        normal: Vec3,
    },
    /// A's point stays on B's sphere (1 row).
    PointOnSphere {
        point: Vec3,
        center: Vec3,
        radius: f64,
    },
    /// A's point at `point` follows `path` in time (B must be the world; 3 rows, eq. 21).
    PointOnPath { point: Vec3, path: Path },
    /// A's axis stays parallel to B's, both along `axis` at the start (2 rows).
    Alignment { axis: Vec3 },
    /// A's point stays on B's helix about the axis through `center` along `axis`, of `radius`,
    /// advancing `lead` (a length) per turn with `handedness`; the helix passes through the
    /// point's angle and height about the axis (2 rows).
    PointOnHelix {
        point: Vec3,
        center: Vec3,
        axis: Vec3,
        radius: f64,
        lead: f64,
        handedness: Handedness,
    },
    /// A's point stays on B's polyline through `points` (2 rows: across the current segment).
    /// A corner is located inside the step that reaches it (`corners`, `step::advance`):
    /// there the point moves onto the next segment with its velocity projected onto it (a
    /// perfectly inelastic kink; the kinetic energy lost is counted as constraint work). The
    /// end segments continue as straight lines.
    PointOnPolyline { point: Vec3, points: Vec<Vec3> },
    /// A's point stays on B's natural cubic spline through `points` (chord-length knots,
    /// straight beyond the ends; 2 rows).
    PointOnSpline { point: Vec3, points: Vec<Vec3> },
    /// A's point stays on B's cylinder of `radius` about the axis through `origin` along `axis`
    /// (1 row).
    PointOnCylinder {
        point: Vec3,
        origin: Vec3,
        axis: Vec3,
        radius: f64,
    },
    /// A driver: A's rotation relative to B about `axis` (fixed in B) follows `θ(t)`
    /// (radians, from the initial pose, so θ(0) = 0; a polynomial, a harmonic or a table), a
    /// rheonomic row whose force is the torque that drives it. Use it with a joint that keeps
    /// A's axis along B's (revolute, cylindrical) (1 row).
    AngleDriver { axis: Vec3, angle: Profile },
    /// A driver: A's point at `anchor` slides along B's `axis` (fixed in B, through the
    /// anchor) by `s(t)` (a length, from the initial pose, so s(0) = 0; a polynomial, a
    /// harmonic or a table), a rheonomic row whose force is the one that drives it. Use it with
    /// a joint that keeps A's point on B's axis (prismatic, cylindrical) (1 row).
    SlideDriver {
        anchor: Vec3,
        axis: Vec3,
        position: Profile,
    },
}

impl Primitive {
    /// The primitive's name in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Spherical { .. } => "spherical",
            Self::PointToPoint { .. } => "point_to_point",
            Self::FixedPoint { .. } => "fixed_point",
            Self::Revolute { .. } => "revolute",
            Self::Cylindrical { .. } => "cylindrical",
            Self::Prismatic { .. } => "prismatic",
            Self::Planar { .. } => "planar",
            Self::Screw { .. } => "screw",
            Self::PointOnLine { .. } => "point_on_line",
            Self::PointOnCircle { .. } => "point_on_circle",
            Self::PointOnPlane { .. } => "point_on_plane",
            Self::PointOnSphere { .. } => "point_on_sphere",
            Self::PointOnPath { .. } => "point_on_path",
            Self::Alignment { .. } => "alignment",
            Self::PointOnHelix { .. } => "point_on_helix",
            Self::PointOnPolyline { .. } => "point_on_polyline",
            Self::PointOnSpline { .. } => "point_on_spline",
            Self::PointOnCylinder { .. } => "point_on_cylinder",
            Self::AngleDriver { .. } => "angle_driver",
            Self::SlideDriver { .. } => "slide_driver",
        }
    }

    /// Whether B must be the fixed world.
    pub(crate) fn needs_world(&self) -> bool {
        matches!(self, Self::FixedPoint { .. } | Self::PointOnPath { .. })
    }

    /// Why the geometry cannot make a joint, if it cannot (checked before building).
    pub(crate) fn check(&self) -> Result<(), String> {
        let finite = |name: &str, v: &Vec3| {
            if v.iter().all(|x| x.is_finite()) {
                Ok(())
            } else {
                Err(format!("`{name}` must be finite, found {v:?}"))
            }
        };
        let direction = |name: &str, v: &Vec3| {
            finite(name, v)?;
            if v.norm() > 1e-12 {
                Ok(())
            } else {
                Err(format!("`{name}` must not be zero"))
            }
        };
        let radius = |r: f64| {
            if r.is_finite() && r > 0.0 {
                Ok(())
            } else {
                Err(format!("`radius` must be a positive length, found {r}"))
            }
        };
        match self {
            Self::Spherical { anchor } => finite("anchor", anchor),
            Self::PointToPoint { point_a, point_b } => {
                finite("point_a", point_a)?;
                finite("point_b", point_b)
            }
            Self::FixedPoint { point } => finite("point", point),
            Self::Revolute { anchor, axis }
            | Self::Cylindrical { anchor, axis }
            | Self::Prismatic { anchor, axis } => {
                finite("anchor", anchor)?;
                direction("axis", axis)
            }
            Self::Planar { anchor, normal } => {
                finite("anchor", anchor)?;
                direction("normal", normal)
            }
            Self::Screw {
                anchor, axis, lead, ..
            } => {
                finite("anchor", anchor)?;
                direction("axis", axis)?;
                if lead.is_finite() && *lead > 0.0 {
                    Ok(())
                } else {
                    Err(format!(
                        "`lead` must be a positive length per turn, found {lead}"
                    ))
                }
            }
            Self::PointOnLine {
                point,
                origin,
                direction: d,
            } => {
                finite("point", point)?;
                finite("origin", origin)?;
                direction("direction", d)
            }
            Self::PointOnCircle {
                point,
                center,
                normal,
                radius: r,
            } => {
                finite("point", point)?;
                finite("center", center)?;
                direction("normal", normal)?;
                radius(*r)
            }
            Self::PointOnPlane {
                point,
                origin,
                normal,
            } => {
                finite("point", point)?;
                finite("origin", origin)?;
                direction("normal", normal)
            }
            Self::PointOnSphere {
                point,
                center,
                radius: r,
            } => {
                finite("point", point)?;
                finite("center", center)?;
                radius(*r)
            }
            Self::PointOnPath { point, path } => {
                finite("point", point)?;
                path.check()
            }
            Self::Alignment { axis } => direction("axis", axis),
            Self::PointOnHelix {
                point,
                center,
                axis,
                radius: r,
                lead,
                ..
            } => {
                finite("point", point)?;
                finite("center", center)?;
                direction("axis", axis)?;
                radius(*r)?;
                if !(lead.is_finite() && *lead > 0.0) {
                    return Err(format!(
                        "`lead` must be a positive length per turn, found {lead} (a helix of no lead is a circle: use point_on_circle)"
                    ));
                }
                let rel = point - center;
                let d = axis.normalize();
                if (rel - d * d.dot(&rel)).norm() <= 1e-12 * (1.0 + rel.norm()) {
                    return Err(
                        "`point` lies on the helix's axis, so no angle places the helix through it"
                            .into(),
                    );
                }
                Ok(())
            }
            Self::PointOnPolyline { point, points } => {
                finite("point", point)?;
                curve::check_points(points, true)
            }
            Self::PointOnSpline { point, points } => {
                finite("point", point)?;
                curve::check_points(points, false)
            }
            Self::PointOnCylinder {
                point,
                origin,
                axis,
                radius: r,
            } => {
                finite("point", point)?;
                finite("origin", origin)?;
                direction("axis", axis)?;
                radius(*r)
            }
            Self::AngleDriver { axis, angle } => {
                direction("axis", axis)?;
                angle.check("angle")
            }
            Self::SlideDriver {
                anchor,
                axis,
                position,
            } => {
                finite("anchor", anchor)?;
                direction("axis", axis)?;
                position.check("position")
            }
        }
    }

    /// The row templates, with the geometry fixed in A's frame (`pose_a`) and B's (`pose_b`,
    /// identity for the world).
    pub(crate) fn templates(&self, pose_a: &Pose, pose_b: &Pose) -> Vec<Template> {
        let in_a = |p: &Vec3| pose_a.inverse_transform_point(&(*p).into()).coords;
        let in_b = |p: &Vec3| pose_b.inverse_transform_point(&(*p).into()).coords;
        let dir_a = |d: &Vec3| pose_a.inverse_transform_vector(&d.normalize());
        let dir_b = |d: &Vec3| pose_b.inverse_transform_vector(&d.normalize());
        let along = |p: &Vec3, u: &Vec3, o: &Vec3| Template::Along {
            p_a: in_a(p),
            u_b: dir_b(u),
            o_b: in_b(o),
        };
        let perp = |d: &Vec3, u: &Vec3| Template::Perpendicular {
            d_a: dir_a(d),
            u_b: dir_b(u),
        };
        // Points together: three rows along B's frame axes (world axes at the start).
        let points = |p: &Vec3, o: &Vec3| -> Vec<Template> {
            [Vec3::x(), Vec3::y(), Vec3::z()]
                .iter()
                .map(|u| along(p, u, o))
                .collect()
        };
        // A point on B's line: two rows across it.
        let on_line = |p: &Vec3, o: &Vec3, d: &Vec3| -> Vec<Template> {
            let (t1, t2) = orthonormal_basis(&d.normalize());
            vec![along(p, &t1, o), along(p, &t2, o)]
        };
        // A's point on B's curve: two rows across it, from the curve's point nearest the point.
        let on_curve = |curve: Curve| -> Vec<Template> {
            let point = match self {
                Self::PointOnHelix { point, .. }
                | Self::PointOnPolyline { point, .. }
                | Self::PointOnSpline { point, .. } => *point,
                _ => Vec3::zeros(),
            };
            let u = curve.nearest(&in_b(&point));
            (0..2)
                .map(|k| Template::Curve {
                    p_a: in_a(&point),
                    curve: curve.clone(),
                    u,
                    k,
                })
                .collect()
        };
        // A's axis kept along B's: two rows.
        let aligned = |d: &Vec3| -> Vec<Template> {
            let (t1, t2) = orthonormal_basis(&d.normalize());
            vec![perp(d, &t1), perp(d, &t2)]
        };
        match self {
            Self::Spherical { anchor } => points(anchor, anchor),
            Self::PointToPoint { point_a, point_b } => points(point_a, point_b),
            Self::FixedPoint { point } => points(point, point),
            Self::Revolute { anchor, axis } => {
                let mut t = points(anchor, anchor);
                t.extend(aligned(axis));
                t
            }
            Self::Cylindrical { anchor, axis } => {
                let mut t = on_line(anchor, anchor, axis);
                t.extend(aligned(axis));
                t
            }
            Self::Prismatic { anchor, axis } => {
                let mut t = on_line(anchor, anchor, axis);
                t.extend(aligned(axis));
                // Rotation about the axis locked: A's first cross direction stays across B's
                // second (kalra.md §5.3: 2 + 3 rows).
                let (t1, t2) = orthonormal_basis(&axis.normalize());
                t.push(perp(&t1, &t2));
                t
            }
            Self::Planar { anchor, normal } => {
                let (t1, t2) = orthonormal_basis(&normal.normalize());
                vec![
                    along(anchor, normal, anchor),
                    perp(normal, &t1),
                    perp(normal, &t2),
                ]
            }
            Self::Screw {
                anchor,
                axis,
                lead,
                handedness,
            } => {
                let mut t = on_line(anchor, anchor, axis);
                t.extend(aligned(axis));
                let (t1, _) = orthonormal_basis(&axis.normalize());
                // h per radian from the lead per turn (kalra.md §2.1 c: the paper's pitch is
                // per turn, and its eq. 6 has no handedness).
                let h = lead / std::f64::consts::TAU
                    * match handedness {
                        Handedness::Right => 1.0,
                        Handedness::Left => -1.0,
                    };
                t.push(Template::Screw {
                    p_a: in_a(anchor),
                    o_b: in_b(anchor),
                    d_b: dir_b(axis),
                    e1_b: dir_b(&t1),
                    e1_a: dir_a(&t1),
                    h,
                    theta: 0.0,
                });
                t
            }
            Self::PointOnLine {
                point,
                origin,
                direction,
            } => on_line(point, origin, direction),
            Self::PointOnCircle {
                point,
                center,
                normal,
                radius,
            } => vec![
                along(point, normal, center),
                Template::Distance {
                    p_a: in_a(point),
                    o_b: in_b(center),
                    radius: *radius,
                },
            ],
            Self::PointOnPlane {
                point,
                origin,
                normal,
            } => vec![along(point, normal, origin)],
            Self::PointOnSphere {
                point,
                center,
                radius,
            } => vec![Template::Distance {
                p_a: in_a(point),
                o_b: in_b(center),
                radius: *radius,
            }],
            Self::PointOnPath { point, path } => [Vec3::x(), Vec3::y(), Vec3::z()]
                .iter()
                .map(|u| Template::Path {
                    p_a: in_a(point),
                    u: *u,
                    path: path.clone(),
                })
                .collect(),
            Self::Alignment { axis } => aligned(axis),
            Self::PointOnHelix {
                point,
                center,
                axis,
                radius,
                lead,
                handedness,
            } => {
                // u = 0 at the point's angle and height (kalra.md §2.1 c for the rise per
                // radian and the handedness, as for the screw).
                let d = axis.normalize();
                let rel = point - center;
                let start = (rel - d * d.dot(&rel)).normalize();
                let rise = lead / std::f64::consts::TAU
                    * match handedness {
                        Handedness::Right => 1.0,
                        Handedness::Left => -1.0,
                    };
                let helix = Curve::helix(center + d * d.dot(&rel), d, start, *radius, rise);
                on_curve(helix.mapped(in_b, dir_b))
            }
            Self::PointOnPolyline { points, .. } => on_curve(Curve::Polyline {
                points: points.iter().map(in_b).collect(),
            }),
            Self::PointOnSpline { points, .. } => {
                on_curve(Curve::spline(points.iter().map(in_b).collect()))
            }
            Self::PointOnCylinder {
                point,
                origin,
                axis,
                radius,
            } => vec![Template::Cylinder {
                p_a: in_a(point),
                o_b: in_b(origin),
                d_b: dir_b(axis),
                radius: *radius,
            }],
            Self::AngleDriver { axis, angle } => {
                let (t1, _) = orthonormal_basis(&axis.normalize());
                vec![Template::Driver {
                    d_b: dir_b(axis),
                    e1_b: dir_b(&t1),
                    e1_a: dir_a(&t1),
                    theta: 0.0,
                    angle: angle.clone(),
                }]
            }
            Self::SlideDriver {
                anchor,
                axis,
                position,
            } => vec![Template::Slide {
                p_a: in_a(anchor),
                u_b: dir_b(axis),
                o_b: in_b(anchor),
                position: position.clone(),
            }],
        }
    }
}

/// One row's geometry, fixed in its bodies' frames (`_a`: A's frame, `_b`: B's).
#[derive(Clone, Debug)]
pub(crate) enum Template {
    /// `u·(p_a − o)`.
    Along { p_a: Vec3, u_b: Vec3, o_b: Vec3 },
    /// `u·d`.
    Perpendicular { d_a: Vec3, u_b: Vec3 },
    /// `|p_a − o| = R`.
    Distance { p_a: Vec3, o_b: Vec3, radius: f64 },
    /// `d·(p_a − o) − h θ`, θ the turn of A's `e1` about B's `d` from B's `e1`, unwrapped
    /// from `theta` (the value at the end of the last step).
    Screw {
        p_a: Vec3,
        o_b: Vec3,
        d_b: Vec3,
        e1_b: Vec3,
        e1_a: Vec3,
        h: f64,
        theta: f64,
    },
    /// `u·(p_a − r(t))`, `u` a world axis.
    Path { p_a: Vec3, u: Vec3, path: Path },
    /// `n_k·(x − r(u))`: `x` A's point in B's frame, `r(u)` the closest point of B's curve
    /// (from `u`, the parameter at the end of the last step), `n_k` (k = 0, 1) the normals
    /// across the tangent there.
    Curve {
        p_a: Vec3,
        curve: Curve,
        u: f64,
        k: usize,
    },
    /// `θ − θ_d(t)`, θ the turn of A's `e1` about B's `d` from B's `e1`, unwrapped from
    /// `theta` (as for the screw), θ_d the profile `angle`.
    Driver {
        d_b: Vec3,
        e1_b: Vec3,
        e1_a: Vec3,
        theta: f64,
        angle: Profile,
    },
    /// `u·(p_a − o) − s(t)`, s the profile `position`.
    Slide {
        p_a: Vec3,
        u_b: Vec3,
        o_b: Vec3,
        position: Profile,
    },
    /// `(|q|² − R²) / 2R`, `q` the part of `p_a − o` across B's axis `d`.
    Cylinder {
        p_a: Vec3,
        o_b: Vec3,
        d_b: Vec3,
        radius: f64,
    },
}

/// A side's pose with its motion.
pub(crate) struct Frame<'p> {
    pub side: Side,
    pub pose: &'p Pose,
}

impl Template {
    /// The row now: A and B at their poses and velocities, at time t.
    pub fn row(&self, a: &Frame, b: &Frame, t: f64) -> Row {
        let pa = |p: &Vec3| a.pose.transform_point(&(*p).into()).coords;
        let pb = |p: &Vec3| b.pose.transform_point(&(*p).into()).coords;
        let zero = Vec3::zeros();
        match self {
            Self::Along { p_a, u_b, o_b } => rows::point_along(
                &a.side,
                &pa(p_a),
                &b.side,
                &(b.pose.rotation * u_b),
                &pb(o_b),
                &zero,
                &zero,
            ),
            Self::Perpendicular { d_a, u_b } => rows::perpendicular(
                &a.side,
                &(a.pose.rotation * d_a),
                &b.side,
                &(b.pose.rotation * u_b),
            ),
            Self::Distance { p_a, o_b, radius } => {
                rows::distance(&a.side, &pa(p_a), &b.side, &pb(o_b), *radius)
            }
            Self::Screw {
                p_a,
                o_b,
                d_b,
                e1_b,
                e1_a,
                h,
                theta,
            } => {
                let d = b.pose.rotation * d_b;
                let mut row =
                    rows::point_along(&a.side, &pa(p_a), &b.side, &d, &pb(o_b), &zero, &zero);
                let angle = Self::turn(
                    &(b.pose.rotation * e1_b),
                    &(a.pose.rotation * e1_a),
                    &d,
                    *theta,
                );
                rows::screw_angle(&mut row, &a.side, &b.side, &d, angle, *h);
                row
            }
            Self::Path { p_a, u, path } => {
                let (r, r_dot, r_ddot) = path.at(t);
                rows::point_along(&a.side, &pa(p_a), &b.side, u, &r, &r_dot, &r_ddot)
            }
            Self::Curve { p_a, curve, u, k } => {
                let p = pa(p_a);
                let x = b.pose.inverse_transform_point(&p.into()).coords;
                let (_, r, r1, r2) = curve.closest(&x, *u);
                let s2 = r1.norm_squared();
                let tangent = r1 / s2.sqrt();
                let (n1, n2) = orthonormal_basis(&tangent);
                let n = if *k == 0 { n1 } else { n2 };
                let e = x - r;
                // φ = n·e with the normals carried along the curve without twisting about it
                // (dn/du = −(n·t') t): then ∇φ = n and the Hessian is −(n·r'')/(|r'|² − e·r'')
                // t tᵀ (docs/sources.md, "Curves"); at e = 0 this is the curvature term
                // −(n·r'') u̇² kalra.md §2.2 i adds to eq. 17.
                let curvature = n.dot(&r2) / (s2 - e.dot(&r2));
                let tw = b.pose.rotation * tangent;
                rows::on_local_shape(
                    &a.side,
                    &p,
                    &b.side,
                    n.dot(&e),
                    &(b.pose.rotation * n),
                    |w| -curvature * tw.dot(w).powi(2),
                )
            }
            Self::Driver {
                d_b,
                e1_b,
                e1_a,
                theta,
                angle,
            } => {
                let d = b.pose.rotation * d_b;
                let now = Self::turn(
                    &(b.pose.rotation * e1_b),
                    &(a.pose.rotation * e1_a),
                    &d,
                    *theta,
                );
                rows::driven_angle(&a.side, &b.side, &d, now, angle.at(t))
            }
            Self::Slide {
                p_a,
                u_b,
                o_b,
                position,
            } => {
                let mut row = rows::point_along(
                    &a.side,
                    &pa(p_a),
                    &b.side,
                    &(b.pose.rotation * u_b),
                    &pb(o_b),
                    &zero,
                    &zero,
                );
                rows::drive(&mut row, position.at(t));
                row
            }
            Self::Cylinder {
                p_a,
                o_b,
                d_b,
                radius,
            } => {
                let p = pa(p_a);
                let d = b.pose.rotation * d_b;
                let rel = p - pb(o_b);
                let q = rel - d * d.dot(&rel);
                // f = (|P x|² − R²)/2R with P = 1 − d dᵀ: ∇f = P x / R, Hessian P / R.
                rows::on_local_shape(
                    &a.side,
                    &p,
                    &b.side,
                    (q.norm_squared() - radius * radius) / (2.0 * radius),
                    &(q / *radius),
                    |w| (w - d * d.dot(w)).norm_squared() / radius,
                )
            }
        }
    }

    /// The angle from `from` to `to` about `axis`, on the branch nearest `near`.
    fn turn(from: &Vec3, to: &Vec3, axis: &Vec3, near: f64) -> f64 {
        let raw = from.cross(to).dot(axis).atan2(from.dot(to));
        let tau = std::f64::consts::TAU;
        raw + tau * ((near - raw) / tau).round()
    }

    /// A polyline's segment, for its first row (`None` for every other row).
    pub fn polyline_segment(&self) -> Option<usize> {
        match self {
            Self::Curve {
                curve: curve @ Curve::Polyline { .. },
                u,
                k: 0,
                ..
            } => Some(curve.piece(*u)),
            _ => None,
        }
    }

    /// A curve row's parameter for A's point with A at `pose_a` and B at `pose_b`, found from
    /// the row's stored parameter (on a polyline: on the line of its stored segment).
    pub fn parameter_at(&self, pose_a: &Pose, pose_b: &Pose) -> Option<f64> {
        match self {
            Self::Curve { p_a, curve, u, .. } => {
                let p = pose_a.transform_point(&(*p_a).into());
                let x = pose_b.inverse_transform_point(&p).coords;
                Some(curve.closest(&x, *u).0)
            }
            _ => None,
        }
    }

    /// Keeps a screw's unwrapped angle, and a curve's parameter, at the end of a step; true if
    /// a polyline's point passed onto another segment.
    pub fn settle(&mut self, a: &Frame, b: &Frame) -> bool {
        if let Self::Curve { p_a, curve, u, .. } = self {
            let p = a.pose.transform_point(&(*p_a).into());
            let x = b.pose.inverse_transform_point(&p).coords;
            let before = curve.piece(*u);
            *u = curve.closest(&x, *u).0;
            return curve.piece(*u) != before;
        }
        if let Self::Screw {
            d_b,
            e1_b,
            e1_a,
            theta,
            ..
        }
        | Self::Driver {
            d_b,
            e1_b,
            e1_a,
            theta,
            ..
        } = self
        {
            let d = b.pose.rotation * *d_b;
            *theta = Self::turn(
                &(b.pose.rotation * *e1_b),
                &(a.pose.rotation * *e1_a),
                &d,
                *theta,
            );
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assembly::rows::motion;
    use crate::math::{Quat, pose};

    /// The curve and cylinder rows are the derivatives of their position functions, with B
    /// carrying the curve and both bodies moving: J u and the bias against central
    /// differences of φ along a rigid motion (constant v, ω), starting on the curve. For a
    /// curve φ_k = n_k·e uses normals carried along without twist; here they are carried by the
    /// least rotation from the tangent at the start (which agrees to third order).
    #[test]
    fn curve_and_cylinder_rows_are_derivatives_of_their_positions() {
        let ((xa, va, wa), (xb, vb, wb)) = (motion::A, motion::B);
        let (qa, qb) = (
            Quat::from_scaled_axis(Vec3::new(0.3, 0.5, -0.2)),
            Quat::from_scaled_axis(Vec3::new(-0.6, 0.1, 0.9)),
        );
        let at = |t: f64| {
            let pa = pose(xa + va * t, Quat::from_scaled_axis(wa * t) * qa);
            let pb = pose(xb + vb * t, Quat::from_scaled_axis(wb * t) * qb);
            (
                motion::side(0, motion::A, t),
                motion::side(1, motion::B, t),
                pa,
                pb,
            )
        };
        let p = Vec3::new(0.8, 0.1, -0.2);
        let c = Vec3::new(0.2, 0.7, 0.4);
        let axis = Vec3::new(0.3, -0.5, 0.8).normalize();
        let rel = p - c;
        let radius = (rel - axis * axis.dot(&rel)).norm();
        let knots = vec![
            Vec3::new(-0.5, 0.2, 0.0),
            Vec3::new(0.1, 0.6, -0.4),
            p,
            Vec3::new(1.3, -0.2, 0.3),
            Vec3::new(1.6, 0.5, 0.9),
        ];
        let primitives = [
            Primitive::PointOnHelix {
                point: p,
                center: c,
                axis,
                radius,
                lead: 0.7,
                handedness: Handedness::Left,
            },
            // Inside a segment (at a knot r''' jumps, and so would φ's third derivative).
            Primitive::PointOnSpline {
                point: Curve::spline(knots.clone()).eval(1.9).0,
                points: knots,
            },
            Primitive::PointOnCylinder {
                point: p,
                origin: c,
                axis,
                radius,
            },
        ];
        let velocities = [(va, wa), (vb, wb)];
        let (_, _, pa0, pb0) = at(0.0);
        for primitive in primitives {
            for template in primitive.templates(&pa0, &pb0) {
                // φ at time t, computed from the geometry.
                let phi = |t: f64| -> f64 {
                    let (_, _, pa, pb) = at(t);
                    match &template {
                        Template::Curve { p_a, curve, u, k } => {
                            let x = pb
                                .inverse_transform_point(&pa.transform_point(&(*p_a).into()))
                                .coords;
                            let (_, r, r1, _) = curve.closest(&x, *u);
                            let (_, _, t0, _) = curve.closest(&curve.eval(*u).0, *u);
                            let (n1, n2) = orthonormal_basis(&t0.normalize());
                            let carry = Quat::rotation_between(&t0, &r1).unwrap();
                            (carry * if *k == 0 { n1 } else { n2 }).dot(&(x - r))
                        }
                        Template::Cylinder {
                            p_a,
                            o_b,
                            d_b,
                            radius,
                        } => {
                            let x = pb
                                .inverse_transform_point(&pa.transform_point(&(*p_a).into()))
                                .coords;
                            let rel = x - o_b;
                            let q = rel - d_b * d_b.dot(&rel);
                            (q.norm_squared() - radius * radius) / (2.0 * radius)
                        }
                        _ => unreachable!(),
                    }
                };
                let (a, b, pa, pb) = at(0.0);
                let row = template.row(
                    &Frame { side: a, pose: &pa },
                    &Frame { side: b, pose: &pb },
                    0.0,
                );
                let h = 1e-4;
                let (p0, pp, pm) = (phi(0.0), phi(h), phi(-h));
                assert!(
                    (row.phi - p0).abs() < 1e-14,
                    "{}: φ {}",
                    primitive.name(),
                    row.phi
                );
                let phi_dot = (pp - pm) / (2.0 * h);
                let phi_ddot = (pp - 2.0 * p0 + pm) / (h * h);
                let ju = row.velocity(&velocities);
                assert!(
                    (phi_dot - ju).abs() < 1e-7,
                    "{}: {phi_dot} vs {ju}",
                    primitive.name()
                );
                assert!(
                    (phi_ddot - row.bias).abs() < 1e-5,
                    "{}: {phi_ddot} vs {}",
                    primitive.name(),
                    row.bias
                );
            }
        }
    }
}
