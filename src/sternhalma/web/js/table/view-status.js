// The line that says what happens now (whose turn, what to pick, a hint, the connection),
// what the hint's search foresees after it, and the notice (what went wrong, what was missed).

import { t } from "../i18n.js";
import { colourName } from "../words.js";

export function statusView($, ctrl) {
  /** @param picker the board's Picker: what the player picked up, a hint shown */
  return function render(picker) {
    $("#status").textContent = statusText(ctrl, picker);
    const foreseen = $("#foreseen");
    foreseen.textContent = foreseenText(ctrl, shownLine(ctrl, picker));
    foreseen.hidden = !foreseen.textContent;
    $("#notice").textContent = ctrl.notice;
  };
}

/** The moves the hint's search foresees after it, while the hint is shown ([] else):
 * the status line says them and the board draws them. */
export function shownLine(ctrl, picker) {
  return picker.hint && !ctrl.askingHint ? ctrl.hintLine : [];
}

/** After a hint: the replies its search expects and the player's answers (two players in
 * contact), or the plan of the player's own moves; nothing where the search keeps none. */
function foreseenText(ctrl, line) {
  if (!line.length) return "";
  const mover = ctrl.state.turn;
  const text = (step) => step.path.join("-");
  if (line.every((step) => step.seat === mover)) {
    return t("status.hintPlan", { moves: line.map(text).join(", ") });
  }
  const colour = (seat) => colourName(ctrl.state.seats[seat].colour);
  return t("status.hintReplies", { moves: line.map((step) => `${colour(step.seat)} ${text(step)}`).join(", ") });
}

function statusText(ctrl, picker) {
  const { state, variant } = ctrl;
  const turn = state.turn;
  const colour = (seat) => colourName(state.seats[seat].colour);
  const word = variant.game;
  if (ctrl.connection === "closed") return t("status.reconnecting");
  if (ctrl.viewing !== null) return t("status.viewing", { n: ctrl.viewing });
  if (state.status === "aborted") return t("status.aborted");
  if (state.over) return t("status.over");
  if (ctrl.confirming) return t("status.waiting", { colour: colour(turn) });
  if (state.status === "waiting") return t("status.waitingPlayers");
  if (state.thinking !== null) return t("status.thinking", { colour: colour(state.thinking) });
  if (ctrl.pending) return t("status.sending");
  if (ctrl.askingHint) return t("status.hintThinking");
  if (picker.hint) return t("status.hint", { move: picker.hint.join("-") });
  if (turn === null) return "";
  if (!ctrl.isMine(turn)) return t("status.waiting", { colour: colour(turn) });
  const people = state.seats.filter((s) => s.kind === "person").length;
  if (picker.selected) return t(`status.pickTarget.${word}`);
  if (people === 1 || state.online) return t(`status.yourTurn.${word}`);
  return t(`status.seatTurn.${word}`, { colour: colour(turn) });
}
