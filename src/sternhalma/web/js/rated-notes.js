// Before a rated game, say when it will not be rated for this player and why (a shared
// address, docs/ratings.md), and when their rating is still provisional: the server
// works it out (POST /api/rated-notes) from the identity this browser keeps.

import { identity } from "./api.js";
import { t } from "./i18n.js";

async function ask(variant, tables) {
  const me = identity();
  try {
    const response = await fetch("/api/rated-notes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ variant, tables, identity: me ? me.secret : null }),
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Mark the rated tables of the lobby's list where this player's game would not be rated. */
export async function noteOpenTables(box, tables) {
  const rated = tables.filter((table) => table.rated).map((table) => table.id);
  if (!rated.length) return;
  const notes = await ask(null, rated);
  if (!notes) return;
  for (const [id, reason] of Object.entries(notes.tables)) {
    const item = [...box.querySelectorAll("li[data-table]")].find((li) => li.dataset.table === id);
    if (!item || item.querySelector(".unrated-note")) continue;
    const note = document.createElement("div");
    note.className = "unrated-note hint";
    note.dataset.reason = reason;
    note.textContent = t(`rated.${reason}`);
    item.appendChild(note);
  }
}

/** Add to ``node`` (the rated game's help) whether this player's rating is provisional. */
export async function noteProvisional(node, variant) {
  const notes = await ask(variant, []);
  if (notes && notes.provisional && !node.querySelector(".provisional-note")) {
    const span = document.createElement("span");
    span.className = "provisional-note";
    span.textContent = ` ${t("rated.provisional", { games: notes.games, needed: notes.needed })}`;
    node.appendChild(span);
  }
}
