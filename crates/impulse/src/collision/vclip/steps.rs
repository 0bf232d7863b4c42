//! One V-Clip step for each pair of feature kinds (vertex–vertex, vertex–edge, vertex–face,
//! edge–edge, edge–face; the others by symmetry): check each feature's closest point against
//! the other's Voronoi region, and either settle or move to a neighbouring feature (Mirtich
//! 1998, §4).

use super::{
    Clip, Feature, Side, Step, Target, clip_and_check, derivative, most_violated,
    plane_rounding, segment_segment, slope_to_plane,
};
use crate::math::Point;

pub(super) fn swap(step: Step) -> Step {
    match step {
        Step::Continue(x, y) => Step::Continue(y, x),
        other => other,
    }
}

pub(super) fn vertex_vertex(p: &Side, v: u32, q: &Side, w: u32) -> Step {
    let v_in_q = p.to_other * p.vertex(v);
    if let Some(n) = most_violated(&v_in_q, q.vertex_planes(w)) {
        return Step::Continue(Feature::Vertex(v), n);
    }
    let w_in_p = q.to_other * q.vertex(w);
    if let Some(n) = most_violated(&w_in_p, p.vertex_planes(v)) {
        return Step::Continue(n, Feature::Vertex(w));
    }
    Step::Done
}

pub(super) fn vertex_edge(p: &Side, v: u32, q: &Side, e: u32) -> Step {
    // The vertex against the edge's region: end planes first, then side planes.
    let v_in_q = p.to_other * p.vertex(v);
    if let Some(n) = most_violated(&v_in_q, q.edge_vertex_planes(e).into_iter()) {
        return Step::Continue(Feature::Vertex(v), n);
    }
    if let Some(n) = most_violated(&v_in_q, q.edge_face_planes(e).into_iter()) {
        return Step::Continue(Feature::Vertex(v), n);
    }
    // The edge against the vertex's region.
    let (t, h) = q.edge_in_other(e);
    let target = Target::Point(p.vertex(v));
    let (_, update) = clip_and_check(Clip::whole(), &t, &h, || p.vertex_planes(v), &target);
    match update {
        Some(n) => Step::Continue(n, Feature::Edge(e)),
        None => Step::Done,
    }
}

pub(super) fn vertex_face(p: &Side, v: u32, q: &Side, f: u32) -> Step {
    let v_in_q = p.to_other * p.vertex(v);
    if let Some(n) = most_violated(&v_in_q, q.face_side_planes(f)) {
        return Step::Continue(Feature::Vertex(v), n);
    }
    let plane = q.face_plane(f);
    let d = plane.signed(&v_in_q);
    if d > 0.0 {
        // Above the face: done unless an edge at the vertex leads closer to the face (its
        // projection then lies in the vertex's region: Theorem 2). Edges parallel to the face,
        // to rounding, do not lead closer.
        for h in p.poly.vertex_half_edges(v) {
            let w_in_q = p.to_other * p.vertex(p.head(h));
            if derivative(&Target::Plane(plane), &v_in_q, &(w_in_q - v_in_q)) < 0.0 {
                return Step::Continue(p.edge(h), Feature::Face(f));
            }
        }
        return Step::Done;
    }
    // On the face's plane to rounding counts as on it: touching when no edge at the vertex
    // goes down into the other polyhedron, penetrating when one does. A body placed exactly
    // on a face has its corners there, and which side rounding puts each one must not decide
    // (issue 41, item 2: a cube placed on a tilted slab was sent to the penetration search,
    // whose direction at zero depth is noise).
    if d > -plane_rounding(&plane, &v_in_q) {
        let into = p.poly.vertex_half_edges(v).any(|h| {
            let w_in_q = p.to_other * p.vertex(p.head(h));
            slope_to_plane(&plane, &(w_in_q - v_in_q)) < 0.0
        });
        return if into { Step::Penetration } else { Step::Done };
    }
    // On or below the face's plane, inside its prism: either the vertex is inside the other
    // polyhedron, or this is a local minimum and another face is closer (V-Clip's search).
    // A vertex on another face's plane to rounding is on that face (see above).
    let mut best = (f64::NEG_INFINITY, f);
    for g in 0..q.poly.faces().len() as u32 {
        let plane = q.face_plane(g);
        let s = plane.signed(&v_in_q) + plane_rounding(&plane, &v_in_q);
        if s > best.0 {
            best = (s, g);
        }
    }
    if best.0 <= 0.0 {
        Step::Penetration
    } else {
        Step::Continue(Feature::Vertex(v), Feature::Face(best.1))
    }
}

