// The lobby's list of games being played (/api/live): variant, players with their
// ratings where known, the move, spectators; the best-rated first. Any game opens as a
// spectator; "Watch" follows the best-rated one (watch.js).

import { t, translate } from "./i18n.js";
import { fillTableCards } from "./table-cards.js";
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
  let unreachable = false;
  function fill() {
    fillTableCards(box, games, {
      none: t(unreachable ? "lobby.listUnreachable" : "live.none"),
      title: (game) => `${t(`game.${game.game}`)} · ${variantName(game.variant)} · ${t("live.move", { n: game.moves + 1 })} · ${t("live.spectators", { n: game.spectators })}`,
      seat: (seat) => [` ${seatText(seat)}`],
      action: t("live.open"),
    });
  }
  async function refresh() {
    try {
      games = await liveGames();
      unreachable = false;
    } catch {
      games = [];
      unreachable = true;
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
