// Local games in this browser (docs/browser.md): whether the browser can run the engine,
// the local tables it keeps (localStorage), and EngineSocket, which speaks to the engine's
// worker (engine-worker.js) as TableSocket speaks to the server: the table page uses either.

import { storedObject } from "./dom.js";

const LOCAL = "sternhalma.local";
/** Local tables kept: the oldest go beyond this many. */
const KEEP = 50;

/** Whether a table id names a local table (made in this browser). */
export function isLocal(id) {
  return id.startsWith("local-");
}

/** Whether this browser can run the engine: WebAssembly, module workers and the server's
 * Pyodide (the catalogue's ``engine``). */
export function browserEngine(catalogue) {
  return catalogue.engine === "browser" && typeof WebAssembly === "object" && typeof Worker === "function";
}

function keep(table) {
  const all = storedObject(LOCAL);
  delete all[table.id];
  all[table.id] = table;
  const ids = Object.keys(all);
  for (const old of ids.slice(0, Math.max(0, ids.length - KEEP))) delete all[old];
  localStorage.setItem(LOCAL, JSON.stringify(all));
}

/** A new local table from the lobby's choice ({variant, seats, deadline_rule?, start?,
 * moves_made?}); the worker checks it when the table page opens it. */
export function createLocalTable(body) {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  const id = `local-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  keep({ ...body, id, actions: [] });
  return { id };
}

let worker = null;

// A local table's page starts the engine as soon as this script runs: index.html loads it
// before the app's other scripts, as starting Pyodide is the longest wait of the page.
const opened = /^\/table\/(local-[0-9a-f]+)$/.exec(location.pathname);
if (opened && storedObject(LOCAL)[opened[1]]) engineWorker();

/** The one engine worker of this page, started at the first local table (Pyodide loads
 * only when a local game is played). Where the service worker is being installed (a first
 * visit), it waits for it a moment, so that Pyodide's download goes through it and is
 * kept once, not fetched again for keeping. */
function engineWorker() {
  if (!worker) worker = controlled().then(() => {
    performance.mark("engine-worker"); // bench/browser_engine.py prints the marks
    const started = new Worker("/static/js/engine-worker.js", { type: "module" });
    // Once the engine has loaded (its first answer) the service worker keeps whatever of
    // Pyodide it has not kept yet, for playing offline (docs/browser.md).
    started.addEventListener("message", keepEngine, { once: true });
    return started;
  });
  return worker;
}

async function controlled(wait = 3000) {
  const workers = navigator.serviceWorker;
  if (!workers || workers.controller || !(await workers.getRegistration())) return;
  await new Promise((done) => {
    workers.addEventListener("controllerchange", done, { once: true });
    setTimeout(done, wait);
  });
}

function keepEngine() {
  navigator.serviceWorker?.ready.then((registration) => registration.active?.postMessage("keep-engine"));
}

/** A local table's connection to the engine worker, with TableSocket's interface. */
export class EngineSocket {
  constructor(id, onMessage, onStatus = () => {}) {
    this.id = id;
    this.onMessage = onMessage;
    this.closed = false;
    const table = storedObject(LOCAL)[id];
    if (!table) {
      setTimeout(() => onMessage({ type: "error", code: "no-table", message: "there is no such table" }));
      return;
    }
    this.listener = (event) => this.receive(event.data);
    this.worker = engineWorker().then((started) => {
      if (this.closed) return null;
      started.addEventListener("message", this.listener);
      started.postMessage(JSON.stringify({ type: "open", table }));
      started.postMessage(JSON.stringify({ type: "hello" }));
      return started;
    });
    onStatus("open");
  }

  receive(text) {
    if (this.closed) return;
    for (const message of JSON.parse(text)) {
      if (message.type === "saved") keep(message.table);
      else if (!message.state || message.state.id === this.id) this.onMessage(message);
    }
  }

  send(message) {
    this.worker?.then((started) => {
      if (started && !this.closed) started.postMessage(JSON.stringify(message));
    });
  }

  close() {
    this.closed = true;
    this.worker?.then((started) => started?.removeEventListener("message", this.listener));
  }
}
