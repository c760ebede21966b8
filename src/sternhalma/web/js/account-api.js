// Accounts (docs/accounts.md): log in and out, make an account, the profile, the
// ratings shown next to names and whether a table's game would be rated for me.
// The session rides in an HttpOnly cookie no script can read; the play secret the
// server hands out at log-in is kept as this browser's identity (api.js).

import { identity, rememberIdentity } from "./api.js";

const IDENTITY = "sternhalma.identity";

async function send(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), { code: data.code, status: response.status });
  return data;
}

/** Who this browser is logged in as: {player: {id, nickname} | null, account}. */
export async function me() {
  const response = await fetch("/api/account");
  return response.ok ? response.json() : { player: null, account: false };
}

function loggedIn(data) {
  rememberIdentity(data.player);
  return data;
}

/** Protect a nickname with a password (this browser's identity, if any, becomes the account). */
export async function register(nickname, password) {
  return loggedIn(await send("/api/account/register", { nickname, password, identity: identity()?.secret ?? null }));
}

export async function login(nickname, password) {
  return loggedIn(await send("/api/account/login", { nickname, password }));
}

export async function logout() {
  await send("/api/account/logout", {});
  localStorage.removeItem(IDENTITY);
}

export function changePassword(old, password) {
  return send("/api/account/password", { old, new: password });
}

export async function deleteAccount(password) {
  await send("/api/account/delete", { password });
  localStorage.removeItem(IDENTITY);
}

/** A player's profile (page ``page`` of their games); null when there is no such player. */
export async function profile(nickname, page = 0) {
  const headers = {};
  const mine = identity();
  if (mine) headers["X-Sternhalma-Identity"] = mine.secret;
  const response = await fetch(`/api/players/${encodeURIComponent(nickname)}?page=${page}`, { headers });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(response.statusText);
  return response.json();
}

/** For rated tables: why each would not be rated if I sat down ({id: "same-address"}). */
export async function unratedForMe(ids) {
  if (!ids.length) return {};
  try {
    return (await send("/api/tables/unrated", { tables: ids, identity: identity()?.secret ?? null })).unrated;
  } catch {
    return {};
  }
}

// -- ratings next to names ---------------------------------------------------------------

const cache = new Map(); // "category|player" -> {at, value: Promise}
const FRESH_MS = 15000;

/** A rating as shown next to a name: "1662", or "1662?" while provisional. */
export function ratingText(rating) {
  return `${rating.rating}${rating.provisional ? "?" : ""}`;
}

/** The ratings of ``players`` in ``category``, fetched together and kept a few seconds. */
export async function ratingsOf(category, players) {
  const now = Date.now();
  const missing = players.filter((p) => p && !(cache.get(`${category}|${p}`)?.at > now - FRESH_MS));
  if (missing.length) {
    const request = fetch(`/api/ratings/of?category=${encodeURIComponent(category)}&players=${missing.map(encodeURIComponent).join(",")}`)
      .then((r) => (r.ok ? r.json() : { ratings: {} }))
      .then((data) => data.ratings)
      .catch(() => ({}));
    for (const p of missing) cache.set(`${category}|${p}`, { at: now, value: request.then((all) => all[p]) });
  }
  const entries = await Promise.all(players.map((p) => (p ? cache.get(`${category}|${p}`).value : null)));
  return Object.fromEntries(players.map((p, i) => [p, entries[i] || null]));
}

/** A small "(1662?)" after a name, filled in when the rating arrives. */
export function ratingBadge(category, player) {
  const span = document.createElement("span");
  span.className = "rating-badge";
  if (!player) return span;
  span.dataset.player = player;
  ratingsOf(category, [player]).then((all) => {
    const rating = all[player];
    if (rating) span.textContent = ` (${ratingText(rating)})`;
  });
  return span;
}

/** A link to a player's profile, the nickname as text. */
export function profileLink(nickname) {
  const a = document.createElement("a");
  a.href = `/@/${encodeURIComponent(nickname)}`;
  a.dataset.link = "";
  a.className = "profile-link";
  a.textContent = nickname;
  return a;
}
