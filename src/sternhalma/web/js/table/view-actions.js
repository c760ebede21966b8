// The buttons under the players: undo and hint (against the computer), abort before
// everyone has moved, resign after.

import { ask } from "../dialogs.js";
import { t } from "../i18n.js";
import { abandonable } from "../records.js";

export function actionsView($, ctrl) {
  $("#undo").addEventListener("click", () => ctrl.undo());
  $("#hint").addEventListener("click", () => ctrl.askHint());
  // A local game before the person's first move is abandoned: the same end on the
  // server, but not a lost game in this browser's records (records.js).
  $("#resign").addEventListener("click", async () => {
    const word = abandonable(ctrl.state) ? "abandon" : "resign";
    if (await ask(t(`confirm.${word}`), t(`action.${word}`), t("confirm.cancel"))) ctrl.resign();
  });
  $("#abort").addEventListener("click", async () => {
    if (await ask(t("confirm.abort"), t("action.abort"), t("confirm.cancel"))) ctrl.abort();
  });

  return function render() {
    const { state, mySeats } = ctrl;
    const against = state.can_hint && mySeats.length > 0;
    $("#undo").hidden = !against;
    $("#hint").hidden = !against;
    $("#undo").disabled = !state.can_undo || ctrl.viewing !== null;
    $("#hint").disabled = !ctrl.playable();
    // Before every player has moved, nobody has lost anything yet: Abort, not Resign.
    $("#resign").hidden = !mySeats.length || state.status === "waiting" || state.can_abort;
    $("#resign").disabled = state.over;
    $("#resign").textContent = t(abandonable(state) ? "action.abandon" : "action.resign");
    $("#abort").hidden = !mySeats.length || !state.can_abort;
  };
}
