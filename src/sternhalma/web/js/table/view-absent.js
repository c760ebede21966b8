// The countdowns that can end a game, shown to everyone at the table, clock or no clock
// (docs/protocol.md "countdowns"): a first move awaited (the game is then aborted) and a
// player who left (the others may then claim the seat: the win or a draw with two
// players, the computer or out with more). Waiting is doing nothing.

import { t } from "../i18n.js";
import { colourName } from "../words.js";
import { formatClock } from "./view-clocks.js";

export function absentView($, ctrl) {
  const box = $("#countdowns");

  function claims(seat) {
    const two = ctrl.state.seats.length === 2;
    const kinds = two ? ["win", "draw"] : ["computer", "out"];
    const row = document.createElement("div");
    row.className = "claims";
    for (const kind of kinds) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.claim = kind;
      button.textContent = t(`claim.${kind}`);
      button.addEventListener("click", () => ctrl.claim(seat, kind));
      row.appendChild(button);
    }
    const wait = document.createElement("span");
    wait.className = "hint";
    wait.textContent = t("claim.wait");
    row.appendChild(wait);
    return row;
  }

  /** Whether this browser's player may claim: seated and still in the game. */
  function mayClaim() {
    const { state, mySeats } = ctrl;
    return mySeats.some((s) => state.seats[s] && state.seats[s].status === "playing" && state.seats[s].kind === "online");
  }

  let shown = ""; // what the buttons were last drawn for (they are not redrawn every tick)
  function render() {
    const state = ctrl.state;
    const countdowns = state && !state.over ? state.countdowns || [] : [];
    box.hidden = !countdowns.length;
    if (!countdowns.length) {
      box.replaceChildren();
      shown = "";
      return;
    }
    const lines = countdowns.map((c) => {
      const left = Math.max(0, ctrl.countdownLeft(c));
      const who = colourName(state.seats[c.seat].colour);
      return { c, left, who };
    });
    const key = lines.map(({ c, left }) => `${c.kind}:${c.seat}:${left > 0}`).join(",") + mayClaim();
    if (key !== shown) {
      shown = key;
      box.replaceChildren();
      for (const { c, left } of lines) {
        const p = document.createElement("p");
        p.className = `countdown countdown-${c.kind}`;
        p.dataset.seat = c.seat;
        box.appendChild(p);
        if (c.kind === "absent" && left <= 0 && mayClaim() && !ctrl.mySeats.includes(c.seat)) box.appendChild(claims(c.seat));
      }
    }
    lines.forEach(({ c, left, who }, i) => {
      const p = box.querySelectorAll("p.countdown")[i];
      const time = formatClock(left).replace(/\.\d$/, "");
      if (c.kind === "first-move") p.textContent = t("countdown.firstMove", { who, time });
      else p.textContent = left > 0 ? t("countdown.absent", { who, time }) : t("countdown.claimable", { who });
    });
  }

  const ticker = setInterval(() => ctrl.state && render(), 250);
  return { render, stop: () => clearInterval(ticker) };
}
