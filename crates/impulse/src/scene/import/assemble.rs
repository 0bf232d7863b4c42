//! A model tree placed at its reference configuration and turned into the scene's
//! descriptions: welded bodies merged into their moving ancestor, links with explicit mass
//! properties, joints by world anchor and axis.

use std::path::Path;
use std::sync::Arc;

use super::*;

/// Places `tree` in the world and writes the engine's descriptions.
pub(super) fn assemble(
    mut tree: ModelTree,
    path: &Path,
    options: &ModelOptions,
    diag: &mut Diagnostics,
) -> Option<Model> {
    let name = options.name.clone().unwrap_or_else(|| tree.name.clone());
    // The base.
    for body in tree.bodies.iter_mut().filter(|b| b.parent.is_none()) {
        let floating = matches!(&body.joint, Some(j) if j.kind == JointKind::Floating);
        match options.base {
            Base::Fixed if floating => body.joint = None,
            Base::Floating if body.joint.is_none() => {
                body.joint = Some(ModelJoint::new(
                    format!("{}_base", body.name),
                    JointKind::Floating,
                ));
            }
            _ => {}
        }
    }
    // World poses at the reference configuration.
    let n = tree.bodies.len();
    let mut world = Vec::with_capacity(n);
    for body in &tree.bodies {
        let parent = body.parent.map_or(options.placement, |p| world[p]);
        world.push(parent * body.pose);
    }
    // Which body carries each body's mass: itself if a joint moves it, else its parent's
    // carrier (`None`: the ground).
    let mut carrier: Vec<Option<usize>> = Vec::with_capacity(n);
    for (i, body) in tree.bodies.iter().enumerate() {
        carrier.push(match (&body.joint, body.parent) {
            (Some(_), _) => Some(i),
            (None, Some(p)) => carrier[p],
            (None, None) => None,
        });
    }
    let ground_name = {
        let root = tree
            .bodies
            .iter()
            .find(|b| b.parent.is_none() && b.joint.is_none());
        format!("{name}/{}", root.map_or("world", |b| b.name.as_str()))
    };

    // Mass properties and shapes of each carrier, in its own frame.
    let mut parts: Vec<Vec<MassProperties>> = vec![Vec::new(); n];
    let mut shapes: Vec<Vec<(PlacedShape, ShapeSource)>> = vec![Vec::new(); n];
    let mut ground: Vec<(PlacedShape, ShapeSource)> = Vec::new();
    for geom in &tree.world_geoms {
        if let Some(s) = make_shape(geom, &options.placement, diag) {
            ground.push(s);
        }
    }
    for (i, body) in tree.bodies.iter().enumerate() {
        let frame = match carrier[i] {
            Some(c) => world[c],
            None => Pose::identity(),
        };
        // This body's frame in its carrier's frame (the world for the ground).
        let relative = frame.inverse() * world[i];
        if let (Some(inertial), Some(c)) = (&body.inertial, carrier[i]) {
            parts[c].push(inertial.mass_properties().transformed(&relative));
        }
        for geom in &body.geoms {
            let placed = make_shape(geom, &relative, diag);
            match (placed, carrier[i]) {
                (Some(s), Some(c)) => {
                    if matches!(s.0.shape, Shape::HalfSpace) {
                        diag.error(
                            &geom.loc,
                            format!(
                                "a plane is unbounded, so only the world may carry one; body `{}` moves",
                                body.name
                            ),
                        );
                        continue;
                    }
                    shapes[c].push(s);
                }
                (Some(s), None) => ground.push(s),
                (None, _) => {}
            }
        }
    }

    // Links and joints.
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let mut from_origin = Vec::new();
    let mut link_sources = Vec::new();
    for (i, body) in tree.bodies.iter().enumerate() {
        let Some(joint) = &body.joint else { continue };
        let combined = MassProperties::combine(&parts[i]);
        if combined.mass <= 0.0 || combined.mass.is_nan() {
            diag.error(
                &body.loc,
                format!(
                    "body `{}` is moved by joint `{}` but has no mass: give it an inertial (mass, centre of mass, inertia){}",
                    body.name,
                    joint.name,
                    if tree.urdf { "" } else { " or geoms with volume" }
                ),
            );
            continue;
        }
        if let Err(e) = crate::dynamics::check_inertia(&combined.inertia) {
            diag.error(&body.loc, format!("body `{}`: {e}", body.name));
            continue;
        }
        let (placed, sources): (Vec<_>, Vec<_>) =
            std::mem::take(&mut shapes[i]).into_iter().unzip();
        links.push(BodyDesc {
            name: body.name.clone(),
            shapes: placed,
            point_masses: Vec::new(),
            mass: MassSpec::Explicit {
                mass: combined.mass,
                center_of_mass: combined.center_of_mass,
                inertia: combined.inertia,
            },
            pose: world[i],
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
            motion: MotionType::Dynamic,
            material: options.material,
            material_name: None,
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
        });
        link_sources.push(sources);
        let parent = match body.parent.and_then(|p| carrier[p]) {
            Some(c) => tree.bodies[c].name.clone(),
            None if !ground.is_empty() => ground_name.clone(),
            None => WORLD.to_string(),
        };
        let frame = world[i];
        let mut desc = JointDesc::new(
            joint.name.clone(),
            joint.kind,
            parent,
            body.name.clone(),
            (frame * Point::from(joint.anchor)).coords,
            frame.rotation * joint.axis,
        );
        desc.x_axis = joint.x_axis.map(|x| frame.rotation * x);
        let nv = joint.kind.nv();
        let mut passive = PassiveElements::none(nv);
        if joint.kind.has_scalar_coordinates() || joint.kind == JointKind::Spherical {
            passive.damping = vec![joint.damping; nv];
            passive.stiffness = vec![joint.stiffness; nv];
            passive.armature = vec![joint.armature; nv];
        }
        if joint.kind.has_scalar_coordinates() {
            passive.rest = vec![joint.rest; nv];
            if let Some((lo, hi)) = joint.limits {
                passive.limits = vec![(lo, hi); nv];
            }
        }
        desc.passive = passive;
        if joint.from_origin {
            from_origin.push(desc.name.clone());
        }
        joints.push(desc);
    }

    // Servos.
    let rate = 1.0 / tree.timestep.unwrap_or(DEFAULT_TIMESTEP);
    let mut servos = Vec::new();
    for a in &tree.actuators {
        match joints.iter().find(|j| j.name == a.joint) {
            Some(j) if j.kind.has_scalar_coordinates() => servos.push(Servo {
                joint: a.joint.clone(),
                kp: a.kp,
                kv: a.kv,
                max_force: a.max_force,
                rate,
            }),
            Some(j) => diag.warning(
                &a.loc,
                format!(
                    "joint `{}` is {}; servos drive revolute and prismatic joints, so this actuator is left out",
                    a.joint, j.kind
                ),
            ),
            None => diag.error(
                &a.loc,
                format!("no moving joint named `{}` in this model", a.joint),
            ),
        }
    }
    let controllers = servos
        .iter()
        .map(|s| {
            let mut pid = JointPid::pd(s.joint.clone(), s.kp, s.kv, 0.0, s.rate);
            pid.max_force = s.max_force;
            Box::new(pid) as Box<dyn crate::multibody::Controller>
        })
        .collect();

    let mut fixed_bodies = Vec::new();
    let mut fixed_sources = Vec::new();
    if !ground.is_empty() {
        let (placed, sources): (Vec<_>, Vec<_>) = ground.into_iter().unzip();
        let mut body = BodyDesc::new(ground_name, Shape::Sphere { radius: 1.0 });
        body.shapes = placed;
        body.motion = MotionType::Fixed;
        body.material = options.material;
        fixed_bodies.push(body);
        fixed_sources.push(sources);
    }
    let multibody = (!links.is_empty()).then(|| MultibodyDesc {
        name: name.clone(),
        links,
        joints,
        controllers,
    });
    Some(Model {
        name,
        path: path.to_path_buf(),
        multibody,
        fixed_bodies,
        gravity: tree.gravity,
        warnings: Vec::new(),
        sources: Sources {
            links: link_sources,
            fixed: fixed_sources,
        },
        servos,
        from_origin,
    })
}

