// The SVG board: holes, marbles with their marks, highlights, paths and animation.
// Geometry comes from the server (/api/variants): hole names, screen coordinates
// (neighbours 1 unit apart, y upward) and the outline. Nothing here knows the rules:
// which moves exist is told by the table, in the legal move paths it sends. The
// keyboard cursor is in board-cursor.js, the moving marble in board-motion.js.

import { keyTarget } from "./board-cursor.js";
import { animateMove } from "./board-motion.js";
import { drawMark, el } from "./svg.js";

function rotate([x, y], angle) {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [x * c - y * s, x * s + y * c];
}

function hull(points) {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper = [];
  for (const p of pts.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Padded outline around a set of points (for the gold goal outline). */
function padded(points, pad) {
  const h = hull(points);
  const cx = h.reduce((a, p) => a + p[0], 0) / h.length;
  const cy = h.reduce((a, p) => a + p[1], 0) / h.length;
  return h.map(([x, y]) => {
    const dx = x - cx;
    const dy = y - cy;
    const d = Math.hypot(dx, dy) || 1;
    return [x + (dx / d) * pad, y + (dy / d) * pad];
  });
}

export class Board {
  /**
   * @param {HTMLElement} container where the SVG goes
   * @param {object} geometry board description from the server
   * @param {object} options {label(name, hole) -> string, onActivate(name), onHover(name|null), interactive}
   */
  constructor(container, geometry, options = {}) {
    this.geometry = geometry;
    this.options = options;
    this.names = geometry.names;
    this.index = new Map(this.names.map((n, i) => [n, i]));
    this.angle = 0;
    this.svg = el("svg", {
      class: `board board-${geometry.kind}`,
      role: options.interactive ? "group" : "img",
    });
    container.appendChild(this.svg);
    this.layers = {};
    for (const name of ["outline", "goal", "holes", "marbles", "labels", "foreseen", "second", "path"]) {
      this.layers[name] = el("g", { class: `layer-${name}` }, this.svg);
    }
    this.layers.marbles.setAttribute("aria-hidden", "true");
    this.layers.path.setAttribute("aria-hidden", "true");
    this.layers.foreseen.setAttribute("aria-hidden", "true");
    this.layers.second.setAttribute("aria-hidden", "true");
    this.layers.labels.setAttribute("aria-hidden", "true");
    this.namesShown = false;
    this.holeNodes = [];
    this.marbleNodes = new Map(); // hole name -> marble <g>
    this.buildHoles();
    this.setRotation(0);
    if (options.interactive) this.bindEvents();
  }

  // -- geometry ---------------------------------------------------------------
  centre() {
    const xy = this.geometry.xy;
    const xs = xy.map((p) => p[0]);
    const ys = xy.map((p) => p[1]);
    return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
  }

  /** Screen position (SVG coordinates, y down) of hole index i after rotation. */
  point(i) {
    const [cx, cy] = this.centre();
    const [x, y] = this.geometry.xy[i];
    const [rx, ry] = rotate([x - cx, y - cy], this.angle);
    return [rx, -ry];
  }

  pointOfRaw([x, y]) {
    const [cx, cy] = this.centre();
    const [rx, ry] = rotate([x - cx, y - cy], this.angle);
    return [rx, -ry];
  }

  /** Turns the board so that the holes named in ``home`` are at the bottom
   * (the star in steps of 60°; the square in steps of 90°, home bottom-right). */
  turnHomeDown(home) {
    if (!home || !home.length) return this.setRotation(0);
    const [cx, cy] = this.centre();
    let sx = 0;
    let sy = 0;
    for (const name of home) {
      const [x, y] = this.geometry.xy[this.index.get(name)];
      sx += x - cx;
      sy += y - cy;
    }
    const current = Math.atan2(sy, sx);
    const step = this.geometry.kind === "star" ? Math.PI / 3 : Math.PI / 2;
    const target = this.geometry.kind === "star" ? -Math.PI / 2 : -Math.PI / 4;
    const turns = Math.round((target - current) / step);
    this.setRotation(turns * step);
  }

  setRotation(angle) {
    const changed = Math.abs(angle - this.angle) > 1e-9 || !this.placed;
    this.angle = angle;
    if (!changed) return;
    this.placed = true;
    this.drawOutline();
    this.holeNodes.forEach((node, i) => {
      const [x, y] = this.point(i);
      node.setAttribute("transform", `translate(${x.toFixed(3)},${y.toFixed(3)})`);
    });
    for (const [name, node] of this.marbleNodes) this.placeMarble(node, name);
    this.drawNames();
    this.fitView();
    if (this.goalNames) this.showGoal(this.goalNames);
  }

  /** Shows or hides the hole names (the notation of the move list) on the board. */
  showNames(on) {
    this.namesShown = on;
    this.drawNames();
    this.fitView();
  }

  /** The star gets every hole's name under the hole; the square gets its files and
   * rows once each, outside the board along the bottom and the left edge. */
  drawNames() {
    const layer = this.layers.labels;
    layer.replaceChildren();
    if (!this.namesShown) return;
    const text = (x, y, words, cls) => {
      const node = el("text", { x: x.toFixed(3), y: y.toFixed(3), class: cls }, layer);
      node.textContent = words;
    };
    if (this.geometry.kind !== "square") {
      this.names.forEach((name, i) => {
        const [x, y] = this.point(i);
        text(x, y + 0.42, name, "hole-name");
      });
      return;
    }
    // A file or a row is a line of squares; after the board's turn it runs across the
    // screen or up and down it: label it past its lowest or its leftmost square.
    const lines = new Map();
    this.names.forEach((name, i) => {
      const [, file, row] = name.match(/^([a-z]+)(\d+)$/);
      for (const key of [file, row]) {
        if (!lines.has(key)) lines.set(key, []);
        lines.get(key).push(this.point(i));
      }
    });
    for (const [key, points] of lines) {
      const across = Math.abs(points[0][1] - points[points.length - 1][1]) < 0.1;
      if (across) {
        const [x, y] = points.reduce((a, b) => (b[0] < a[0] ? b : a));
        text(x - 0.85, y + 0.12, key, "edge-name");
      } else {
        const [x, y] = points.reduce((a, b) => (b[1] > a[1] ? b : a));
        text(x, y + 0.95, key, "edge-name");
      }
    }
  }

  fitView(names = null) {
    const known = names ? names.filter((n) => this.index.has(n)) : null;
    const pts = known && known.length
      ? known.map((n) => this.point(this.index.get(n)))
      : this.geometry.outline.flat().map((p) => this.pointOfRaw(p));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const m = known && known.length ? 0.9 : this.namesShown && this.geometry.kind === "square" ? 1.3 : 0.3;
    const x0 = Math.min(...xs) - m;
    const y0 = Math.min(...ys) - m;
    this.svg.setAttribute(
      "viewBox",
      `${x0.toFixed(2)} ${y0.toFixed(2)} ${(Math.max(...xs) + m - x0).toFixed(2)} ${(Math.max(...ys) + m - y0).toFixed(2)}`,
    );
  }

  drawOutline() {
    const layer = this.layers.outline;
    layer.replaceChildren();
    for (const polygon of this.geometry.outline) {
      const pts = polygon.map((p) => this.pointOfRaw(p).map((v) => v.toFixed(3)).join(",")).join(" ");
      el("polygon", { points: pts, class: "outline" }, layer);
    }
  }

  buildHoles() {
    const square = this.geometry.kind === "square";
    this.names.forEach((name, i) => {
      const g = el("g", { class: "hole", "data-hole": name }, this.layers.holes);
      if (this.options.interactive) {
        g.setAttribute("tabindex", "-1");
        g.setAttribute("role", "button");
      }
      if (square) el("rect", { class: "cell", x: -0.5, y: -0.5, width: 1, height: 1 }, g);
      el("circle", { class: "hit", r: 0.5 }, g);
      el("circle", { class: "pit", r: square ? 0.16 : 0.2 }, g);
      el("circle", { class: "ring", r: 0.46 }, g);
      this.holeNodes[i] = g;
    });
  }

  hole(name) {
    return this.holeNodes[this.index.get(name)];
  }

  // -- marbles -----------------------------------------------------------------
  /** Draws the marbles of a position (rules.md#position-json). */
  setPosition(position) {
    this.position = position;
    this.layers.marbles.replaceChildren();
    this.marbleNodes.clear();
    if (position.pieces) {
      for (const name of position.pieces) this.addMarble(name, null);
    } else {
      for (const [colour, holes] of Object.entries(position.marbles)) {
        for (const name of holes) this.addMarble(name, colour);
      }
    }
    this.refreshLabels();
  }

  addMarble(name, colour) {
    const g = el("g", { class: colour ? `marble c-${colour}` : "marble piece" }, this.layers.marbles);
    el("circle", { class: "body", r: 0.4 }, g);
    el("circle", { class: "shine", r: 0.14, cx: -0.12, cy: -0.13 }, g);
    if (colour) drawMark(g, colour, 0.4);
    g.dataset.colour = colour || "";
    this.marbleNodes.set(name, g);
    this.placeMarble(g, name);
  }

  placeMarble(node, name) {
    const [x, y] = this.point(this.index.get(name));
    node.setAttribute("transform", `translate(${x.toFixed(3)},${y.toFixed(3)})`);
  }

  /** The colour on a hole ("" for a shared capture piece), or undefined when empty. */
  colourAt(name) {
    const node = this.marbleNodes.get(name);
    return node ? node.dataset.colour : undefined;
  }

  refreshLabels() {
    if (!this.options.label) return;
    this.names.forEach((name, i) => {
      this.holeNodes[i].setAttribute("aria-label", this.options.label(name, this.holeNodes[i]));
    });
  }

  /** Moves the marble along ``path`` hop by hop; pieces in ``removed`` vanish as they are jumped. */
  animate(path, removed = [], hopMs = 170) {
    return animateMove(this, path, removed, hopMs);
  }

  // -- highlights ----------------------------------------------------------------
  /** Sets a class on exactly the named holes. */
  mark(cls, names) {
    const wanted = new Set(names);
    this.names.forEach((name, i) => this.holeNodes[i].classList.toggle(cls, wanted.has(name)));
  }

  showGoal(names) {
    this.goalNames = names;
    const layer = this.layers.goal;
    layer.replaceChildren();
    this.mark("goal", names || []);
    if (!names || !names.length) return;
    const pts = padded(names.map((n) => this.point(this.index.get(n))), 0.62);
    el("polygon", { class: "goal-outline", points: pts.map((p) => p.map((v) => v.toFixed(3)).join(",")).join(" ") }, layer);
  }

  /** Draws ``path`` (hole names) as a line. The "second" layer holds a line that the
   * picker's hovers and hints leave alone: the review's better move, a chain being chosen. */
  showPath(path, cls = "preview", layerName = "path") {
    const layer = this.layers[layerName];
    layer.replaceChildren();
    if (!path || path.length < 2) return;
    const pts = path.map((n) => this.point(this.index.get(n)));
    el("polyline", { class: `path ${cls}`, "data-path": path.join("-"), points: pts.map((p) => p.map((v) => v.toFixed(3)).join(",")).join(" ") }, layer);
    for (const [x, y] of pts.slice(1)) el("circle", { class: `path-dot ${cls}`, cx: x, cy: y, r: 0.13 }, layer);
  }

  /** Draws the moves a search foresees, ``steps`` of {path, colour} in the order they
   * would be played: each a faint line, numbered at its end on a disc of its player's colour. */
  showLine(steps) {
    const layer = this.layers.foreseen;
    layer.replaceChildren();
    steps.forEach(({ path, colour }, i) => {
      const pts = path.map((n) => this.point(this.index.get(n)));
      const line = pts.map((p) => p.map((v) => v.toFixed(3)).join(",")).join(" ");
      const g = el("g", { class: `foreseen c-${colour}`, "data-path": path.join("-") }, layer);
      el("polyline", { class: "foreseen-path", points: line }, g);
      const [x, y] = pts[pts.length - 1];
      el("circle", { class: "foreseen-end", cx: x, cy: y, r: 0.22 }, g);
      const n = el("text", { class: "foreseen-n", x: x.toFixed(3), y: (y + 0.1).toFixed(3) }, g);
      n.textContent = String(i + 1);
    });
  }

  // -- interaction ---------------------------------------------------------------
  bindEvents() {
    const holeOf = (event) => event.target.closest && event.target.closest(".hole");
    this.svg.addEventListener("click", (event) => {
      const g = holeOf(event);
      if (g) this.options.onActivate?.(g.dataset.hole);
    });
    this.svg.addEventListener("mouseover", (event) => {
      const g = holeOf(event);
      if (g) this.options.onHover?.(g.dataset.hole);
    });
    this.svg.addEventListener("mouseleave", () => this.options.onHover?.(null));
    this.svg.addEventListener("focusin", (event) => {
      const g = holeOf(event);
      if (g) this.options.onHover?.(g.dataset.hole);
    });
    this.svg.addEventListener("keydown", (event) => {
      const g = holeOf(event);
      if (!g) return;
      const next = keyTarget(this, g.dataset.hole, event.key, event.shiftKey);
      if (next !== undefined) {
        event.preventDefault();
        if (next) this.hole(next).focus();
      } else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.options.onActivate?.(g.dataset.hole);
      } else if (event.key === "Escape") {
        event.preventDefault();
        this.options.onCancel?.();
      }
    });
  }

  /** Which holes Tab reaches (tabindex 0); every other hole stays reachable by arrows. */
  setTabStops(names) {
    const wanted = new Set(names);
    this.names.forEach((name, i) => this.holeNodes[i].setAttribute("tabindex", wanted.has(name) ? "0" : "-1"));
  }
}
