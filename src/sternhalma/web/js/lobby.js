// The lobby: choose the game, the variant and who sits where; start; see the records.

import { catalogue, createTable } from "./api.js";
import { swatch } from "./board.js";
import { t, translate } from "./i18n.js";
import { recordsFor } from "./records.js";
import { colourName, variantName } from "./words.js";

export const GAMES = ["chinese-checkers", "capture", "halma"];
const CHOICES = "sternhalma.lobby";

function saved() {
  try {
    return JSON.parse(localStorage.getItem(CHOICES)) || {};
  } catch {
    return {};
  }
}

export async function showLobby(root, navigate) {
  const data = await catalogue();
  const choice = { game: "chinese-checkers", variant: "classic-2", seats: {}, ...saved() };
  root.innerHTML = `
    <section class="lobby">
      <div class="intro">
        <h1 data-i18n="lobby.title"></h1>
        <p class="tagline" id="tagline"></p>
      </div>
      <form id="new-game" class="card">
        <fieldset class="games">
          <legend data-i18n="lobby.game"></legend>
          ${GAMES.map((g) => `
            <label class="game-choice"><input type="radio" name="game" value="${g}">
              <span data-i18n="game.${g}"></span></label>`).join("")}
        </fieldset>
        <label class="field"><span data-i18n="lobby.variant"></span>
          <select id="variant" name="variant"></select></label>
        <fieldset class="seats">
          <legend data-i18n="lobby.seats"></legend>
          <p class="hint" data-i18n="lobby.seatsHelp"></p>
          <div id="seat-list"></div>
        </fieldset>
        <p class="error" id="lobby-error" role="alert"></p>
        <button type="submit" class="primary" id="start" data-i18n="lobby.start"></button>
      </form>
      <section class="card records" aria-labelledby="records-title">
        <h2 id="records-title" data-i18n="records.title"></h2>
        <p class="hint" data-i18n="records.help"></p>
        <div id="records"></div>
      </section>
      <section class="card">
        <h2 data-i18n="lobby.learn"></h2>
        <ul class="howto-links">
          ${GAMES.map((g) => `<li><a href="/how-to-play/${g}" data-link data-i18n="howto.link.${g}"></a></li>`).join("")}
        </ul>
        <p class="hint" data-i18n="lobby.private"></p>
      </section>
    </section>`;
  translate(root);
  const form = root.querySelector("#new-game");
  const variantSelect = root.querySelector("#variant");

  const variantsOf = (game) => data.variants.filter((v) => v.game === game);
  const current = () => data.variants.find((v) => v.id === variantSelect.value);

  function fillVariants() {
    const list = variantsOf(choice.game);
    variantSelect.replaceChildren(
      ...list.map((v) => {
        const option = document.createElement("option");
        option.value = v.id;
        option.textContent = variantName(v.id);
        return option;
      }),
    );
    variantSelect.value = list.some((v) => v.id === choice.variant) ? choice.variant : list[0].id;
  }

  function fillSeats() {
    const variant = current();
    const list = root.querySelector("#seat-list");
    list.replaceChildren();
    variant.seats.forEach((colour, i) => {
      const row = document.createElement("div");
      row.className = "seat-row";
      const id = `seat-${i}`;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.append(swatch(colour), " ", colourName(colour));
      const select = document.createElement("select");
      select.id = id;
      select.name = id;
      select.dataset.colour = colour;
      const options = [["person", t("seat.person")], ...data.levels.map((l) => [`computer:${l}`, t("seat.computer", { level: t(`level.${l}`) })])];
      for (const [value, text] of options) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = text;
        select.appendChild(option);
      }
      const remembered = choice.seats[`${variant.id}:${i}`];
      select.value = remembered && options.some(([v]) => v === remembered) ? remembered : i === 0 ? "person" : `computer:${data.levels[0]}`;
      select.addEventListener("change", () => {
        choice.seats[`${variant.id}:${i}`] = select.value;
        save();
      });
      row.append(label, select);
      list.appendChild(row);
    });
  }

  function fillRecords() {
    const rows = recordsFor(choice.game);
    const box = root.querySelector("#records");
    if (!rows.length) {
      box.innerHTML = `<p data-i18n="records.none"></p>`;
    } else {
      box.innerHTML = `<table>
        <thead><tr><th scope="col" data-i18n="records.players"></th><th scope="col" data-i18n="records.played"></th>
        <th scope="col" data-i18n="records.won"></th><th scope="col" data-i18n="records.fewest"></th></tr></thead>
        <tbody>${rows.map((r) => `<tr data-players="${r.players}"><th scope="row">${r.players}</th><td class="played">${r.played}</td><td class="won">${r.won}</td><td class="fewest">${r.fewest ?? "–"}</td></tr>`).join("")}</tbody></table>`;
    }
    translate(box);
  }

  function save() {
    choice.variant = variantSelect.value;
    localStorage.setItem(CHOICES, JSON.stringify(choice));
  }

  function update() {
    form.querySelector(`input[value="${choice.game}"]`).checked = true;
    root.querySelector("#tagline").textContent = t(`tagline.${choice.game}`);
    fillVariants();
    fillSeats();
    fillRecords();
  }

  form.addEventListener("change", (event) => {
    if (event.target.name === "game") {
      choice.game = event.target.value;
      update();
      save();
    } else if (event.target === variantSelect) {
      save();
      fillSeats();
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const seats = [...root.querySelectorAll("#seat-list select")].map((s) =>
      s.value === "person" ? { kind: "person" } : { kind: "computer", level: s.value.split(":")[1] },
    );
    save();
    const button = root.querySelector("#start");
    button.disabled = true;
    try {
      const table = await createTable({ variant: variantSelect.value, seats });
      navigate(`/table/${table.id}`);
    } catch (error) {
      root.querySelector("#lobby-error").textContent = t("error.start", { reason: error.message });
      button.disabled = false;
    }
  });

  const relabel = () => {
    const keep = variantSelect.value;
    update();
    variantSelect.value = keep;
    fillSeats();
  };
  document.addEventListener("languagechange", relabel);
  update();
  return () => document.removeEventListener("languagechange", relabel);
}
