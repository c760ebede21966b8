// The lobby: choose the game, the variant, where it is played (on this screen or online
// by link), who sits where, the clock and rated or casual; start; see the records and the
// online tables waiting for players.

import { option, storedObject } from "./dom.js";
import { catalogue, createTable, identity, openTables } from "./api.js";
import { browserEngine, createLocalTable } from "./engine.js";
import { ratingBadge, unratedForMe } from "./account-api.js";
import { LIVE_SECTION, showLive } from "./lobby-live.js";
import { swatch } from "./svg.js";
import { fillTableCards } from "./table-cards.js";
import { has, t, translate } from "./i18n.js";
import { recordsFor } from "./records.js";
import { showPool } from "./pool.js";
import { noteProvisional } from "./rated-notes.js";
import { colourName, variantName } from "./words.js";

/** The clocks the lobby offers (minutes + seconds per move); "" is no clock. */
export const CLOCKS = ["", "1+0", "3+2", "5+3", "10+5", "15+10", "30+20"];
const CHOICES = "sternhalma.lobby";

export function clockName(control) {
  return control ? t("clock.control", { control }) : t("clock.none");
}

export async function showLobby(root, navigate) {
  const data = await catalogue();
  const choice = { game: "chinese-checkers", variant: "classic-2", where: "here", seats: {}, clock: "5+3", rated: true, ...storedObject(CHOICES) };
  root.innerHTML = `
    <section class="lobby">
      <div class="intro">
        <h1 data-i18n="lobby.title"></h1>
        <p class="tagline" id="tagline"></p>
      </div>
      <section id="pool-card" class="card pool" aria-labelledby="pool-title"></section>
      <form id="new-game" class="card">
        <fieldset class="games">
          <legend data-i18n="lobby.game"></legend>
          ${data.games.map((g) => `
            <label class="game-choice"><input type="radio" name="game" value="${g}">
              <span data-i18n="game.${g}"></span></label>`).join("")}
        </fieldset>
        <label class="field"><span data-i18n="lobby.variant"></span>
          <select id="variant" name="variant"></select></label>
        <fieldset class="games">
          <legend data-i18n="lobby.where"></legend>
          <label class="game-choice"><input type="radio" name="where" value="here"><span data-i18n="lobby.here"></span></label>
          <label class="game-choice"><input type="radio" name="where" value="online"><span data-i18n="lobby.online"></span></label>
        </fieldset>
        <p class="hint" id="engine-note" role="status"></p>
        <fieldset class="seats">
          <legend data-i18n="lobby.seats"></legend>
          <p class="hint" id="seats-help"></p>
          <div id="seat-list"></div>
        </fieldset>
        <label class="check" id="deadline-field"><input type="checkbox" id="deadline-rule" name="deadline-rule">
          <span id="deadline-label"></span></label>
        <div id="online-options" class="online-options">
          <label class="field"><span data-i18n="lobby.nickname"></span>
            <input id="nickname" name="nickname" maxlength="24" autocomplete="nickname"></label>
          <label class="field"><span data-i18n="lobby.mySeat"></span>
            <select id="my-seat" name="my-seat"></select></label>
          <label class="field"><span data-i18n="lobby.clock"></span>
            <select id="clock" name="clock"></select></label>
          <label class="check"><input type="checkbox" id="rated" name="rated"> <span data-i18n="lobby.rated"></span></label>
          <p class="hint" id="rated-note"></p>
        </div>
        <p class="error" id="lobby-error" role="alert"></p>
        <button type="submit" class="primary" id="start" data-i18n="lobby.start"></button>
      </form>
      <section class="card open-tables" aria-labelledby="open-title">
        <h2 id="open-title" data-i18n="lobby.open"></h2>
        <div id="open-list"></div>
        <p><a href="/ratings" data-link data-i18n="nav.ratings"></a></p>
      </section>
      ${LIVE_SECTION}
      <section class="card records" aria-labelledby="records-title">
        <h2 id="records-title" data-i18n="records.title"></h2>
        <p class="hint" data-i18n="records.help"></p>
        <div id="records"></div>
      </section>
      <section class="card">
        <h2 data-i18n="lobby.learn"></h2>
        <ul class="howto-links">
          ${data.games.map((g) => `<li><a href="/how-to-play/${g}" data-link data-i18n="howto.link.${g}"></a></li>`).join("")}
        </ul>
        <p class="hint" data-i18n="lobby.private"></p>
      </section>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);
  const form = $("#new-game");
  const variantSelect = $("#variant");
  const me = identity();
  $("#nickname").value = choice.nickname || (me ? me.nickname : "");

  const variantsOf = (game) => data.variants.filter((v) => v.game === game);
  const current = () => data.variants.find((v) => v.id === variantSelect.value);
  const online = () => choice.where === "online";
  // Local games run in this browser when it can (docs/browser.md), else on the server.
  const inBrowser = browserEngine(data);

  function fillVariants() {
    const list = variantsOf(choice.game);
    variantSelect.replaceChildren(...list.map((v) => option(v.id, variantName(v.id))));
    variantSelect.value = list.some((v) => v.id === choice.variant) ? choice.variant : list[0].id;
  }

  function seatOptions() {
    const computers = data.levels.map((l) => [`computer:${l}`, t("seat.computer", { level: t(`level.${l}`) })]);
    return online() ? [["online", t("seat.online")], ...computers] : [["person", t("seat.person")], ...computers];
  }

  function fillSeats() {
    const variant = current();
    const list = $("#seat-list");
    list.replaceChildren();
    const options = seatOptions();
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
      for (const [value, text] of options) select.appendChild(option(value, text));
      const key = `${choice.where}:${variant.id}:${i}`;
      const remembered = choice.seats[key];
      const first = online() ? "online" : "person";
      select.value = remembered && options.some(([v]) => v === remembered) ? remembered : i === 0 || online() ? first : `computer:${data.levels[0]}`;
      select.addEventListener("change", () => {
        choice.seats[key] = select.value;
        save();
        fillOnline();
      });
      row.append(label, select);
      list.appendChild(row);
    });
    $("#seats-help").textContent = t(online() ? "lobby.seatsHelpOnline" : "lobby.seatsHelp");
    fillOnline();
  }

  function seatValues() {
    return [...root.querySelectorAll("#seat-list select")].map((s) => s.value);
  }

  /** The leaving-home rule: on by default, off only in a casual game (rules.md#leaving-home-in-time). */
  function fillDeadline() {
    const variant = current();
    $("#deadline-field").hidden = variant.deadline === null;
    $("#deadline-label").textContent = t("lobby.deadlineRule", { moves: variant.deadline });
    const rule = $("#deadline-rule");
    const rated = online() && $("#rated").checked;
    rule.disabled = rated;
    rule.checked = rated || choice.deadlineRule !== false;
    rule.title = rated ? t("lobby.deadlineRated") : "";
  }

  /** Where this game runs: in this browser or on the server; online play needs the network. */
  function fillEngine() {
    const offline = !navigator.onLine;
    const key = online() ? (offline ? "lobby.needsNetwork" : null) : inBrowser ? "lobby.engineBrowser" : "lobby.engineServer";
    $("#engine-note").textContent = key ? t(key) : "";
    $("#engine-note").dataset.engine = online() ? "online" : inBrowser ? "browser" : "server";
    $("#start").disabled = online() && offline;
  }

  function fillOnline() {
    fillEngine();
    $("#online-options").hidden = !online();
    fillDeadline();
    if (!online()) return;
    const variant = current();
    const values = seatValues();
    const mine = $("#my-seat");
    const keep = mine.value;
    mine.replaceChildren(
      ...values.map((v, i) => [v, i]).filter(([v]) => v === "online").map(([, i]) => option(String(i), colourName(variant.seats[i]))),
    );
    if ([...mine.options].some((o) => o.value === keep)) mine.value = keep;
    const clock = $("#clock");
    if (!clock.options.length) for (const c of CLOCKS) clock.appendChild(option(c, clockName(c)));
    else for (const o of clock.options) o.textContent = clockName(o.value);
    clock.value = CLOCKS.includes(choice.clock) ? choice.clock : "5+3";
    const rated = $("#rated");
    const reason = variant.teams.length ? "lobby.unratedPairs" : values.some((v) => v !== "online") ? "lobby.unratedComputer" : null;
    rated.disabled = reason !== null;
    rated.checked = reason === null && choice.rated;
    $("#rated-note").textContent = reason ? t(reason) : t("lobby.ratedHelp");
    if (!reason && rated.checked) noteProvisional($("#rated-note"), variant.id);
    fillDeadline();
  }

  function fillRecords() {
    const rows = recordsFor(choice.game);
    const box = $("#records");
    if (!rows.length) {
      box.innerHTML = `<p data-i18n="records.none"></p>`;
    } else {
      box.innerHTML = `<table>
        <thead><tr><th scope="col" data-i18n="records.players"></th><th scope="col" data-i18n="records.played"></th>
        <th scope="col" data-i18n="records.won"></th><th scope="col" data-i18n="records.fewest"></th></tr></thead>
        <tbody>${rows.map((r) => `<tr data-players="${Number(r.players)}"><th scope="row">${Number(r.players)}</th><td class="played">${Number(r.played)}</td><td class="won">${Number(r.won)}</td><td class="fewest">${r.fewest === null ? "–" : Number(r.fewest)}</td></tr>`).join("")}</tbody></table>`;
    }
    translate(box);
  }

  let open = [];
  let unreachable = false;
  async function refreshOpen() {
    try {
      open = await openTables();
      unreachable = false;
    } catch {
      open = [];
      unreachable = true;
    }
    fillOpen();
  }

  function fillOpen() {
    const list = fillTableCards($("#open-list"), open, {
      none: t(unreachable ? "lobby.listUnreachable" : "lobby.noOpen"),
      title: (table) => `${t(`game.${table.game}`)} · ${variantName(table.variant)} · ${clockName(table.clock)} · ${t(table.rated ? "lobby.ratedShort" : "lobby.casualShort")}`,
      seat: (seat, table) => {
        const who = seat.kind === "computer" ? t("player.computer", { level: t(`level.${seat.level}`) }) : seat.taken ? seat.nickname : t("seat.free");
        return seat.kind === "online" && seat.taken ? [` ${who}`, ratingBadge(table.variant, seat.player)] : [` ${who}`];
      },
      action: t("lobby.join"),
    });
    if (!list) return;
    // Said before anyone sits down: a rated table's game that would not be rated for me.
    unratedForMe(open.filter((table) => table.rated).map((table) => table.id)).then((unrated) => {
      for (const [id, reason] of Object.entries(unrated)) {
        const li = [...list.children].find((item) => item.dataset.table === id);
        if (!li || li.querySelector(".unrated-note")) continue;
        const note = document.createElement("p");
        note.className = "unrated-note hint";
        note.textContent = t("lobby.unratedForYou", { reason: t(reason === "same-address" ? "lobby.sameAddress" : "lobby.unratedOther") });
        li.insertBefore(note, li.lastChild);
      }
    });
  }

  function save() {
    choice.variant = variantSelect.value;
    localStorage.setItem(CHOICES, JSON.stringify(choice));
  }

  function update() {
    form.querySelector(`input[name="game"][value="${choice.game}"]`).checked = true;
    form.querySelector(`input[name="where"][value="${choice.where}"]`).checked = true;
    $("#tagline").textContent = t(`tagline.${choice.game}`);
    fillVariants();
    fillSeats();
    fillRecords();
    fillOpen();
  }

  form.addEventListener("change", (event) => {
    const target = event.target;
    if (target.name === "game") {
      choice.game = target.value;
      update();
      save();
    } else if (target.name === "where") {
      choice.where = target.value;
      save();
      fillSeats();
    } else if (target === variantSelect) {
      save();
      fillSeats();
    } else if (target.id === "clock") {
      choice.clock = target.value;
      save();
    } else if (target.id === "rated") {
      choice.rated = target.checked;
      save();
      fillDeadline();
    } else if (target.id === "deadline-rule") {
      choice.deadlineRule = target.checked;
      save();
    } else if (target.id === "nickname") {
      choice.nickname = target.value.trim();
      save();
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const seats = seatValues().map((value) =>
      value === "person" || value === "online" ? { kind: value } : { kind: "computer", level: value.split(":")[1] },
    );
    const body = { variant: variantSelect.value, seats };
    if (current().deadline !== null) body.deadline_rule = $("#deadline-rule").checked;
    if (online()) {
      const mine = $("#my-seat");
      if (!mine.value) {
        $("#lobby-error").textContent = t("lobby.needOnlineSeat");
        return;
      }
      body.nickname = $("#nickname").value;
      body.sit = Number(mine.value);
      body.clock = $("#clock").value || null;
      body.rated = $("#rated").checked;
      const who = identity();
      if (who) body.identity = who.secret;
    }
    save();
    const button = $("#start");
    button.disabled = true;
    try {
      const table = online() || !inBrowser ? await createTable(body) : createLocalTable(body);
      navigate(`/table/${table.id}`);
    } catch (error) {
      const reason = has(`error.${error.code}`) ? t(`error.${error.code}`) : error.message;
      $("#lobby-error").textContent = t("error.start", { reason });
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
  window.addEventListener("online", fillEngine);
  window.addEventListener("offline", fillEngine);
  update();
  const leavePool = showPool($("#pool-card"), navigate, data);
  refreshOpen();
  const timer = setInterval(refreshOpen, 5000);
  const stopLive = showLive($("#live-list"));
  return () => {
    leavePool();
    clearInterval(timer);
    stopLive();
    document.removeEventListener("languagechange", relabel);
    window.removeEventListener("online", fillEngine);
    window.removeEventListener("offline", fillEngine);
  };
}
