//! Polyline corners passed inside a step. A point held on a polyline is held on the line of
//! its current segment (`Template::Curve`); a step that carried it past a corner would leave it
//! on that line's extension, off the curve, until the step's end. `step::advance` finds such a
//! step, locates the instant the point reaches the corner (as it locates a piston's switch:
//! regula falsi over trial steps from the step's start), takes the step up to there, where the
//! point passes onto the next segment with its inelastic kink, and takes the rest of the step.

use crate::math::Pose;

use super::Assembly;

/// A polyline point: its joint, its first row's index, and the segment it is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OnSegment {
    joint: usize,
    row: usize,
    segment: usize,
}

/// A corner a point passed in a step: the point (as at the step's start) and the direction it
/// left its segment (forward: past the segment's far end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Passed {
    at: OnSegment,
    forward: bool,
}

impl Assembly {
    /// Whether any joint holds a point on a polyline.
    pub(crate) fn has_polylines(&self) -> bool {
        !self.polyline_points().is_empty()
    }

    /// Every polyline point with its segment now.
    fn polyline_points(&self) -> Vec<OnSegment> {
        let mut out = Vec::new();
        for (joint, j) in self.joints.iter().enumerate() {
            for (row, t) in j.templates.iter().enumerate() {
                if let Some(segment) = t.polyline_segment() {
                    out.push(OnSegment {
                        joint,
                        row,
                        segment,
                    });
                }
            }
        }
        out
    }

    /// The parameter of point `p` (as it is in `self`) with the bodies where they are in `at`.
    fn parameter_in(&self, p: OnSegment, at: &Assembly) -> f64 {
        let joint = &self.joints[p.joint];
        let (_, poses) = at.frames(&at.states());
        let world = Pose::identity();
        let pose_b = joint.b.map(|b| &poses[b]).unwrap_or(&world);
        joint.templates[p.row]
            .parameter_at(&poses[joint.a], pose_b)
            .unwrap_or_default()
    }
}

/// The corners passed in the step from `before` to `after` (points whose segment changed).
pub(crate) fn passed(before: &Assembly, after: &Assembly) -> Vec<Passed> {
    before
        .polyline_points()
        .into_iter()
        .zip(after.polyline_points())
        .filter(|(b, a)| b.segment != a.segment)
        .map(|(b, a)| Passed {
            at: b,
            forward: a.segment > b.segment,
        })
        .collect()
}

/// How far (in the segment's parameter, a fraction of its length) point `c.at` is past the
/// corner it passed, with the bodies where they are in `at`: negative before it, zero there.
pub(crate) fn excess(before: &Assembly, c: Passed, at: &Assembly) -> f64 {
    let u = before.parameter_in(c.at, at);
    if c.forward {
        u - (c.at.segment + 1) as f64
    } else {
        c.at.segment as f64 - u
    }
}
