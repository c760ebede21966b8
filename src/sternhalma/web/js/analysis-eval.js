// The computer's view of the position shown on the analysis board: its best move, every
// seat's moves to go (at least, about) and the race between two players.

import { el, swatch } from "./svg.js";
import { t } from "./i18n.js";
import { colourName } from "./words.js";

/** Fills the "computer's view" card from ``analysis`` (null while it is awaited). */
export function renderEval($, analysis) {
  const best = $("#an-best");
  const body = $("#an-togo");
  body.replaceChildren();
  $("#an-race").replaceChildren();
  if (!analysis) {
    best.textContent = t("analysis.thinking");
    return;
  }
  best.textContent = analysis.best ? t("analysis.best", { move: analysis.best.text, colour: colourName(analysis.turn) }) : t("analysis.noMove");
  for (const [colour, count] of Object.entries(analysis.to_go)) {
    const row = document.createElement("tr");
    const who = document.createElement("td");
    who.append(swatch(colour, 18), ` ${colourName(colour)}`);
    const lower = document.createElement("td");
    lower.textContent = count.exact ? t("analysis.exactly", { n: count.lower }) : String(count.lower);
    const about = document.createElement("td");
    about.textContent = String(count.estimate);
    row.append(who, lower, about);
    body.appendChild(row);
  }
  if (analysis.race !== null) raceBar($("#an-race"), analysis.race, Object.keys(analysis.to_go));
}

/** A bar of the race with two players: who is ahead, by how many moves. */
export function raceBar(box, lead, colours) {
  const [first, second] = colours;
  const span = Math.max(5, Math.abs(lead));
  const share = 50 + (lead / span) * 50;
  const svg = el("svg", { viewBox: "0 0 100 10", class: "race-bar", "aria-hidden": "true", preserveAspectRatio: "none" });
  el("rect", { x: 0, y: 0, width: share, height: 10, class: `part c-${first}` }, svg);
  el("rect", { x: share, y: 0, width: 100 - share, height: 10, class: `part c-${second}` }, svg);
  el("line", { x1: 50, x2: 50, y1: 0, y2: 10, class: "middle" }, svg);
  const text = document.createElement("p");
  text.className = "race-text";
  const colour = colourName(lead > 0 ? first : second);
  const n = Math.abs(lead);
  text.textContent = n === 0 ? t("analysis.level") : t(n === 1 ? "analysis.aheadOne" : "analysis.ahead", { colour, n });
  box.append(svg, text);
}
