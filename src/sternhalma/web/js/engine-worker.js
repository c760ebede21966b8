// The local game's engine: the project's Python engine on Pyodide, in a Web Worker
// (docs/browser.md). The table page posts the messages it would send the server's table
// socket (docs/protocol.md) and gets the same answers back: sternhalma/browser.py holds
// the game. Pyodide and the engine's wheel come from our own server (and, once kept,
// from the service worker's cache): nothing is fetched from anywhere else.

import { loadPyodide } from "/static/pyodide/pyodide.mjs";

/** The engine as the server builds it (server/web/offline.py). */
const WHEEL = "/engine/sternhalma-0.1.0-py3-none-any.whl";
/** Milliseconds between the computer's turn and its move being shown, as the server's
 * ``computer_pause``: a person can follow it. */
const PAUSE = 600;

let tables = null;
const ready = start();
const inbox = [];
let busy = false;

async function start() {
  const pyodide = await loadPyodide({ indexURL: "/static/pyodide/" });
  const response = await fetch(WHEEL);
  if (!response.ok) throw new Error(`the engine is not at ${WHEEL} (HTTP ${response.status})`);
  pyodide.unpackArchive(await response.arrayBuffer(), "wheel");
  tables = pyodide.pyimport("sternhalma.browser").LocalTables();
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
      post(tables.receive(inbox.shift()));
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
    const choice = tables.think();
    await sleep(PAUSE - (performance.now() - started));
    while (inbox.length) post(tables.receive(inbox.shift()));
    post(tables.computer_plays(choice));
  }
}
