// The server: the JSON API and the table websocket (docs/protocol.md).

import { storedObject } from "./dom.js";

let catalogueCache = null;

/** Boards, variants and computer levels, fetched once. */
export async function catalogue() {
  if (!catalogueCache) catalogueCache = await (await fetch("/api/variants")).json();
  return catalogueCache;
}

export async function createTable(body) {
  const response = await fetch("/api/tables", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), { code: data.code });
  rememberToken(data.id, data.token);
  if (data.player) rememberIdentity(data.player);
  return data;
}

/** Online tables waiting for players (the lobby's list). */
export async function openTables() {
  const response = await fetch("/api/tables");
  return response.ok ? (await response.json()).tables : [];
}

/** Players by rating, per category. */
export async function ratings() {
  const response = await fetch("/api/ratings");
  return response.ok ? (await response.json()).categories : [];
}

const IDENTITY = "sternhalma.identity";

/** Who this browser is online: {id, nickname, secret} (the secret proves it; ratings follow it). */
export function identity() {
  try {
    const value = JSON.parse(localStorage.getItem(IDENTITY));
    return value && typeof value.secret === "string" ? value : null;
  } catch {
    return null;
  }
}

export function rememberIdentity(player) {
  localStorage.setItem(IDENTITY, JSON.stringify({ id: player.id, nickname: player.nickname, secret: player.secret }));
}

const TOKENS = "sternhalma.tokens";

function tokens() {
  return storedObject(TOKENS);
}

/** The secret that holds this browser's seats at a table (kept in localStorage). */
export function tokenFor(id) {
  return tokens()[id] || null;
}

export function rememberToken(id, token) {
  const all = tokens();
  all[id] = token;
  const ids = Object.keys(all);
  for (const old of ids.slice(0, Math.max(0, ids.length - 100))) delete all[old];
  localStorage.setItem(TOKENS, JSON.stringify(all));
}

/** A table's websocket that reconnects by itself and resumes from the last version. */
export class TableSocket {
  constructor(id, onMessage, onStatus = () => {}) {
    this.id = id;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.version = null;
    this.closed = false;
    this.retry = 500;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.ws = new WebSocket(`${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.id)}`);
    this.ws.onopen = () => {
      this.retry = 500;
      this.onStatus("open");
      this.send({ type: "hello", token: tokenFor(this.id), since: this.version });
    };
    this.ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.v !== undefined && message.type !== "hint") this.version = message.v;
      this.onMessage(message);
    };
    this.ws.onclose = (event) => {
      if (this.closed || event.code === 4404) return;
      this.onStatus("closed");
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  send(message) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  close() {
    this.closed = true;
    this.ws.close();
  }
}
