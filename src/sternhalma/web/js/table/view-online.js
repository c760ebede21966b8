// What a table says about itself and its people: online or not, the clock, rated or
// casual; while it waits, the link to share, the nickname to sit down with and Leave;
// who is watching.

import { identity } from "../api.js";
import { unratedForMe } from "../account-api.js";
import { t } from "../i18n.js";
import { clockName } from "../lobby.js";

export function onlineView($, ctrl) {
  $("#sit-nickname").value = identity()?.nickname ?? "";
  $("#leave").addEventListener("click", () => ctrl.leave());
  $("#copy-link").addEventListener("click", async () => {
    const input = $("#share-link");
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand && document.execCommand("copy");
    }
    ctrl.say(t("online.copied"));
  });

  // Before sitting down at a rated table: would my game here be rated? (asked once a version)
  let askedAt = null;
  let unratedForMeHere = null;

  return function render() {
    const { state, mySeats } = ctrl;
    if (state.rated && state.status === "waiting" && !mySeats.length && askedAt !== state.v) {
      askedAt = state.v;
      unratedForMe([ctrl.id]).then((unrated) => {
        unratedForMeHere = unrated[ctrl.id] || null;
        render();
      });
    }
    const waiting = state.status === "waiting";
    $("#waiting").hidden = !waiting;
    // The address the browser used, or the one the server was told people reach it at.
    $("#share-link").value = `${ctrl.publicUrl || location.origin}/table/${ctrl.id}`;
    const loopback = /^(localhost|127\.|\[::1\])/.test(location.hostname);
    $("#share-local").hidden = !waiting || Boolean(ctrl.publicUrl) || !loopback;
    $("#sit-form").hidden = !waiting || mySeats.length > 0;
    $("#leave").hidden = !waiting || !mySeats.length;
    const info = [];
    if (state.online) info.push(t("online.table"));
    if (state.clock || state.online) info.push(clockName(state.clock ? state.clock.control : ""));
    if (state.online) info.push(t(state.rated ? "lobby.ratedShort" : "lobby.casualShort"));
    if (state.unrated) info.push(t("rating.unrated", { reason: t("rating.sameAddress") }));
    else if (unratedForMeHere && waiting && !mySeats.length) info.push(t("lobby.unratedForYou", { reason: t("lobby.sameAddress") }));
    if (state.deadline_rule === false) info.push(t("table.deadlineOff"));
    $("#table-info").textContent = info.join(" · ");
    const watching = $("#watching");
    const others = state.watchers - (mySeats.length ? 0 : 1);
    watching.textContent = [
      mySeats.length ? "" : t(waiting ? "online.notSeated" : "online.watching"),
      others > 0 ? t("online.watchers", { n: others }) : "",
    ].filter(Boolean).join(" ");
    watching.hidden = !state.online || !watching.textContent;
  };
}