pub(super) fn edge_edge(p: &Side, e1: u32, q: &Side, e2: u32) -> Step {
    // Edge 2 against edge 1's region: end planes, then side planes.
    let (t2, h2) = q.edge_in_other(e2);
    let line1 = Target::Line(p.vertex(p.tail(e1)), p.direction(e1));
    let (clip, update) =
        clip_and_check(Clip::whole(), &t2, &h2, || p.edge_vertex_planes(e1), &line1);
    if let Some(n) = update {
        return Step::Continue(n, Feature::Edge(e2));
    }
    let (_, update) = clip_and_check(clip, &t2, &h2, || p.edge_face_planes(e1), &line1);
    if let Some(n) = update {
        return Step::Continue(n, Feature::Edge(e2));
    }
    // Edge 1 against edge 2's region.
    let (t1, h1) = p.edge_in_other(e1);
    let line2 = Target::Line(q.vertex(q.tail(e2)), q.direction(e2));
    let (clip, update) =
        clip_and_check(Clip::whole(), &t1, &h1, || q.edge_vertex_planes(e2), &line2);
    if let Some(n) = update {
        return Step::Continue(Feature::Edge(e1), n);
    }
    let (_, update) = clip_and_check(clip, &t1, &h1, || q.edge_face_planes(e2), &line2);
    if let Some(n) = update {
        return Step::Continue(Feature::Edge(e1), n);
    }
    Step::Done
}

pub(super) fn edge_face(p: &Side, e: u32, q: &Side, f: u32) -> Step {
    let (t, h) = p.edge_in_other(e);
    let clip = Clip::whole().against(&t, &h, q.face_side_planes(f));
    let Clip::Inside {
        lo,
        hi,
        lo_neighbour,
        hi_neighbour,
    } = clip
    else {
        // The edge does not pass over the face: move to the face's boundary feature closest
        // to the edge.
        return Step::Continue(Feature::Edge(e), closest_boundary_feature(q, f, &t, &h));
    };
    let plane = q.face_plane(f);
    let u = h - t;
    let (d_lo, d_hi) = (plane.signed(&(t + u * lo)), plane.signed(&(t + u * hi)));
    if (d_lo < 0.0 && d_hi > 0.0) || (d_lo > 0.0 && d_hi < 0.0) {
        return Step::Penetration;
    }
    // Derivative of the distance to the face's plane along the edge (same sign all along).
    let reference = if d_lo != 0.0 { d_lo } else { d_hi };
    let slope = if reference == 0.0 {
        0.0
    } else {
        let at = if d_lo != 0.0 { t + u * lo } else { t + u * hi };
        derivative(&Target::Plane(plane), &at, &u)
    };
    let tail = Feature::Vertex(p.tail(e));
    let head = Feature::Vertex(p.head(e));
    // Edge–face is never a resting state: the distance is smallest (or, for an edge parallel to
    // the face, no larger) at one end of the part over the face, so move there — to the face's
    // boundary feature that clipped that end, or to the edge's own end vertex.
    if slope >= 0.0 {
        match lo_neighbour {
            Some(n) => Step::Continue(Feature::Edge(e), n),
            None => Step::Continue(tail, Feature::Face(f)),
        }
    } else {
        match hi_neighbour {
            Some(n) => Step::Continue(Feature::Edge(e), n),
            None => Step::Continue(head, Feature::Face(f)),
        }
    }
}

/// The edge or vertex on face `f`'s boundary closest to the segment `t–h` (in `q`'s frame).
fn closest_boundary_feature(q: &Side, f: u32, t: &Point, h: &Point) -> Feature {
    let mut best = (f64::INFINITY, Feature::Face(f));
    for half in q.poly.face_half_edges(f) {
        let a = q.vertex(q.tail(half));
        let b = q.vertex(q.head(half));
        let (s, _, distance) = segment_segment(&a, &b, t, h);
        let feature = if s <= 0.0 {
            Feature::Vertex(q.tail(half))
        } else if s >= 1.0 {
            Feature::Vertex(q.head(half))
        } else {
            q.edge(half)
        };
        if distance < best.0 {
            best = (distance, feature);
        }
    }
    best.1
}
