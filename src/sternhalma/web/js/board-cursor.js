// The board's keyboard cursor: which hole an arrow key (with Shift or not) moves the
// focus to, from the holes' places on the screen (after the board's turn).

/** The holes next to ``name`` (1 apart on the star, diagonals too on the square), with
 * their screen offsets. */
function screenNeighbours(board, name) {
  const [x0, y0] = board.point(board.index.get(name));
  const reach = board.geometry.kind === "square" ? 1.5 : 1.1;
  const found = [];
  board.names.forEach((other, i) => {
    const [x, y] = board.point(i);
    const dx = x - x0;
    const dy = y - y0;
    if (other !== name && Math.hypot(dx, dy) < reach) found.push({ name: other, dx, dy, x });
  });
  return found;
}

/** Where ``key`` (with Shift or not) moves the focus from ``name``: a hole name, null
 * when there is no hole that way, undefined when the key is not a move key. On the
 * star, Left/Right go along the row and Up/Down to the upper/lower neighbour nearer the
 * middle of the board, Shift to the other one; on the square, arrows go straight and
 * Shift turns them 45° clockwise (Shift+Up goes up and right). */
export function keyTarget(board, name, key, shift) {
  const arrows = { ArrowUp: [0, -1], ArrowRight: [1, 0], ArrowDown: [0, 1], ArrowLeft: [-1, 0] };
  if (!arrows[key]) return undefined;
  const near = screenNeighbours(board, name);
  const sign = (v) => (Math.abs(v) < 0.1 ? 0 : Math.sign(v));
  if (board.geometry.kind === "square") {
    let [dx, dy] = arrows[key];
    if (shift) [dx, dy] = [sign(dx - dy), sign(dy + dx)];
    return near.find((n) => sign(n.dx) === dx && sign(n.dy) === dy)?.name ?? null;
  }
  const [ax, ay] = arrows[key];
  if (ay === 0) return near.find((n) => sign(n.dy) === 0 && sign(n.dx) === ax)?.name ?? null;
  const way = near
    .filter((n) => sign(n.dy) === ay)
    .sort((a, b) => Math.abs(a.x) - Math.abs(b.x) || a.x - b.x);
  if (!way.length) return null;
  return (shift && way.length > 1 ? way[1] : way[0]).name;
}
