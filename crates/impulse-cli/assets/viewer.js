// impulse view: plays back a recorded run with three.js (the global THREE).
//
// The recording is the JSON in #impulse-data, written by `impulse view` (src/view.rs): bodies
// with their shapes in the model frame, frame times, and per body the model frame's pose at each
// frame (x, y, z, qw, qx, qy, qz), plus collision events. World z is up.
//
// Tests drive the page through window.impulseViewer (bodyCount, seek, time, ...).
(function () {
  'use strict';

  const $ = (id) => document.getElementById(id);

  function fail(message) {
    const box = $('message');
    box.textContent = message;
    box.hidden = false;
    window.impulseViewer = { ready: false, error: message };
  }

  try {
    start();
  } catch (e) {
    // Never a blank page: say what went wrong, and still report it on the console.
    fail('The viewer stopped: ' + (e && e.message ? e.message : e));
    throw e;
  }

  function start() {
    let data;
    try {
      data = JSON.parse($('impulse-data').textContent);
    } catch (e) {
      fail('The recording inside this page cannot be read: ' + e.message);
      return;
    }
    if (typeof THREE === 'undefined') {
      fail('three.js did not load: the page is incomplete.');
      return;
    }
    let renderer;
    try {
      renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    } catch (e) {
      fail('This browser cannot draw 3-D graphics (WebGL): ' + e.message);
      return;
    }

    const times = data.times;
    const frames = times.length;
    const t0 = times[0];
    const tEnd = times[frames - 1];
    const R = data.bounds.radius;
    const center = new THREE.Vector3().fromArray(data.bounds.center);

    // Playback state.
    let now = t0;
    let playing = false;
    let last = null; // time stamp of the previous animation frame while playing
    let markersShown = 0;
    const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();

    // ---- Scene, lights, camera ----
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0x2a2f37);
    scene.add(new THREE.HemisphereLight(0xdde6f0, 0x4a4238, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 2.0);
    scene.add(sun);
    scene.add(sun.target);

    const FOV = 35; // vertical field of view, degrees (as `impulse render`)
    const camera = new THREE.PerspectiveCamera(FOV, 1, R / 200, R * 200);
    camera.up.set(0, 0, 1);
    const orbit = { target: center.clone(), azimuth: 0, elevation: 0, distance: 1 };

    function resetCamera() {
      orbit.target.copy(center);
      orbit.azimuth = THREE.MathUtils.degToRad(-60);
      orbit.elevation = THREE.MathUtils.degToRad(25);
      const half = THREE.MathUtils.degToRad(FOV / 2);
      const halfMin = Math.min(half, Math.atan(Math.tan(half) * camera.aspect));
      orbit.distance = R / Math.sin(halfMin);
    }

    function placeCamera() {
      const c = Math.cos(orbit.elevation);
      const dir = new THREE.Vector3(
        c * Math.cos(orbit.azimuth), c * Math.sin(orbit.azimuth), Math.sin(orbit.elevation));
      camera.position.copy(orbit.target).addScaledVector(dir, orbit.distance);
      camera.lookAt(orbit.target);
      // The light comes from above, beside the viewer.
      const side = new THREE.Vector3().crossVectors(dir, camera.up).normalize();
      sun.position.copy(orbit.target)
        .addScaledVector(dir, R).addScaledVector(side, R).addScaledVector(camera.up, 2 * R);
      sun.target.position.copy(orbit.target);
    }

    // ---- Bodies ----
    const triangulated = (vertices, faces) => {
      const positions = [];
      for (const face of faces) {
        const points = face.map((i) => new THREE.Vector3().fromArray(vertices[i]));
        let triangles;
        if (points.length === 3) {
          triangles = [[0, 1, 2]];
        } else {
          // Project the planar polygon onto its plane and triangulate it there (ear clipping).
          const normal = new THREE.Vector3();
          for (let k = 0; k < points.length; k++) {
            const a = points[k], b = points[(k + 1) % points.length];
            normal.x += (a.y - b.y) * (a.z + b.z);
            normal.y += (a.z - b.z) * (a.x + b.x);
            normal.z += (a.x - b.x) * (a.y + b.y);
          }
          normal.normalize();
          const u = new THREE.Vector3().crossVectors(
            Math.abs(normal.x) < 0.9 ? new THREE.Vector3(1, 0, 0) : new THREE.Vector3(0, 1, 0),
            normal).normalize();
          const v = new THREE.Vector3().crossVectors(normal, u);
          const contour = points.map((p) => new THREE.Vector2(p.dot(u), p.dot(v)));
          // Ear clipping may wind triangles either way: keep the face's own winding.
          triangles = THREE.ShapeUtils.triangulateShape(contour, []).map(([a, b, c]) => {
            const n = new THREE.Vector3().crossVectors(
              points[b].clone().sub(points[a]), points[c].clone().sub(points[a]));
            return n.dot(normal) < 0 ? [a, c, b] : [a, b, c];
          });
        }
        for (const tri of triangles) {
          for (const k of tri) positions.push(points[k].x, points[k].y, points[k].z);
        }
      }
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
      geometry.computeVertexNormals(); // non-indexed: flat faces
      return geometry;
    };

    function geometryOf(shape, halfspaceSize) {
      switch (shape.type) {
        case 'sphere':
          return new THREE.SphereGeometry(shape.radius, 48, 24);
        case 'ellipsoid': {
          const g = new THREE.SphereGeometry(1, 48, 24);
          g.scale(shape.radii[0], shape.radii[1], shape.radii[2]);
          return g;
        }
        case 'box':
          return new THREE.BoxGeometry(shape.size[0], shape.size[1], shape.size[2]);
        case 'cylinder':
          // three.js builds cylinders and capsules along y; ours run along z.
          return new THREE.CylinderGeometry(shape.radius, shape.radius, shape.height, 48)
            .rotateX(Math.PI / 2);
        case 'capsule':
          return new THREE.CapsuleGeometry(shape.radius, shape.length, 12, 48).rotateX(Math.PI / 2);
        case 'convex':
        case 'mesh':
          return triangulated(shape.vertices, shape.faces);
        case 'halfspace':
          return new THREE.PlaneGeometry(halfspaceSize, halfspaceSize);
        default:
          throw new Error('unknown shape type ' + shape.type);
      }
    }

    const bodyGroups = data.bodies.map((body, index) => {
      const group = new THREE.Group();
      group.name = body.name;
      group.userData.body = index;
      const color = new THREE.Color(body.color);
      for (const shape of body.shapes) {
        const placed = new THREE.Group();
        placed.position.fromArray(shape.position);
        const [w, x, y, z] = shape.orientation;
        placed.quaternion.set(x, y, z, w);
        if (shape.type === 'halfspace') {
          // A square of the plane around the scene, with a grid.
          const size = 8 * R;
          const plane = new THREE.Mesh(geometryOf(shape, size), new THREE.MeshStandardMaterial({
            color, roughness: 0.95, metalness: 0, side: THREE.DoubleSide,
            polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }));
          const grid = new THREE.GridHelper(size, 32, 0x5d6570, 0x7c858f);
          grid.rotateX(Math.PI / 2);
          placed.add(plane, grid);
          placed.userData.halfspace = true;
        } else {
          placed.add(new THREE.Mesh(geometryOf(shape), new THREE.MeshStandardMaterial({
            color, roughness: 0.55, metalness: 0.05 })));
        }
        group.add(placed);
      }
      scene.add(group);
      return group;
    });

    // Centre each ground square under the scene: slide it within its own plane.
    bodyGroups.forEach((group, b) => {
      setPose(group, data.poses[b], 0, 0);
      group.updateMatrixWorld(true);
      for (const placed of group.children) {
        if (!placed.userData.halfspace) continue;
        const local = placed.worldToLocal(center.clone());
        for (const child of placed.children) child.position.set(local.x, local.y, 0);
      }
    });

    // ---- Collision events ----
    const events = data.events || [];
    const eventLayer = new THREE.Group();
    scene.add(eventLayer);
    const maxImpulse = events.reduce(
      (m, e) => Math.max(m, Math.hypot(e.j[0], e.j[1], e.j[2])), 0);
    // Events within this time before the current one are shown.
    const eventWindow = Math.max(frames > 1 ? 3 * (tEnd - t0) / (frames - 1) : 0, 1e-9);
    const MAX_MARKERS = 300;
    const markerPool = [];

    function marker(k) {
      if (!markerPool[k]) {
        const group = new THREE.Group();
        const dot = new THREE.Mesh(new THREE.SphereGeometry(R / 120, 12, 8),
          new THREE.MeshBasicMaterial());
        const normal = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(),
          R / 12, 0xffffff);
        const impulse = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(),
          R / 8, 0xff4d4d);
        group.add(dot, normal, impulse);
        group.userData = { dot, normal, impulse };
        eventLayer.add(group);
        markerPool[k] = group;
      }
      return markerPool[k];
    }

    function showEvents(t) {
      let shown = 0;
      if ($('events').checked) {
        for (const e of events) {
          if (shown >= MAX_MARKERS) break;
          if (e.t > t || e.t <= t - eventWindow) continue;
          const m = marker(shown++);
          m.visible = true;
          m.position.fromArray(e.p);
          // Collisions yellow, microcollisions cyan.
          m.userData.dot.material.color.set(e.kind === 'collision' ? 0xffe066 : 0x66e0ff);
          m.userData.normal.setDirection(new THREE.Vector3().fromArray(e.n).normalize());
          const j = new THREE.Vector3().fromArray(e.j);
          const size = j.length();
          m.userData.impulse.visible = size > 0;
          if (size > 0) {
            m.userData.impulse.setDirection(j.clone().normalize());
            const length = Math.max(R / 40, (R / 6) * size / maxImpulse);
            m.userData.impulse.setLength(length, length / 4, length / 8);
          }
        }
      }
      for (let k = shown; k < markerPool.length; k++) markerPool[k].visible = false;
      return shown;
    }

    // ---- Playback ----
    function frameBefore(t) {
      // Last frame index i with times[i] <= t (0 if t is before the first).
      let lo = 0, hi = frames - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (times[mid] <= t) lo = mid; else hi = mid - 1;
      }
      return lo;
    }

    function setPose(group, poses, i, f) {
      const a = 7 * i;
      if (f === 0 || i + 1 >= frames) {
        group.position.set(poses[a], poses[a + 1], poses[a + 2]);
        group.quaternion.set(poses[a + 4], poses[a + 5], poses[a + 6], poses[a + 3]);
        return;
      }
      const b = a + 7;
      group.position.set(
        poses[a] + f * (poses[b] - poses[a]),
        poses[a + 1] + f * (poses[b + 1] - poses[a + 1]),
        poses[a + 2] + f * (poses[b + 2] - poses[a + 2]));
      qa.set(poses[a + 4], poses[a + 5], poses[a + 6], poses[a + 3]);
      qb.set(poses[b + 4], poses[b + 5], poses[b + 6], poses[b + 3]);
      group.quaternion.slerpQuaternions(qa, qb, f);
    }


    // A sleeping body (at rest with its island, out of the simulation until woken) is drawn
    // paler, as Box2D's and Jolt's debug views do.
    const paleness = 0.6;
    const white = new THREE.Color(0xffffff);
    function setAsleep(group, ranges, i) {
      const asleep = ranges.some(([first, end]) => first <= i && i < end);
      if (group.userData.asleep === asleep) return;
      group.userData.asleep = asleep;
      group.traverse((object) => {
        if (!object.isMesh || object.parent.userData.halfspace) return;
        const material = object.material;
        if (material.userData.awake === undefined) material.userData.awake = material.color.clone();
        material.color.copy(material.userData.awake);
        if (asleep) material.color.lerp(white, paleness);
      });
    }

    function show(t) {
      now = Math.min(Math.max(t, t0), tEnd);
      const i = frameBefore(now);
      const f = i + 1 < frames && times[i + 1] > times[i]
        ? (now - times[i]) / (times[i + 1] - times[i]) : 0;
      bodyGroups.forEach((group, b) => {
        setPose(group, data.poses[b], i, f);
        setAsleep(group, data.asleep[b], i);
      });
      markersShown = showEvents(now);
      $('scrub').value = String(now);
      // Enough decimals to tell frames apart (as `impulse render`'s labels).
      const digits = tEnd > 0 ? Math.min(9, Math.max(2, 3 - Math.floor(Math.log10(tEnd)))) : 3;
      $('clock').textContent =
        't = ' + now.toFixed(digits) + ' / ' + tEnd.toFixed(digits) + '  (frame ' + (i + 1) + '/' + frames + ')';
      draw();
    }

    function draw() {
      placeCamera();
      renderer.render(scene, camera);
    }

    function setPlaying(on) {
      playing = on && frames > 1;
      $('play').textContent = playing ? '❚❚' : '▶';
      if (playing && now >= tEnd) show(t0);
      last = null;
    }

    function tick(stamp) {
      if (playing) {
        if (last !== null) {
          const speed = Number($('speed').value);
          let t = now + ((stamp - last) / 1000) * speed;
          if (t >= tEnd) {
            if ($('loop').checked) t = t0 + ((t - t0) % (tEnd - t0)); else setPlaying(false);
          }
          show(t);
        }
        last = stamp;
      }
      requestAnimationFrame(tick);
    }

    // ---- Page furniture ----
    $('scene').textContent = data.scene;
    const status = $('status');
    if (data.status !== 'completed') {
      status.className = 'stopped';
      status.textContent = 'The run stopped early at t = ' + data.sim_time + ': ' + (data.error || data.status);
    } else {
      status.textContent = frames + ' frames, ' + data.bodies.length + ' bodies';
      if (data.asleep.some((ranges) => ranges.length > 0)) {
        status.textContent += '; sleeping bodies are drawn pale';
      }
    }
    const legend = $('legend');
    data.bodies.forEach((body) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = body.color;
      const motion = document.createElement('span');
      motion.className = 'motion';
      motion.textContent = ' ' + body.motion;
      item.append(swatch, body.name, motion);
      legend.append(item);
    });
    const eventsBox = $('events');
    if (data.events === null) {
      eventsBox.disabled = true;
      $('events-text').textContent = 'collisions (not recorded in this run)';
    } else if (events.length === 0) {
      $('events-text').textContent = 'collisions (none in this run)';
    } else if (data.events_note) {
      // A long run's page holds a share of its events (impulse view --max-events).
      $('events-text').textContent = 'collisions (' + data.events_note + ')';
    } else {
      $('events-text').textContent = 'collisions (' + events.length + ')';
    }

    const scrub = $('scrub');
    scrub.min = String(t0);
    scrub.max = String(tEnd);
    scrub.addEventListener('input', () => { setPlaying(false); show(Number(scrub.value)); });
    $('play').addEventListener('click', () => setPlaying(!playing));
    eventsBox.addEventListener('change', () => show(now));

    const view = $('view');
    view.append(renderer.domElement);
    function resize() {
      const w = Math.max(1, view.clientWidth), h = Math.max(1, view.clientHeight);
      renderer.setPixelRatio(window.devicePixelRatio || 1);
      renderer.setSize(w, h, false);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
      draw();
    }
    window.addEventListener('resize', resize);

    // Orbit: drag to turn, shift- or right-drag to pan, wheel to zoom, double-click to reset.
    const canvas = renderer.domElement;
    let drag = null;
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    canvas.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.shiftKey || e.button === 2 };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener('pointerup', () => { drag = null; });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      if (drag.pan) {
        const scale = (2 * orbit.distance * Math.tan(THREE.MathUtils.degToRad(FOV / 2))) / view.clientHeight;
        const right = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 0);
        const up = new THREE.Vector3().setFromMatrixColumn(camera.matrix, 1);
        orbit.target.addScaledVector(right, -dx * scale).addScaledVector(up, dy * scale);
      } else {
        orbit.azimuth -= dx * 0.008;
        orbit.elevation = Math.min(1.55, Math.max(-1.55, orbit.elevation + dy * 0.008));
      }
      draw();
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      orbit.distance *= Math.exp(e.deltaY * 0.001);
      draw();
    }, { passive: false });
    canvas.addEventListener('dblclick', () => { resetCamera(); draw(); });
    window.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== 'checkbox') return;
      if (e.code === 'Space') { e.preventDefault(); setPlaying(!playing); }
      const step = (k) => { setPlaying(false); show(times[Math.min(frames - 1, Math.max(0, frameBefore(now) + k))]); };
      if (e.code === 'ArrowRight') step(1);
      if (e.code === 'ArrowLeft') step(now > times[frameBefore(now)] ? 0 : -1);
    });

    resize();
    resetCamera();
    show(t0);
    requestAnimationFrame(tick);

    // ---- For tests and scripting ----
    window.impulseViewer = {
      ready: true,
      /** Bodies drawn: those with at least one mesh with triangles in the scene. */
      bodyCount: () => bodyGroups.filter((g) => {
        let drawn = false;
        g.traverse((o) => {
          if (o.isMesh && o.geometry.getAttribute('position').count > 0 && o.parent) drawn = true;
        });
        return drawn && g.parent === scene;
      }).length,
      /** Shows time t (clamped to the run) and draws it at once; returns the time shown. */
      seek: (t) => { setPlaying(false); show(t); return now; },
      time: () => now,
      start: () => t0,
      end: () => tEnd,
      frameCount: () => frames,
      play: () => setPlaying(true),
      pause: () => setPlaying(false),
      isPlaying: () => playing,
      /** Collision markers on screen. */
      eventMarkerCount: () => markersShown,
      /** Bodies drawn asleep (pale) at the current time. */
      asleepCount: () => bodyGroups.filter((group) => group.userData.asleep).length,
      showEvents: (on) => { eventsBox.checked = on; show(now); },
    };
  }
})();