/// The engine's shape for a geometry placed by `frame` (its body's frame in the carrier's).
pub(super) fn make_shape(
    geom: &Geom,
    frame: &Pose,
    diag: &mut Diagnostics,
) -> Option<(PlacedShape, ShapeSource)> {
    let (shape, source) = match &geom.shape {
        GeomShape::Sphere { radius } => (Shape::Sphere { radius: *radius }, ShapeSource::Primitive),
        GeomShape::Box { half_extents } => (
            Shape::Box {
                half_extents: *half_extents,
            },
            ShapeSource::Primitive,
        ),
        GeomShape::Cylinder {
            radius,
            half_height,
        } => (
            Shape::Cylinder {
                radius: *radius,
                half_height: *half_height,
            },
            ShapeSource::Primitive,
        ),
        GeomShape::Capsule {
            radius,
            half_height,
        } => (
            Shape::Capsule {
                radius: *radius,
                half_height: *half_height,
            },
            ShapeSource::Primitive,
        ),
        GeomShape::Ellipsoid { radii } => {
            (Shape::Ellipsoid { radii: *radii }, ShapeSource::Primitive)
        }
        GeomShape::Plane => (Shape::HalfSpace, ShapeSource::Primitive),
        GeomShape::Mesh { file, scale } => {
            let hull = mesh_hull(file, scale)
                .map_err(|e| diag.error(&geom.loc, e))
                .ok()?;
            (
                Shape::Convex(Arc::new(hull)),
                ShapeSource::Mesh {
                    file: file.clone(),
                    scale: *scale,
                },
            )
        }
    };
    if let Err(e) = shape.check() {
        diag.error(&geom.loc, format!("this {}: {e}", shape.kind()));
        return None;
    }
    Some((
        PlacedShape {
            shape,
            pose: frame * geom.pose,
            density: None,
        },
        source,
    ))
}
