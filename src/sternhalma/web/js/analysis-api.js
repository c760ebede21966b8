// The analysis board's and the puzzle's server calls: a record read into positions,
// a position's legal moves, and the analysis websocket (moves to go, best move, review).

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), { code: data.code });
  return data;
}

/** A record's positions and moves: {variant, players, result, analysable, positions, moves}. */
export function readRecord(record) {
  return post("/api/analysis/record", { record });
}

/** The legal moves of ``position``: [{text, path, after}], one per position they lead to
 * (a capture loop both ways round is one move, as in the table's legal paths). */
export async function legalMoves(position) {
  const seen = new Set();
  return (await post("/api/analysis/moves", { position })).moves.filter((move) => {
    const after = JSON.stringify(move.after);
    return !seen.has(after) && seen.add(after);
  });
}

/** The crossing puzzle's moves from white's marbles: [{text, path, white}]. */
export async function crossingMoves(white) {
  return (await post("/api/puzzles/crossing/moves", { white })).moves;
}

/** The analysis websocket. ``onMessage`` gets every message; ``send`` waits for the socket to open. */
export class AnalysisSocket {
  constructor(onMessage) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws/analysis`);
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener("open", resolve, { once: true });
      this.socket.addEventListener("error", reject, { once: true });
    });
    this.socket.addEventListener("message", (event) => onMessage(JSON.parse(event.data)));
  }

  async send(message) {
    await this.opened;
    this.socket.send(JSON.stringify(message));
  }

  close() {
    this.socket.close();
  }
}

/** Each move's start and end hole from its path (for the "last move" marks). */
export function ends(path) {
  return path ? [path[0], path[path.length - 1]] : [];
}
