// The move list by rounds, each move a button that shows the board as it was after it,
// and the bar that says so with the way back to the game.

import { roundRows } from "../dom.js";
import { t } from "../i18n.js";
import { swatch } from "../svg.js";
import { colourName } from "../words.js";

/** @param focusBoard puts the focus back on the board after the player looked back */
export function movesView($, ctrl, focusBoard) {
  $("#back").addEventListener("click", () => {
    ctrl.back();
    focusBoard();
  });

  function button(ply, label) {
    const button = document.createElement("button");
    button.type = "button";
    if (ctrl.viewing === ply) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => ctrl.look(ply));
    button.append(...label);
    return button;
  }

  return function render() {
    const { state, viewing } = ctrl;
    $("#viewing").hidden = viewing === null;
    $("#viewing-text").textContent = viewing === null ? "" : t("status.viewing", { n: viewing });

    const list = $("#move-list");
    const start = document.createElement("li");
    start.appendChild(button(0, [t("moves.start")]));
    list.replaceChildren(start);
    const next = roundRows(list);
    for (const move of state.moves) {
      const { row, round } = next(move.seat);
      const colour = state.seats[move.seat].colour;
      const item = button(move.ply, [swatch(colour, 14), ` ${move.text}`]);
      item.dataset.ply = move.ply;
      item.setAttribute("aria-label", t("moves.item", { n: round, colour: colourName(colour), move: move.text }));
      row.appendChild(item);
    }
    if (viewing === null) list.lastElementChild?.scrollIntoView?.({ block: "nearest" });
  };
}
