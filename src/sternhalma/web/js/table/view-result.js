// The end of the game: who won and why, the places, the rating changes, the record, the
// rematch, and the links to download or analyse the game.

import { has, place, t } from "../i18n.js";
import { swatch } from "../svg.js";
import { encodeRecord } from "../analysis-link.js";
import { abandonable } from "../records.js";
import { colourName } from "../words.js";
import { playerName } from "./view-players.js";

export function resultView($, ctrl) {
  $("#rematch").addEventListener("click", () => ctrl.rematch());

  function renderPlaces() {
    const { state } = ctrl;
    const places = $("#places");
    places.replaceChildren();
    places.hidden = state.status === "aborted";
    const order = state.seats.map((s, i) => [s, i, state.result.places[i]]).sort((a, b) => (a[2] ?? 99) - (b[2] ?? 99));
    for (const [seat, i, p] of order) {
      const li = document.createElement("li");
      li.append(`${p ? place(p) : "–"} `, swatch(seat.colour, 16), ` ${colourName(seat.colour)} · ${playerName(ctrl, seat, i)}`);
      places.appendChild(li);
    }
  }

  function renderRatings() {
    const { state } = ctrl;
    const list = $("#rating-changes");
    list.replaceChildren();
    list.hidden = !state.ratings;
    for (const change of state.ratings || []) {
      const seat = state.seats[change.seat];
      const li = document.createElement("li");
      const sign = change.change > 0 ? "+" : change.change < 0 ? "−" : "±";
      // A provisional rating (too few rated games to be sure of it) shows with "?".
      const before = `${change.before}${change.before_provisional ? "?" : ""}`;
      const after = `${change.after}${change.after_provisional ? "?" : ""}`;
      li.append(swatch(seat.colour, 16), ` ${t("rating.change", { name: seat.nickname || colourName(seat.colour), before, after, change: `${sign}${Math.abs(change.change)}` })}`);
      list.appendChild(li);
    }
  }

  function renderRematch() {
    const { state, mySeats } = ctrl;
    const offers = state.rematch_offers || [];
    const mine = mySeats.some((s) => offers.includes(s));
    const button = $("#rematch");
    button.hidden = !mySeats.length || Boolean(state.rematch);
    button.disabled = mine;
    const others = offers.filter((s) => !mySeats.includes(s)).map((s) => state.seats[s].nickname || colourName(state.seats[s].colour));
    const notes = [];
    if (mine && !state.rematch) notes.push(t("online.rematchWaiting"));
    if (others.length && !state.rematch) notes.push(t("online.rematchOffer", { who: others.join(", ") }));
    $("#rematch-note").textContent = notes.join(" ");
    const link = $("#rematch-link");
    link.hidden = !state.rematch || mySeats.length > 0;
    if (state.rematch) link.href = `/table/${encodeURIComponent(state.rematch)}`;
  }

  return function render() {
    const { state, id } = ctrl;
    $("#result").hidden = !state.over;
    $("#record-note").textContent = ctrl.recorded ? t("records.updated") : ctrl.mySeats.length && state.over && abandonable(state) ? t("records.abandoned") : "";
    if (!state.over || !state.result) return;
    $("#result-title").textContent = t(state.status === "aborted" ? "result.aborted" : "result.title");
    $("#reason").textContent = resultText(ctrl);
    renderPlaces();
    renderRatings();
    renderRematch();
    // A local game's record comes from the engine in this browser, and goes to the
    // analysis board in its address (after the #: the page reads it, no request does).
    const download = $("#download");
    download.href = ctrl.local ? ctrl.recordUrl || "" : `/api/tables/${encodeURIComponent(id)}/record`;
    if (ctrl.local) download.download = `sternhalma-${state.variant}-${id}.txt`;
    download.hidden = ctrl.local && !ctrl.recordUrl;
    $("#analyse").hidden = ctrl.local && !ctrl.recordText;
    $("#analyse").href = ctrl.local ? `/analysis#record=${encodeRecord(ctrl.recordText || "")}` : `/analysis?table=${encodeURIComponent(id)}`;
  };
}

/** "White wins. Black resigned." in the current language (the server's English as a fallback). */
function resultText(ctrl) {
  const { state, variant } = ctrl;
  const result = state.result;
  const name = (seat) => colourName(state.seats[seat].colour);
  const who = result.seat === null || result.seat === undefined ? "" : name(result.seat);
  if (result.ending === "aborted") return t(`ending.aborted.${result.abort}`, { who });
  let headline;
  if (result.team_places && result.team_places.length) {
    const firsts = variant.teams.filter((_, i) => result.team_places[i] === 1);
    headline = firsts.length === 1 ? t("result.teamWins", { who: firsts[0].map(name).join(" + ") }) : t("result.draw");
  } else {
    const firsts = result.places.map((p, i) => [p, i]).filter(([p]) => p === 1);
    headline = firsts.length === 1 ? t("result.wins", { who: name(firsts[0][1]) }) : t("result.draw");
  }
  const specific = `ending.${result.ending}.${variant.game}`;
  const key = has(specific) ? specific : `ending.${result.ending}`;
  return `${headline} ${has(key) ? t(key, { who }) : result.reason}`;
}
