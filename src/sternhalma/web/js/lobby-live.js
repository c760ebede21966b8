// The lobby's list of games being played (/api/live): variant, players with their
// ratings where known, the move, spectators; the best-rated first. Any game opens as a
// spectator; "Watch" follows the best-rated one (watch.js).

import { t, translate } from "./i18n.js";
import { swatch } from "./svg.js";
import { variantName } from "./words.js";

export const LIVE_SECTION = `
      <section class="card live-games" aria-labelledby="live-title">
        <h2 id="live-title" data-i18n="live.title"></h2>
        <div id="live-list"></div>
        <p><a href="/watch" data-link class="button" data-i18n="live.watch"></a></p>
      </section>`;

/** Games being played, the best-rated first. */
export async function liveGames() {
  const response = await fetch("/api/live");
  return response.ok ? (await response.json()).games : [];
}

function seatText(seat) {
  const who = seat.kind === "computer" && !seat.nickname ? t("player.computer", { level: t(`level.${seat.level}`) }) : seat.nickname;
  if (seat.rating === null) return who;
  return `${who} (${seat.rating}${seat.provisional ? "?" : ""})`;
}

/** Fills ``box`` with the live list now and every few seconds; returns the stop. */
export function showLive(box) {
  let games = [];
  function fill() {
    box.replaceChildren();
    if (!games.length) {
      const p = document.createElement("p");
      p.className = "hint";
      p.textContent = t("live.none");
      box.appendChild(p);
      return;
    }
    const list = document.createElement("ul");
    list.className = "open-list";
    for (const game of games) {
      const li = document.createElement("li");
      li.dataset.table = game.id;
      const title = document.createElement("div");
      title.className = "open-title";
      title.textContent = `${t(`game.${game.game}`)} · ${variantName(game.variant)} · ${t("live.move", { n: game.moves + 1 })} · ${t("live.spectators", { n: game.spectators })}`;
      const seats = document.createElement("div");
      seats.className = "open-seats";
      for (const seat of game.seats) {
        const span = document.createElement("span");
        span.className = "open-seat";
        span.append(swatch(seat.colour, 16), ` ${seatText(seat)}`);
        seats.appendChild(span);
      }
      const watch = document.createElement("a");
      watch.href = `/table/${encodeURIComponent(game.id)}`;
      watch.dataset.link = "";
      watch.className = "button";
      watch.textContent = t("live.open");
      li.append(title, seats, watch);
      list.appendChild(li);
    }
    box.appendChild(list);
  }
  async function refresh() {
    try {
      games = await liveGames();
    } catch {
      games = [];
    }
    fill();
  }
  refresh();
  const timer = setInterval(refresh, 5000);
  const relabel = () => fill();
  document.addEventListener("languagechange", relabel);
  translate(box.parentElement);
  return () => {
    clearInterval(timer);
    document.removeEventListener("languagechange", relabel);
  };
}
