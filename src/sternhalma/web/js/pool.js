// "Play online": wait in a seek pool for players who never shared a link (docs/protocol.md
// "The pool"). The lobby gives this module a card; the pool's websocket lives as long as
// the page: leaving the page leaves the pool.

import { option, storedObject } from "./dom.js";
import { identity, rememberIdentity, rememberToken } from "./api.js";
import { has, t, translate } from "./i18n.js";
import { variantName } from "./words.js";

/** The clocks a pool offers; "custom" lets the player type one. */
export const POOL_CLOCKS = ["1+0", "3+2", "5+3", "10+5", "15+10"];
const CHOICES = "sternhalma.pool";

/** Fill ``card`` with the pool's form; returns a function that leaves the pool. */
export function showPool(card, navigate, data) {
  const choice = { variant: "classic-2", clock: "5+3", custom: "", rated: true, ...storedObject(CHOICES) };
  card.innerHTML = `
    <h2 id="pool-title" data-i18n="pool.title"></h2>
    <p class="hint" data-i18n="pool.help"></p>
    <form id="pool-form" class="pool-form">
      <label class="field"><span data-i18n="lobby.variant"></span>
        <select id="pool-variant"></select></label>
      <label class="field"><span data-i18n="lobby.clock"></span>
        <select id="pool-clock"></select></label>
      <label class="field" id="pool-custom-field"><span data-i18n="pool.custom"></span>
        <input id="pool-custom" maxlength="12" placeholder="7+2"></label>
      <label class="check"><input type="checkbox" id="pool-rated"> <span data-i18n="lobby.rated"></span></label>
      <label class="field"><span data-i18n="lobby.nickname"></span>
        <input id="pool-nickname" maxlength="24" autocomplete="nickname"></label>
      <p class="hint" id="pool-rated-note"></p>
      <button type="submit" class="primary" id="pool-play" data-i18n="pool.play"></button>
    </form>
    <div id="pool-waiting" class="pool-waiting" hidden>
      <p id="pool-status" role="status" aria-live="polite"></p>
      <p id="pool-count" class="pool-count"></p>
      <ul id="pool-notes" class="hint"></ul>
      <div id="pool-offer" hidden>
        <p id="pool-offer-text"></p>
        <button type="button" id="pool-computers" data-i18n="pool.acceptComputers"></button>
      </div>
      <button type="button" id="pool-leave" data-i18n="pool.leave"></button>
    </div>
    <p class="error" id="pool-error" role="alert"></p>`;
  translate(card);
  const $ = (selector) => card.querySelector(selector);
  const variants = data.variants;
  let socket = null;
  let state = null; // what the server last said about our seek
  let others = null;

  const variant = () => variants.find((v) => v.id === $("#pool-variant").value);
  const clockValue = () => ($("#pool-clock").value === "custom" ? $("#pool-custom").value.trim() : $("#pool-clock").value);

  function save() {
    localStorage.setItem(CHOICES, JSON.stringify(choice));
  }

  function fillForm() {
    const select = $("#pool-variant");
    const keep = select.value || choice.variant;
    select.replaceChildren(...variants.map((v) => option(v.id, `${t(`game.${v.game}`)} · ${variantName(v.id)}`)));
    select.value = variants.some((v) => v.id === keep) ? keep : variants[0].id;
    const clock = $("#pool-clock");
    clock.replaceChildren(...POOL_CLOCKS.map((c) => option(c, t("clock.control", { control: c }))), option("custom", t("pool.customClock")));
    clock.value = POOL_CLOCKS.includes(choice.clock) || choice.clock === "custom" ? choice.clock : "5+3";
    $("#pool-custom").value = choice.custom;
    $("#pool-custom-field").hidden = clock.value !== "custom";
    const me = identity();
    $("#pool-nickname").value = choice.nickname || (me ? me.nickname : "");
    fillRated();
  }

  /** Before a rated game: say when it would not be rated, and why (docs/ratings.md). */
  async function fillRated() {
    const rated = $("#pool-rated");
    const pairs = variant().teams.length > 0;
    rated.disabled = pairs;
    rated.checked = !pairs && choice.rated;
    const note = $("#pool-rated-note");
    if (pairs) {
      note.textContent = t("lobby.unratedPairs");
      return;
    }
    if (!rated.checked) {
      note.textContent = t("pool.casualHelp");
      return;
    }
    const lines = [t(variant().seats.length > 2 ? "pool.ratedHelpMany" : "pool.ratedHelp")];
    try {
      const me = identity();
      const response = await fetch("/api/rated-notes", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ variant: variant().id, tables: [], identity: me ? me.secret : null }),
      });
      const notes = response.ok ? await response.json() : null;
      if (notes && notes.provisional) lines.push(t("rated.provisional", { games: notes.games, needed: notes.needed }));
    } catch {
      // the note is a courtesy; the form works without it
    }
    note.textContent = lines.join(" ");
  }

  function showWaiting(waiting) {
    $("#pool-form").hidden = waiting;
    $("#pool-waiting").hidden = !waiting;
    if (!waiting) $("#pool-offer").hidden = true;
  }

  function fillWaiting() {
    if (!state) return;
    const pool = state.pool;
    const kind = `${variantName(pool.variant)} · ${t("clock.control", { control: pool.clock })} · ${t(pool.rated ? "lobby.ratedShort" : "lobby.casualShort")}`;
    $("#pool-status").textContent = t("pool.waitingFor", { kind });
    const count = others === 0 ? "pool.othersNone" : others === 1 ? "pool.othersOne" : "pool.others";
    $("#pool-count").textContent = others === null ? "" : t(count, { n: others });
    const notes = $("#pool-notes");
    notes.replaceChildren();
    for (const note of state.notes || []) {
      const li = document.createElement("li");
      li.dataset.note = note.code;
      li.textContent = note.code === "provisional" ? t("rated.provisional", { games: note.games, needed: note.needed }) : t(`rated.${note.code}`);
      notes.appendChild(li);
    }
  }

  function problem(message) {
    const reason = has(`error.${message.code}`) ? t(`error.${message.code}`) : message.message;
    $("#pool-error").textContent = reason;
  }

  function onMessage(message) {
    if (message.type === "seeking") {
      state = message;
      others = null;
      rememberIdentity(message.player);
      $("#pool-error").textContent = "";
      showWaiting(true);
      fillWaiting();
    } else if (message.type === "waiting") {
      others = message.others;
      fillWaiting();
    } else if (message.type === "computers-offer") {
      const players = state ? state.pool.players : 0;
      $("#pool-offer-text").textContent = t("pool.offer", { level: t(`level.${message.level}`), players });
      $("#pool-offer").hidden = false;
    } else if (message.type === "computers-agreed") {
      $("#pool-computers").disabled = true;
      $("#pool-offer-text").textContent = t("pool.agreed");
    } else if (message.type === "paired") {
      rememberToken(message.table, message.token);
      stop();
      navigate(`/table/${message.table}`);
    } else if (message.type === "left") {
      state = null;
      showWaiting(false);
    } else if (message.type === "error") {
      problem(message);
      if (!state) showWaiting(false);
    }
  }

  function stop() {
    if (socket) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
    state = null;
  }

  function play() {
    const me = identity();
    const seek = {
      type: "seek",
      variant: variant().id,
      clock: clockValue(),
      rated: $("#pool-rated").checked,
      nickname: $("#pool-nickname").value,
      identity: me ? me.secret : null,
    };
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    stop();
    socket = new WebSocket(`${scheme}://${location.host}/ws/pool`);
    socket.onopen = () => socket.send(JSON.stringify(seek));
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = () => {
      socket = null;
      if (state) {
        state = null;
        showWaiting(false);
        $("#pool-error").textContent = t("pool.lost");
      }
    };
  }

  card.addEventListener("change", (event) => {
    const target = event.target;
    if (target.id === "pool-variant") {
      choice.variant = target.value;
      fillRated();
    } else if (target.id === "pool-clock") {
      choice.clock = target.value;
      $("#pool-custom-field").hidden = target.value !== "custom";
    } else if (target.id === "pool-custom") {
      choice.custom = target.value.trim();
    } else if (target.id === "pool-rated") {
      choice.rated = target.checked;
      fillRated();
    } else if (target.id === "pool-nickname") {
      choice.nickname = target.value.trim();
    }
    save();
  });
  $("#pool-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save();
    if (!navigator.onLine) {
      $("#pool-error").textContent = t("lobby.needsNetwork");
      return;
    }
    $("#pool-error").textContent = "";
    play();
  });
  $("#pool-leave").addEventListener("click", () => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "leave" }));
    stop();
    showWaiting(false);
  });
  $("#pool-computers").addEventListener("click", () => {
    if (socket) socket.send(JSON.stringify({ type: "computers" }));
  });
  const relabel = () => {
    translate(card);
    fillForm();
    fillWaiting();
  };
  document.addEventListener("languagechange", relabel);
  fillForm();
  return () => {
    document.removeEventListener("languagechange", relabel);
    stop();
  };
}
