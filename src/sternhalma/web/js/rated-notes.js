// Before a rated pool game, say when the player's rating is still provisional: the server
// works it out (POST /api/rated-notes) from the identity this browser keeps. Whether a
// table's game would be rated is asked in the lobby (account-api.js unratedForMe).

import { identity } from "./api.js";
import { t } from "./i18n.js";

async function ask(variant) {
  const me = identity();
  try {
    const response = await fetch("/api/rated-notes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ variant, identity: me ? me.secret : null }),
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Add to ``node`` (the rated game's help) whether this player's rating is provisional. */
export async function noteProvisional(node, variant) {
  const notes = await ask(variant);
  if (notes && notes.provisional && !node.querySelector(".provisional-note")) {
    const span = document.createElement("span");
    span.className = "provisional-note";
    span.textContent = ` ${t("rated.provisional", { games: notes.games, needed: notes.needed })}`;
    node.appendChild(span);
  }
}
