// A player's page (/@/NICK): rating per category with its graph over time (drawn here as
// SVG), games played and won, their online games newest first, a page at a time, each
// with its replay and its review on the analysis board; on one's own page also the
// games in progress. Nicknames are other people's text: only ever textContent.

import { catalogue } from "./api.js";
import { profile, ratingText } from "./account-api.js";
import { t, translate } from "./i18n.js";
import { variantName } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** The rating after each rated game as a line, with the lowest and highest marked. */
export function ratingGraph(history, label) {
  const width = 320;
  const height = 120;
  const pad = { left: 40, right: 8, top: 10, bottom: 16 };
  const values = history.map((p) => p.rating);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 40) {
    const middle = (high + low) / 2;
    low = middle - 20;
    high = middle + 20;
  }
  const x = (i) => pad.left + (values.length === 1 ? 0 : (i * (width - pad.left - pad.right)) / (values.length - 1));
  const y = (v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-graph", role: "img" });
  graph.setAttribute("aria-label", label);
  for (const v of [low, high]) {
    graph.appendChild(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }));
    const text = svg("text", { x: pad.left - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" });
    text.textContent = String(Math.round(v));
    graph.appendChild(text);
  }
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  graph.appendChild(svg("polyline", { points, class: "line", fill: "none" }));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 3, class: "point" });
    const title = svg("title");
    title.textContent = String(v);
    dot.appendChild(title);
    graph.appendChild(dot);
  });
  return graph;
}

function gameRow(game, variants) {
  const li = document.createElement("li");
  li.className = "profile-game";
  li.dataset.table = game.id;
  const variant = variants.find((v) => v.id === game.variant);
  const what = document.createElement("span");
  const players = game.players.filter((p) => p.kind === "online").map((p) => p.nickname || "?").join(" – ");
  const outcome = game.status === "aborted" ? t("profile.aborted") : game.place ? t("profile.place", { place: game.place }) : game.status === "over" ? "" : t(`profile.${game.status}`);
  what.textContent = `${new Date(game.at).toLocaleDateString()} · ${variant ? variantName(variant.id) : game.variant} · ${players}${outcome ? ` · ${outcome}` : ""}${game.rated ? ` · ${t("lobby.ratedShort")}` : ""}`;
  const replay = document.createElement("a");
  replay.href = `/table/${encodeURIComponent(game.id)}`;
  replay.dataset.link = "";
  replay.className = "replay";
  replay.textContent = game.status === "over" || game.status === "aborted" ? t("profile.replay") : t("profile.open");
  li.append(what, " ", replay);
  if (game.status === "over") {
    const review = document.createElement("a");
    review.href = `/analysis?table=${encodeURIComponent(game.id)}`;
    review.dataset.link = "";
    review.className = "review";
    review.textContent = t("profile.review");
    li.append(" ", review);
  }
  return li;
}

export async function showProfile(root, nickname) {
  const { variants } = await catalogue();
  root.innerHTML = `
    <section class="profile card">
      <h1 id="profile-name"></h1>
      <p class="hint" id="profile-summary"></p>
      <div id="profile-ratings"></div>
      <section id="profile-progress" hidden><h2 data-i18n="profile.inProgress"></h2><ul class="profile-games"></ul></section>
      <h2 data-i18n="profile.games"></h2>
      <ul class="profile-games" id="profile-games"></ul>
      <nav class="pager"><button type="button" id="newer" data-i18n="profile.newer"></button>
        <button type="button" id="older" data-i18n="profile.older"></button></nav>
    </section>`;
  translate(root);
  let page = 0;
  let data = null;

  function render() {
    const $ = (s) => root.querySelector(s);
    if (!data) {
      $("#profile-name").textContent = nickname;
      $("#profile-summary").textContent = t("profile.none");
      root.querySelector(".pager").hidden = true;
      return;
    }
    $("#profile-name").textContent = data.player.nickname;
    $("#profile-summary").textContent = t("profile.summary", { played: data.played, won: data.won });
    const box = $("#profile-ratings");
    box.replaceChildren();
    for (const rating of data.ratings) {
      const variant = variants.find((v) => v.id === rating.category);
      const section = document.createElement("section");
      section.className = "profile-rating";
      section.dataset.category = rating.category;
      const title = document.createElement("h2");
      const name = variant ? `${t(`game.${variant.game}`)} · ${variantName(variant.id)}` : rating.category;
      title.textContent = `${name}: ${ratingText(rating)}`;
      const games = document.createElement("p");
      games.className = "hint";
      games.textContent = t("profile.ratedGames", { games: rating.games });
      section.append(title, games);
      if (rating.history.length > 1) section.appendChild(ratingGraph(rating.history, t("profile.graph", { name })));
      box.appendChild(section);
    }
    $("#profile-games").replaceChildren(...data.games.map((g) => gameRow(g, variants)));
    if (!data.games.length) {
      const li = document.createElement("li");
      li.className = "hint";
      li.textContent = t("profile.noGames");
      $("#profile-games").appendChild(li);
    }
    const progress = $("#profile-progress");
    progress.hidden = !(data.in_progress && data.in_progress.length);
    progress.querySelector("ul").replaceChildren(...(data.in_progress || []).map((g) => gameRow(g, variants)));
    $("#newer").disabled = page === 0;
    $("#older").disabled = !data.more;
  }

  async function load() {
    data = await profile(nickname, page);
    render();
  }
  root.querySelector("#newer").addEventListener("click", () => { page = Math.max(0, page - 1); load(); });
  root.querySelector("#older").addEventListener("click", () => { page += 1; load(); });
  await load();
  const relabel = () => {
    translate(root);
    render();
  };
  document.addEventListener("languagechange", relabel);
  return () => document.removeEventListener("languagechange", relabel);
}
