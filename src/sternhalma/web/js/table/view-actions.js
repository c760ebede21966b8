// The buttons under the players: undo and hint (against the computer), abort before
// everyone has moved, resign after.

import { ask } from "../dialogs.js";
import { t } from "../i18n.js";

export function actionsView($, ctrl) {
  $("#undo").addEventListener("click", () => ctrl.undo());
  $("#hint").addEventListener("click", () => ctrl.askHint());
  $("#resign").addEventListener("click", async () => {
    if (await ask(t("confirm.resign"), t("action.resign"), t("confirm.cancel"))) ctrl.resign();
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
    $("#abort").hidden = !mySeats.length || !state.can_abort;
  };
}
