// The Watch page (/watch), like lichess TV: the best-rated game being played, as a
// spectator; when it ends, the next best-rated one after a short look at the result.

import { t, translate } from "./i18n.js";
import { liveGames } from "./lobby-live.js";
import { showTable } from "./table/page.js";

const LOOK = 5000; // ms to look at a finished game before the next

export async function showWatch(root, navigate) {
  // With nothing live the page says so under its title and offers a game of one's own;
  // it keeps looking, and the first game to start is shown.
  root.innerHTML = `<section class="watch">
    <h1 id="watch-title" data-i18n="nav.watch" hidden></h1>
    <p class="hint watch-note" id="watch-note"></p>
    <p id="watch-start" hidden><a class="button primary" href="/" data-link data-i18n="lobby.title"></a></p>
    <div id="watch-table"></div></section>`;
  translate(root);
  const note = root.querySelector("#watch-note");
  const title = root.querySelector("#watch-title");
  const start = root.querySelector("#watch-start");
  const holder = root.querySelector("#watch-table");
  let current = null;
  let leaveTable = null;
  let endedAt = null;
  let stopped = false;

  async function look() {
    let games = [];
    try {
      games = await liveGames();
    } catch {
      games = [];
    }
    if (stopped) return;
    const live = current !== null && games.some((g) => g.id === current);
    if (live) {
      endedAt = null;
      return;
    }
    if (current !== null) {
      endedAt ??= performance.now();
      if (performance.now() - endedAt < LOOK) return;
    }
    const next = games.find((g) => g.id !== current);
    start.hidden = Boolean(next);
    if (!next) {
      note.textContent = t("live.none");
      title.hidden = current !== null; // a finished game stays in view, with its own title
      return;
    }
    title.hidden = true;
    if (leaveTable) leaveTable();
    current = next.id;
    endedAt = null;
    note.textContent = t("live.following");
    // Inside the Watch page a link from the table (a rematch) opens as usual.
    leaveTable = await showTable(holder, current, navigate);
    holder.dataset.table = current;
  }

  await look();
  const timer = setInterval(look, 2000);
  return () => {
    stopped = true;
    clearInterval(timer);
    if (leaveTable) leaveTable();
  };
}
