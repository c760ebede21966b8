// The line that says what happens now (whose turn, what to pick, a hint, the connection)
// and the notice under it (what went wrong, what was missed).

import { t } from "../i18n.js";
import { colourName } from "../words.js";

export function statusView($, ctrl) {
  /** @param picker the board's Picker: what the player picked up, a hint shown */
  return function render(picker) {
    $("#status").textContent = statusText(ctrl, picker);
    $("#notice").textContent = ctrl.notice;
  };
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
