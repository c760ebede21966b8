// The ratings page: players by rating, one list per category (a rated variant), the
// established players first and, apart, the provisional ones ("1662?").
// Nicknames are other people's text: they only ever go into textContent.

import { catalogue, identity, ratings } from "./api.js";
import { profileLink } from "./account-api.js";
import { t, translate } from "./i18n.js";
import { variantName } from "./words.js";

export async function showRatings(root) {
  const data = await catalogue();
  root.innerHTML = `
    <section class="ratings card">
      <h1 data-i18n="ratings.title"></h1>
      <p class="hint" data-i18n="ratings.help"></p>
      <p class="hint"><a href="/rules.md" data-i18n="howto.rules"></a></p>
      <div id="rating-lists"></div>
    </section>`;
  translate(root);
  const box = root.querySelector("#rating-lists");
  let categories = [];

  function render() {
    box.replaceChildren();
    if (!categories.length) {
      const p = document.createElement("p");
      p.textContent = t("ratings.none");
      box.appendChild(p);
      return;
    }
    const me = identity();
    for (const category of categories) {
      const variant = data.variants.find((v) => v.id === category.category);
      const name = variant ? `${t(`game.${variant.game}`)} · ${variantName(variant.id)}` : category.category;
      const established = category.players.filter((p) => !p.provisional);
      const provisional = category.players.filter((p) => p.provisional);
      if (established.length) box.appendChild(list(name, established, false, category.category, me));
      if (provisional.length) box.appendChild(list(name, provisional, true, category.category, me));
    }
  }

  function list(name, players, provisional, category, me) {
    const section = document.createElement("section");
    section.className = provisional ? "rating-list provisional" : "rating-list";
    // The established list is the category's; the provisional one is named apart.
    section.dataset[provisional ? "provisional" : "category"] = category;
    const title = document.createElement(provisional ? "h3" : "h2");
    title.textContent = provisional ? `${name} · ${t("ratings.provisional")}` : name;
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    for (const key of ["ratings.rank", "ratings.player", "ratings.rating", "ratings.games"]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = t(key);
      head.appendChild(th);
    }
    const body = table.createTBody();
    players.forEach((player, i) => {
      const row = body.insertRow();
      row.dataset.player = player.player;
      if (me && me.id === player.player) row.classList.add("me");
      const rank = document.createElement("th");
      rank.scope = "row";
      rank.textContent = provisional ? "–" : String(i + 1);
      row.appendChild(rank);
      const cell = row.insertCell();
      cell.className = "nickname";
      cell.appendChild(profileLink(player.nickname));
      if (me && me.id === player.player) cell.append(` ${t("player.youMark")}`);
      const rating = row.insertCell();
      rating.className = "rating";
      rating.textContent = `${player.rating}${provisional ? "?" : ""}`;
      const games = row.insertCell();
      games.className = "games";
      games.textContent = String(player.games);
    });
    section.append(title, table);
    return section;
  }

  categories = await ratings();
  render();
  const relabel = () => {
    translate(root);
    render();
  };
  document.addEventListener("languagechange", relabel);
  return () => document.removeEventListener("languagechange", relabel);
}
