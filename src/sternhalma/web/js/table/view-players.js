// The players: colour, who sits there, whose turn it is, their clock, how far they are,
// whether an online player is here, and a free online seat's Sit button.

import { ratingBadge } from "../account-api.js";
import { place, t } from "../i18n.js";
import { swatch } from "../svg.js";
import { colourName } from "../words.js";

/** "You", "Computer (Easy)", "Ayşe (you)", "Free seat": who sits on ``seats[index]``. */
export function playerName(ctrl, seat, index) {
  if (seat.kind === "computer") return t("player.computer", { level: t(`level.${seat.level}`) });
  if (seat.kind === "online") {
    if (!seat.taken) return t("seat.free");
    return ctrl.mySeats.includes(index) ? t("player.nickYou", { name: seat.nickname }) : seat.nickname;
  }
  const people = ctrl.state.seats.filter((s) => s.kind === "person").length;
  return people === 1 && ctrl.mySeats.length ? t("player.you") : t("player.person");
}

export function playersView($, ctrl) {
  function sitDown(seat) {
    const nickname = $("#sit-nickname");
    if (!ctrl.sit(seat, nickname.value.trim())) nickname.focus();
  }

  function row(seat, i) {
    const state = ctrl.state;
    const li = document.createElement("li");
    li.className = "player";
    li.dataset.colour = seat.colour;
    if (state.turn === i && !state.over) {
      li.classList.add("turn");
      li.setAttribute("aria-current", "true");
    }
    const name = document.createElement("div");
    name.className = "name";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = `${colourName(seat.colour)} · ${playerName(ctrl, seat, i)}`;
    name.append(swatch(seat.colour), who);
    if (seat.kind === "online" && seat.taken) who.appendChild(ratingBadge(state.variant, seat.player));
    if (state.clock) {
      const clock = document.createElement("span");
      clock.className = "clock";
      clock.dataset.seat = i;
      clock.setAttribute("role", "timer");
      clock.setAttribute("aria-label", t("clock.label", { colour: colourName(seat.colour) }));
      if (state.clock.running === i) clock.classList.add("running");
      name.appendChild(clock);
    }
    if (seat.kind === "online" && !seat.taken && !ctrl.mySeats.length && state.status === "waiting") {
      const sit = document.createElement("button");
      sit.type = "button";
      sit.className = "primary sit";
      sit.dataset.seat = i;
      sit.textContent = t("online.sit");
      sit.setAttribute("aria-label", t("online.sitAs", { colour: colourName(seat.colour) }));
      sit.addEventListener("click", () => sitDown(i));
      name.appendChild(sit);
    }
    const detail = document.createElement("div");
    detail.className = "detail";
    const bits = [];
    if (seat.home !== undefined) bits.push(t(`seat.home.${ctrl.variant.game}`, { n: seat.home, of: seat.of }));
    if (seat.captured !== undefined) bits.push(t("seat.captured", { n: seat.captured }));
    if (seat.status === "finished" && seat.place) bits.push(t("seat.finished", { place: place(seat.place) }));
    else if (seat.status === "out") bits.push(t("seat.out"));
    else if (seat.status === "resigned") bits.push(t("seat.resigned"));
    else if (seat.status === "flagged") bits.push(t("seat.flagged"));
    detail.textContent = bits.join(" · ");
    if (seat.kind === "online" && seat.taken) {
      const here = document.createElement("span");
      const present = (state.present || []).includes(i);
      here.className = `presence ${present ? "here" : "away"}`;
      here.textContent = t(present ? "online.here" : "online.away");
      detail.prepend(here, bits.length ? " · " : "");
    }
    li.append(name, detail);
    return li;
  }

  return function render() {
    $("#players").replaceChildren(...ctrl.state.seats.map(row));
  };
}
