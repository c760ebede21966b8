// A move on the board as the eye follows it: the marble hops along its path, each hop
// lifted a little, and each captured piece vanishes as it is jumped.

const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** One hop of ``node`` from (x0, y0) to (x1, y1) in ``ms``, eased in and out. */
function hop(node, [x0, y0], [x1, y1], ms) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const frame = (now) => {
      const f = Math.min(1, (now - t0) / ms);
      const e = f < 0.5 ? 2 * f * f : 1 - (-2 * f + 2) ** 2 / 2;
      const lift = Math.sin(Math.PI * f) * 0.25;
      node.setAttribute(
        "transform",
        `translate(${(x0 + (x1 - x0) * e).toFixed(3)},${(y0 + (y1 - y0) * e - lift).toFixed(3)}) scale(${1 + lift * 0.6})`,
      );
      if (f < 1) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
}

/** Whether ``p`` lies on the segment from ``a`` to ``b`` (strictly between its ends). */
function onSegment(a, b, p) {
  const cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  if (Math.abs(cross) > 0.05) return false;
  const dot = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1]);
  const len = (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2;
  return dot > 0 && dot < len;
}

/** Moves the marble on ``path[0]`` of ``board`` along ``path`` hop by hop; pieces in
 * ``removed`` vanish as they are jumped. */
export async function animateMove(board, path, removed, hopMs) {
  const node = board.marbleNodes.get(path[0]);
  if (!node) return;
  node.classList.add("moving");
  board.layers.marbles.appendChild(node); // on top
  const reduced = reducedMotion();
  for (let k = 1; k < path.length; k++) {
    const from = board.point(board.index.get(path[k - 1]));
    const to = board.point(board.index.get(path[k]));
    if (!reduced) await hop(node, from, to, hopMs);
    for (const name of removed) {
      const [mx, my] = board.point(board.index.get(name));
      const between = Math.hypot((from[0] + to[0]) / 2 - mx, (from[1] + to[1]) / 2 - my) < 0.1
        || onSegment(from, to, [mx, my]);
      const victim = board.marbleNodes.get(name);
      if (between && victim) victim.classList.add("captured");
    }
  }
  board.marbleNodes.delete(path[0]);
  board.marbleNodes.set(path[path.length - 1], node);
  node.classList.remove("moving");
  board.placeMarble(node, path[path.length - 1]);
}
