// The local game's engine: the project's Python engine on Pyodide, in a Web Worker
// (docs/browser.md). The table page posts the messages it would send the server's table
// socket (docs/protocol.md) and gets the same answers back: sternhalma/browser.py holds
// the game. Pyodide and the engine's wheel come from our own server (and, once kept,
// from the service worker's cache): nothing is fetched from anywhere else.

import { loadPyodide } from "/static/pyodide/pyodide.mjs";

/** The engine as the server builds it (server/web/offline.py). */
const WHEEL = "/engine/sternhalma-0.1.0-py3-none-any.whl";
const PYODIDE = "/static/pyodide/";
/** The Cache Storage of the engine's snapshot: Pyodide's memory once Python has started and
 * imported the engine (≈30 MB). Restoring it is the most of a start saved (docs/browser.md):
 * the server's own (made with the engine by tools/build_browser.py, served at SNAPSHOT) on a
 * first visit, kept here for the next ones; where the server has none, one made in this
 * browser at the first start. Pyodide's own snapshots (the ``_makeSnapshot`` and
 * ``_loadSnapshot`` options, not public: the pinned version's); kept under the wheel's
 * hash, so a changed engine makes a new one, and Pyodide refuses a snapshot of another
 * build of itself. */
const SNAPSHOTS = "engine-snapshot"; // as in sw.js, which keeps it
/** The server's snapshot of the engine, by the wheel's hash (server/web/offline.py). */
const SNAPSHOT = "/engine/snapshot/";
/** Milliseconds between the computer's turn and its move being shown, as the server's
 * ``computer_pause``: a person can follow it. */
const PAUSE = 600;

let tables = null;
const ready = start();
const inbox = [];
let busy = false;

/** Marks of the engine's start and the computer's first move, in the User Timing API:
 * bench/browser_engine.py prints them. */
function mark(name) {
  if (!performance.getEntriesByName(name).length) performance.mark(name);
}

async function start() {
  mark("worker-started");
  const response = await fetch(WHEEL);
  if (!response.ok) throw new Error(`the engine is not at ${WHEEL} (HTTP ${response.status})`);
  const wheel = await response.arrayBuffer();
  const address = `${SNAPSHOT}${await sha256(wheel)}`; // kept here under it too
  const kept = (await restored(keptSnapshot(address), "snapshot-restored")) ||
    (await restored(shippedSnapshot(address), "snapshot-fetched", address));
  const pyodide = kept || (await loadPyodide({ indexURL: PYODIDE, _makeSnapshot: true }));
  if (!kept) mark("pyodide-loaded");
  pyodide.unpackArchive(wheel, "wheel"); // the files, for what the engine imports later
  mark("wheel-unpacked");
  if (!kept && self.caches) {
    pyodide.runPython("import sternhalma.browser"); // nothing of a game in the snapshot
    keepSnapshot(address, pyodide.makeMemorySnapshot());
  }
  tables = pyodide.pyimport("sternhalma.browser").LocalTables();
  mark("engine-imported");
}

/** This browser's snapshot of the engine (Cache Storage), or null. */
async function keptSnapshot(address) {
  const kept = self.caches && (await (await caches.open(SNAPSHOTS)).match(address));
  return kept ? new Uint8Array(await kept.arrayBuffer()) : null;
}

/** The server's snapshot of the engine, or null where it has none. */
async function shippedSnapshot(address) {
  const response = await fetch(address).catch(() => null); // offline: none
  return response?.ok ? new Uint8Array(await response.arrayBuffer()) : null;
}

/** Pyodide restored from ``snapshot`` (a promise of its bytes), marked ``name`` and, given
 * an ``address``, kept under it for the next start; null when there is none or Pyodide
 * refuses it (another build of it, damaged): a kept one is then dropped. */
async function restored(snapshot, name, address = null) {
  try {
    const bytes = await snapshot;
    if (!bytes) return null;
    const pyodide = await loadPyodide({ indexURL: PYODIDE, _loadSnapshot: bytes });
    mark(name);
    if (address && self.caches) keepSnapshot(address, bytes);
    return pyodide;
  } catch (error) {
    console.warn(`the engine's snapshot (${name}) was not restored`, error);
    await self.caches?.delete(SNAPSHOTS).catch(() => {});
    return null;
  }
}

/** Keeps the snapshot (Python started, the engine imported, nothing of a game yet) in
 * place of any other: the next start of this engine restores it. */
async function keepSnapshot(address, bytes) {
  try {
    await caches.delete(SNAPSHOTS);
    const cache = await caches.open(SNAPSHOTS);
    await cache.put(address, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
    mark("snapshot-kept");
  } catch (error) {
    console.warn("the engine's snapshot was not kept", error); // full storage: start afresh next time
  }
}

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); // as the server's key
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Posts the answers (a JSON list) to the page as one text. */
function post(text) {
  if (text !== "[]") self.postMessage(text);
}

function failed(error) {
  const message = String(error && error.message ? error.message : error).split("\n").filter(Boolean).pop();
  post(JSON.stringify([{ type: "error", code: "engine-failed", message: `the game engine failed: ${message}` }]));
}

/** The page's messages that open a table or join it (the others are a person's doing). */
const JOINING = /^\{"type":"(open|hello)"/;

const sleep = (ms) => new Promise((done) => setTimeout(done, Math.max(0, ms)));

self.onmessage = (event) => {
  inbox.push(String(event.data));
  drain();
};

/** One message at a time, in order; the computer's turns come after each. */
async function drain() {
  if (busy) return;
  busy = true;
  try {
    await ready;
    while (inbox.length) {
      const message = inbox.shift();
      const answers = tables.receive(message);
      if (answers.includes('"welcome"')) mark("welcome");
      post(answers);
      await computerTurns(JOINING.test(message));
    }
  } catch (error) {
    inbox.length = 0;
    failed(error);
  } finally {
    busy = false;
  }
}

/** While a computer seat is to move: "thinking", its choice, the pause, its move. What
 * the page sent meanwhile is answered before the move (an undo drops it). The pause
 * counts from the turn's beginning, as the server's: when the page has just opened or
 * ``joined`` the table, the turn it finds began before (when the game was made, or before
 * a reload). */
async function computerTurns(joined = false) {
  for (let turn = 0; ; turn++) {
    const thinking = tables.computer_turn();
    if (thinking === "[]") return;
    post(thinking);
    await sleep(0); // the page hears "thinking" before the search holds this worker
    const started = joined && turn === 0 ? -Infinity : performance.now();
    mark("think");
    const choice = tables.think();
    mark("thought");
    await sleep(PAUSE - (performance.now() - started));
    while (inbox.length) post(tables.receive(inbox.shift()));
    post(tables.computer_plays(choice));
    mark("moved");
  }
}
