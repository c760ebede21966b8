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
 * imported the engine (≈30 MB), made in this browser at the engine's first start and
 * restored at the next ones instead of starting Python again, the most of a start here
 * (docs/browser.md). Pyodide's own snapshots (the ``_makeSnapshot`` and ``_loadSnapshot``
 * options, not public: the pinned version's); kept under the wheel's hash, so a changed
 * engine makes a new one, and Pyodide refuses a snapshot of another build of itself. */
const SNAPSHOTS = "engine-snapshot"; // as in sw.js, which keeps it
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
  const key = `/engine/snapshot/${await sha256(wheel)}`;
  const kept = await restored(key);
  const pyodide = kept || (await loadPyodide({ indexURL: PYODIDE, _makeSnapshot: true }));
  mark(kept ? "snapshot-restored" : "pyodide-loaded");
  pyodide.unpackArchive(wheel, "wheel"); // the files, for what the engine imports later
  mark("wheel-unpacked");
  if (!kept && self.caches) {
    pyodide.runPython("import sternhalma.browser"); // nothing of a game in the snapshot
    keepSnapshot(key, pyodide.makeMemorySnapshot());
  }
  tables = pyodide.pyimport("sternhalma.browser").LocalTables();
  mark("engine-imported");
}

/** Pyodide restored from this browser's snapshot of it for this engine, or null: none
 * kept, no Cache Storage, or one Pyodide refuses (another build of it). */
async function restored(key) {
  try {
    const kept = self.caches && (await (await caches.open(SNAPSHOTS)).match(key));
    if (!kept) return null;
    return await loadPyodide({ indexURL: PYODIDE, _loadSnapshot: new Uint8Array(await kept.arrayBuffer()) });
  } catch (error) {
    console.warn("the engine's snapshot was not restored; starting afresh", error);
    await caches.delete(SNAPSHOTS).catch(() => {});
    return null;
  }
}

/** Keeps the snapshot (Python started, the engine imported, nothing of a game yet) in
 * place of any other: the next start of this engine restores it. */
async function keepSnapshot(key, bytes) {
  try {
    await caches.delete(SNAPSHOTS);
    const cache = await caches.open(SNAPSHOTS);
    await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
    mark("snapshot-kept");
  } catch (error) {
    console.warn("the engine's snapshot was not kept", error); // full storage: start afresh next time
  }
}

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
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
      const answers = tables.receive(inbox.shift());
      if (answers.includes('"welcome"')) mark("welcome");
      post(answers);
      await computerTurns();
    }
  } catch (error) {
    inbox.length = 0;
    failed(error);
  } finally {
    busy = false;
  }
}

/** While a computer seat is to move: "thinking", its choice, the pause, its move. What
 * the page sent meanwhile is answered before the move (an undo drops it). */
async function computerTurns() {
  for (;;) {
    const thinking = tables.computer_turn();
    if (thinking === "[]") return;
    post(thinking);
    await sleep(0); // the page hears "thinking" before the search holds this worker
    const started = performance.now();
    mark("think");
    const choice = tables.think();
    mark("thought");
    await sleep(PAUSE - (performance.now() - started));
    while (inbox.length) post(tables.receive(inbox.shift()));
    post(tables.computer_plays(choice));
    mark("moved");
  }
}
