// The service worker (docs/browser.md): it keeps the app, so that after a first visit
// the lobby and a local game open and play with no network. The server writes in the
// app's version, Pyodide's and the list of the app's files (server/web/offline.py);
// a new version is a new worker, which keeps the new files and drops the old ones.

const VERSION = "__VERSION__";
const PYODIDE = "__PYODIDE__";
const SHELL = ["__SHELL__"];
const ENGINE_FILES = ["__ENGINE__"];
const APP = `app-${VERSION}`;
const ENGINE = `pyodide-${PYODIDE}`;
/** The engine's snapshot (engine-worker.js): it replaces its own when the engine changes. */
const SNAPSHOTS = "engine-snapshot";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(APP).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const kept = [APP, ENGINE, SNAPSHOTS];
    for (const name of await caches.keys()) if (!kept.includes(name)) await caches.delete(name);
    await self.clients.claim();
  })());
});

// A local game started (engine.js): keep Pyodide now, whether or not this worker was
// running yet when the game's worker fetched it.
self.addEventListener("message", (event) => {
  if (event.data === "keep-engine") event.waitUntil(keepEngine());
});

async function keepEngine() {
  const cache = await caches.open(ENGINE);
  for (const url of ENGINE_FILES) if (!(await cache.match(url))) await cache.add(url);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/static/pyodide/")) event.respondWith(cacheFirst(request));
  else if (request.mode === "navigate") event.respondWith(networkFirst(request, "/"));
  else if (SHELL.includes(url.pathname) || url.pathname.startsWith("/static/")) event.respondWith(networkFirst(request));
  // Anything else (the tables, ratings, accounts) is live: the network's answer or none.
});

/** Pyodide (13 MB, fixed for its version): kept the first time a local game loads it. */
async function cacheFirst(request) {
  const cache = await caches.open(ENGINE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

/** The app's own files: the network's (revalidated, small), else the kept copy; a page
 * of the app offline is the app's one page, which routes by its address. */
async function networkFirst(request, page = null) {
  const cache = await caches.open(APP);
  try {
    const response = await fetch(request);
    if (response.ok && !page) await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const kept = (await cache.match(request, { ignoreSearch: true })) || (page && (await cache.match(page)));
    if (kept) return kept;
    throw error;
  }
}
