// The analysis board's move list by rounds, as the table's (table/view-moves.js): a row
// per round, each move a button with its player's colour, the review's mark after it.

import { roundRows } from "./dom.js";
import { t } from "./i18n.js";
import { swatch } from "./svg.js";
import { colourName } from "./words.js";

/** Verdict marks in the move list, as chess players know them. */
export const SYMBOLS = { good: "", inaccuracy: "?!", mistake: "?" };

/**
 * Fills ``list`` with the game's moves by rounds. A round starts when a seat moves that
 * is not after the previous mover in the variant's seat order (as on the table).
 * @param {object} view {game, variant, review, ply, trying, go(ply)}
 */
export function renderMoveList(list, { game, variant, review, ply, trying, go }) {
  list.replaceChildren();
  if (!game) return;
  const button = (target, label) => {
    const item = document.createElement("button");
    item.type = "button";
    item.setAttribute("aria-current", String(ply === target && !trying));
    item.addEventListener("click", () => go(target));
    item.append(...label);
    return item;
  };
  const start = document.createElement("li");
  start.appendChild(button(0, [t("analysis.startShort")]));
  list.appendChild(start);
  const next = roundRows(list);
  game.moves.forEach((move, index) => {
    const colour = game.positions[index].turn;
    const { row, round } = next(variant.seats ? variant.seats.indexOf(colour) : index);
    const judged = review && review.moves[index];
    const mark = judged ? SYMBOLS[judged.verdict] : "";
    const item = button(index + 1, [swatch(colour, 14), ` ${move.text}${mark}`]);
    item.dataset.ply = String(index + 1);
    const said = [t("moves.item", { n: round, colour: colourName(colour), move: move.text })];
    if (judged) {
      item.classList.add(`verdict-${judged.verdict}`);
      item.title = judged.verdict !== "good"
        ? t("analysis.lost", { verdict: t(`analysis.verdict.${judged.verdict}`), n: judged.loss, best: judged.best.text })
        : t("analysis.verdict.good");
      said.push(t(`analysis.verdict.${judged.verdict}`));
    }
    item.setAttribute("aria-label", said.join(", "));
    row.appendChild(item);
  });
  // Only the list scrolls to the move shown, never the page (a phone opens at the top).
  const current = list.querySelector("[aria-current='true']");
  if (current) {
    const top = current.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + current.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + current.offsetHeight - list.clientHeight;
  }
}
