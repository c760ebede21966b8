// Records against the computer, kept in this browser only (localStorage), per
// game and number of players: games played, games won, fewest moves in a win.
// Only games of exactly one person against the computer count.

import { storedObject } from "./dom.js";

const KEY = "sternhalma.records";
const COUNTED = "sternhalma.records.counted";

export function allRecords() {
  return storedObject(KEY);
}

export function recordsFor(game) {
  const records = allRecords();
  const rows = [];
  for (const [key, value] of Object.entries(records)) {
    const [g, players] = key.split(":");
    if (g === game) rows.push({ players: Number(players), ...value });
  }
  return rows.sort((a, b) => a.players - b.players);
}

/** Whether the person at a local table (no online seats) has not moved yet: leaving it
 * then is abandoning it, which counts as nothing in the records. */
export function abandonable(state) {
  const persons = state.seats.filter((s) => s.kind === "person");
  return !state.seats.some((s) => s.kind === "online") && persons.length > 0 && persons.every((s) => !s.moves);
}

/** Counts a finished table once. ``state`` is the table state the server sent. A game
 * given up before the person's first move was abandoned, not lost: it does not count. */
export function recordGame(state) {
  if (!state.over || !state.result) return false;
  const persons = state.seats.map((s, i) => [s, i]).filter(([s]) => s.kind === "person");
  if (persons.length !== 1 || persons.length === state.seats.length) return false;
  if (abandonable(state)) return false;
  const counted = JSON.parse(localStorage.getItem(COUNTED) || "[]");
  if (counted.includes(state.id)) return false;
  const [seat, index] = persons[0];
  const places = state.result.places;
  const won = places[index] === 1 && places.filter((p) => p === 1).length === 1;
  const records = allRecords();
  const key = `${state.game}:${state.seats.length}`;
  const row = records[key] || { played: 0, won: 0, fewest: null };
  row.played += 1;
  if (won) {
    row.won += 1;
    row.fewest = row.fewest === null ? seat.moves : Math.min(row.fewest, seat.moves);
  }
  records[key] = row;
  localStorage.setItem(KEY, JSON.stringify(records));
  counted.push(state.id);
  localStorage.setItem(COUNTED, JSON.stringify(counted.slice(-200)));
  return true;
}
