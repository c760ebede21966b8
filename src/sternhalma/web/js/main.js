// The single-page app: language, routes (lobby, table, how to play) and links.

import { catalogue } from "./api.js";
import { LANGUAGES, language, preferredLanguage, setLanguage, t, translate } from "./i18n.js";
import { showAccount } from "./account.js";
import { showAnalysis } from "./analysis.js";
import { showHowTo } from "./howto.js";
import { showLearn } from "./learn.js";
import { showLobby } from "./lobby.js";
import { showProfile } from "./profile.js";
import { showPuzzle } from "./puzzle.js";
import { showPuzzles } from "./puzzles.js";
import { showRatings } from "./ratings.js";
import { showRulesText } from "./rules-page.js";
import { showTable } from "./table/page.js";
import { showWatch } from "./watch.js";

const app = document.getElementById("app");
let leave = null;
const served = app.dataset.page ? { page: app.dataset.page, path: location.pathname } : null;
let replaced = false;

// Routes render one after another: a page whose data is slow to come (the lobby's) must
// not draw itself over the page the player went on to meanwhile.
let routing = Promise.resolve();

function route() {
  routing = routing.then(render, render);
  return routing;
}

async function render() {
  if (leave) leave();
  leave = null;
  // A table names its own game in the header; every other page the app's name.
  const brand = document.querySelector(".brand [data-i18n]");
  brand.dataset.i18n = "app.name";
  brand.textContent = t("app.name");
  document.title = t("app.title");
  const path = location.pathname;
  // A page the server rendered (the rules, "not found"): only translated, never replaced;
  // back at it after the app replaced it, the server is asked again.
  if (served && path === served.path) {
    if (replaced) return location.reload();
    document.body.dataset.view = served.page;
    translate(app);
    if (served.page === "rules") showRulesText(app);
    return;
  }
  replaced = Boolean(served);
  const table = path.match(/^\/table\/([\w-]+)$/);
  const howto = path.match(/^\/how-to-play\/([\w-]+)$/);
  const ratings = path === "/ratings";
  const analysis = path === "/analysis";
  const puzzle = path === "/puzzle/crossing";
  const player = path.match(/^\/@\/([^/]+)$/);
  const account = path === "/account";
  const watch = path === "/watch";
  const puzzles = path === "/puzzles";
  const learn = path === "/learn";
  document.body.dataset.view = table || watch ? "table" : howto ? "howto" : ratings ? "ratings"
    : analysis ? "analysis" : puzzle || puzzles || learn ? "puzzle" : player ? "profile"
    : account ? "account" : "lobby";
  if (table) leave = await showTable(app, table[1], navigate);
  else if (analysis) leave = await showAnalysis(app);
  else if (puzzle) leave = await showPuzzle(app);
  else if (watch) leave = await showWatch(app, navigate);
  else if (puzzles) leave = await showPuzzles(app);
  else if (learn) leave = await showLearn(app);
  else if (howto) leave = await showHowTo(app, howto[1]);
  else if (ratings) leave = await showRatings(app);
  else if (player) leave = await showProfile(app, decodeURIComponent(player[1]));
  else if (account) leave = await showAccount(app, navigate);
  else leave = await showLobby(app, navigate);
  app.focus({ preventScroll: true });
}

/** Goes to ``path`` (a link, a new table): a new page starts at its top, as a page the
 * browser loads does; back and forward leave the scroll to the browser. */
export function navigate(path) {
  const moved = path !== location.pathname + location.search;
  if (moved) history.pushState(null, "", path);
  return route().then(() => {
    if (moved) window.scrollTo(0, 0);
  });
}

document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);

const picker = document.getElementById("language");
picker.addEventListener("change", () => setLanguage(picker.value, true));

async function start() {
  await setLanguage(preferredLanguage());
  picker.value = language();
  for (const option of picker.options) option.disabled = !LANGUAGES.includes(option.value);
  await route();
  document.body.dataset.ready = "true";
  keepForOffline();
}

/** Where local games run in this browser, the service worker keeps the app for playing
 * offline (docs/browser.md); a server that plays them itself needs no copy. */
async function keepForOffline() {
  if (!("serviceWorker" in navigator)) return;
  try {
    if ((await catalogue()).engine === "browser") await navigator.serviceWorker.register("/sw.js");
  } catch {
    // Offline before any visit, or a browser that refuses: the app works without it.
  }
}

start();
