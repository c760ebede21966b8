// The table: the board, whose turn it is, the players, the move list, undo, hint,
// resign, the end of the game and the rematch. The server is authoritative: this
// page sends intentions and draws the state that comes back (docs/protocol.md).

import { catalogue, identity, rememberIdentity, rememberToken, tokenFor, TableSocket } from "./api.js";
import { Board } from "./board.js";
import { ask, choose } from "./dialogs.js";
import { has, place, t, translate } from "./i18n.js";
import { clockName } from "./lobby.js";
import { recordGame } from "./records.js";
import { swatch } from "./svg.js";
import { colourName, thingName, variantName } from "./words.js";

/** "4:59", "0:09.4": a clock's time left (tenths in the last 10 seconds). */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  const minutes = Math.floor(left / 60000);
  const seconds = Math.floor((left % 60000) / 1000);
  const text = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return left < 10000 ? `${text}.${Math.floor((left % 1000) / 100)}` : text;
}

const NAMES_KEY = "sternhalma.holeNames";

export async function showTable(root, id, navigate) {
  const data = await catalogue();
  root.innerHTML = `
    <section class="table-view">
      <div class="table-head">
        <h1 class="table-title" id="table-title"></h1>
        <p id="table-info" class="hint table-info"></p>
        <p id="status" class="status" role="status" aria-live="polite"></p>
        <p id="notice" class="notice" role="alert"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <button type="button" id="loop" hidden></button>
        <label class="coords"><input type="checkbox" id="coords"> <span id="coords-text"></span></label>
        <p class="keys hint" id="keys"></p>
      </div>
      <aside class="side">
        <section id="waiting" class="waiting card" hidden aria-labelledby="waiting-title">
          <h2 id="waiting-title" data-i18n="online.waiting"></h2>
          <p class="hint" data-i18n="online.share"></p>
          <div class="share">
            <input id="share-link" readonly aria-labelledby="waiting-title">
            <button type="button" id="copy-link" data-i18n="online.copy"></button>
          </div>
          <label class="field" id="sit-form"><span data-i18n="lobby.nickname"></span>
            <input id="sit-nickname" maxlength="24" autocomplete="nickname"></label>
          <button type="button" id="leave" data-i18n="online.leave"></button>
        </section>
        <p id="watching" class="watching" hidden></p>
        <ol id="players" class="players"></ol>
        <div class="actions">
          <button type="button" id="undo" data-i18n="action.undo"></button>
          <button type="button" id="hint" data-i18n="action.hint"></button>
          <button type="button" id="abort" data-i18n="action.abort"></button>
          <button type="button" id="resign" data-i18n="action.resign"></button>
        </div>
        <div id="viewing" class="viewing" hidden>
          <span id="viewing-text"></span>
          <button type="button" id="back" data-i18n="action.back"></button>
        </div>
        <section id="result" class="result" hidden aria-labelledby="result-title">
          <h2 id="result-title" data-i18n="result.title"></h2>
          <p id="reason"></p>
          <ol id="places" class="places"></ol>
          <p id="record-note" class="hint"></p>
          <ul id="rating-changes" class="rating-changes" hidden></ul>
          <p id="rematch-note" class="hint"></p>
          <div class="actions">
            <button type="button" id="rematch" class="primary" data-i18n="action.rematch"></button>
            <a id="rematch-link" class="button" hidden data-link data-i18n="online.watchRematch"></a>
            <a id="download" class="button" download data-i18n="action.download"></a>
            <a id="analyse" class="button" data-link data-i18n="analysis.fromTable"></a>
            <a href="/" data-link class="button" data-i18n="action.lobby"></a>
          </div>
        </section>
        <section class="moves" aria-labelledby="moves-title">
          <h2 id="moves-title" data-i18n="moves.title"></h2>
          <ol id="move-list" class="move-list"></ol>
        </section>
      </aside>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);

  let state = null;
  let variant = null;
  let board = null;
  let mySeats = [];
  let bottomSeat = null;
  let selected = null;
  let movesFrom = new Map(); // start -> [paths]
  let targets = new Map(); // end -> [paths] for the selected marble
  let viewing = null;
  let pending = false;
  let confirming = false;
  let hint = null;
  let connection = "open";
  let receivedAt = performance.now();
  const inbox = [];
  let working = false;

  const socket = new TableSocket(
    id,
    (message) => {
      inbox.push(message);
      drain();
    },
    (status) => {
      // Open again is not yet up to date: the table may have moved on meanwhile. Until
      // the welcome brings it as it is, the board takes no moves (they would be lost).
      if (status !== "closed") return;
      connection = "closed";
      if (state && viewing === null) {
        clearSelection();
        drawBoard(); // no marble lit while nothing can be played
      }
      renderStatus();
    },
  );

  async function drain() {
    if (working) return;
    working = true;
    try {
      while (inbox.length) await handle(inbox.shift());
    } finally {
      working = false;
    }
  }

  async function handle(message) {
    switch (message.type) {
      case "welcome": {
        connection = "open";
        mySeats = message.seats;
        const away = state && message.missed ? message.missed.filter((e) => e.event.kind === "move" && e.v > state.v).length : 0;
        setState(message.state);
        if (away) notice(t("online.missed", { n: away }));
        break;
      }
      case "sync":
        setState(message.state);
        break;
      case "presence":
        if (state) {
          state.present = message.present;
          state.watchers = message.watchers;
          renderSide();
        }
        break;
      case "seated":
        rememberToken(id, message.token);
        rememberIdentity(message.player);
        mySeats = [message.seat];
        notice("");
        if (state) renderSide();
        break;
      case "event": {
        if (state && message.v <= state.v) break; // already seen (a reconnect's overlap)
        const event = message.event;
        if (event.kind === "move" && state && board && viewing === null) {
          clearSelection();
          await board.animate(event.path, event.removed || []);
        }
        if (event.kind === "rematch" && mySeats.length && tokenFor(id)) {
          rememberToken(event.table, tokenFor(id));
          setState(message.state);
          navigate(`/table/${event.table}`);
          return;
        }
        if (event.kind === "error" && event.code === "computer-failed") notice(t("error.computer"));
        setState(message.state);
        break;
      }
      case "error":
        if (!state && message.code === "no-table") {
          showMissing();
          return;
        }
        notice(errorText(message));
        pending = false;
        if (message.state) setState(message.state);
        break;
      case "confirm": {
        pending = false;
        confirming = true;
        renderStatus();
        const yes = await ask(t("confirm.out"), t("confirm.play"), t("confirm.cancel"));
        confirming = false;
        if (yes) sendMove(message.path, true);
        else refresh();
        break;
      }
      case "hint":
        if (state && message.v === state.v) showHint(message.path);
        break;
      case "look":
        if (viewing === message.ply) showLook(message);
        break;
      default:
        break;
    }
  }

  function errorText(message) {
    const key = `error.${message.code}`;
    return has(key) ? t(key) : message.message;
  }

  function notice(text) {
    $("#notice").textContent = text || "";
  }

  /** An unknown table: the message and the way back, none of a table's buttons. */
  function showMissing() {
    socket.close();
    root.innerHTML = `<section class="missing card"><h1></h1>
      <a href="/" data-link class="button" data-i18n="action.lobby"></a></section>`;
    translate(root);
    root.querySelector("h1").textContent = t("error.no-table");
  }

  // -- state -------------------------------------------------------------------
  function setState(next) {
    const first = !state;
    state = next;
    receivedAt = performance.now();
    pending = false;
    hint = null;
    if (first) {
      variant = data.variants.find((v) => v.id === state.variant);
      board = new Board($("#board"), data.boards[variant.board], {
        interactive: true,
        label: holeLabel,
        onActivate: activate,
        onHover: hover,
        onCancel: cancel,
      });
      board.showNames(localStorage.getItem(NAMES_KEY) === "on");
      $("#coords").checked = board.namesShown;
      labelTable();
    }
    clearSelection();
    if (viewing === null) drawBoard();
    renderSide();
    if (state.over && mySeats.length && recordGame(state)) $("#record-note").textContent = t("records.updated");
  }

  function isMine(seat) {
    return seat !== null && seat !== undefined && mySeats.includes(seat) && state.seats[seat].kind !== "computer";
  }

  function controllable() {
    return (
      state && connection === "open" && !state.over && viewing === null && !pending && isMine(state.turn) && state.legal.length > 0
    );
  }

  function orient() {
    if (isMine(state.turn)) bottomSeat = state.turn;
    if (bottomSeat === null) bottomSeat = mySeats.length ? mySeats[0] : 0;
    const homes = variant.homes;
    board.turnHomeDown(homes ? homes[bottomSeat] : null);
    board.showGoal(variant.goals ? variant.goals[bottomSeat] : null);
  }

  function drawBoard() {
    orient();
    board.setPosition(state.position);
    movesFrom = new Map();
    if (controllable()) {
      for (const path of state.legal) {
        if (!movesFrom.has(path[0])) movesFrom.set(path[0], []);
        movesFrom.get(path[0]).push(path);
      }
    }
    const last = state.moves[state.moves.length - 1];
    board.mark("last", last ? [last.text.split("-")[0], last.text.split("-").at(-1)] : []);
    highlight();
  }

  function highlight() {
    board.mark("movable", selected ? [] : [...movesFrom.keys()]);
    board.mark("selected", selected ? [selected] : []);
    board.mark("target", [...targets.keys()].filter((name) => name !== selected));
    const loop = $("#loop");
    loop.hidden = !selected || !targets.has(selected);
    loop.textContent = selected ? t("action.loop", { hole: selected }) : "";
    const dim = selected && variant.no_end ? variant.no_end[state.turn] : [];
    board.mark("dim", dim);
    const stops = selected ? [...new Set([selected, ...targets.keys()])] : [...movesFrom.keys()];
    board.setTabStops(stops.length ? stops : [board.names[Math.floor(board.names.length / 2)]]);
    board.refreshLabels();
    if (!hint) board.showPath(null);
    renderStatus();
  }

  function holeLabel(name) {
    const colour = board.colourAt(name);
    const parts = [name];
    parts.push(colour === undefined ? t("hole.empty") : thingName(variant.game, colour));
    if (selected === name) parts.push(t(targets.has(name) ? "hole.selectedLoop" : "hole.selected"));
    else if (targets.has(name)) parts.push(t("hole.target"));
    else if (!selected && movesFrom.has(name)) parts.push(t("hole.movable"));
    return parts.join(", ");
  }

  // -- picking and playing ---------------------------------------------------------
  function select(name) {
    selected = name;
    targets = new Map();
    for (const path of movesFrom.get(name) || []) {
      const end = path[path.length - 1];
      if (!targets.has(end)) targets.set(end, []);
      targets.get(end).push(path);
    }
    highlight();
  }

  function clearSelection() {
    selected = null;
    targets = new Map();
  }

  function cancel() {
    if (!selected) return;
    const was = selected;
    clearSelection();
    hint = null;
    highlight();
    board.hole(was).focus();
  }

  function refresh() {
    clearSelection();
    if (viewing === null) drawBoard();
    renderSide();
  }

  /** A click on a hole: the picked-up piece goes back, a lit hole plays, a movable one is picked up. */
  async function activate(name) {
    if (!controllable()) return;
    if (selected && targets.has(name) && name !== selected) {
      await playTo(name);
    } else if (movesFrom.has(name) && name !== selected) {
      hint = null;
      select(name);
    } else {
      cancel();
    }
  }

  /** Plays the picked-up piece to ``end`` (its own hole for a loop), asking which chain when several end there. */
  async function playTo(end) {
    const paths = targets.get(end);
    let path = paths[0];
    if (paths.length > 1) {
      path = await choose(t("choose.title"), paths.map((p) => p.join("-")), t("confirm.cancel"));
      if (path === null) return;
      path = path.split("-");
    }
    sendMove(path, false);
  }

  function hover(name) {
    if (!selected || hint) return;
    board.showPath(name && targets.has(name) ? targets.get(name)[0] : null);
  }

  function sendMove(path, confirm) {
    pending = true;
    notice("");
    socket.send({ type: "move", seat: state.turn, path, confirm, v: state.v });
    renderStatus();
  }

  function showHint(path) {
    hint = path;
    select(path[0]);
    board.showPath(path, "hint");
    $("#status").textContent = t("status.hint", { move: path.join("-") });
  }

  // -- looking back -----------------------------------------------------------------
  function look(ply) {
    viewing = ply;
    clearSelection();
    socket.send({ type: "look", ply });
    renderSide();
  }

  function showLook(message) {
    board.setPosition(message.position);
    const move = state.moves[message.ply - 1];
    board.mark("last", move ? [move.text.split("-")[0], move.text.split("-").at(-1)] : []);
    for (const cls of ["movable", "selected", "target", "dim"]) board.mark(cls, []);
    board.showPath(move ? move.text.split("-") : null, "history");
    board.refreshLabels();
  }

  function backToGame() {
    viewing = null;
    refresh();
    board.svg.querySelector(".hole[tabindex='0']")?.focus();
  }

  // -- the side panel ---------------------------------------------------------------
  function renderStatus() {
    if (!state) return;
    const status = $("#status");
    const word = variant.game;
    const turn = state.turn;
    let text = "";
    if (connection === "closed") text = t("status.reconnecting");
    else if (viewing !== null) text = t("status.viewing", { n: viewing });
    else if (state.status === "aborted") text = t("status.aborted");
    else if (state.over) text = t("status.over");
    else if (confirming) text = t("status.waiting", { colour: colourName(state.seats[turn].colour) });
    else if (state.status === "waiting") text = t("status.waitingPlayers");
    else if (state.thinking !== null) text = t("status.thinking", { colour: colourName(state.seats[state.thinking].colour) });
    else if (pending) text = t("status.sending");
    else if (turn !== null && isMine(turn)) {
      const people = state.seats.filter((s) => s.kind === "person").length;
      if (selected) text = t(`status.pickTarget.${word}`);
      else if (people === 1 || state.online) text = t(`status.yourTurn.${word}`);
      else text = t(`status.seatTurn.${word}`, { colour: colourName(state.seats[turn].colour) });
    } else if (turn !== null) text = t("status.waiting", { colour: colourName(state.seats[turn].colour) });
    status.textContent = text;
  }

  function playerName(seat, index) {
    const people = state.seats.filter((s) => s.kind === "person").length;
    if (seat.kind === "computer") return t("player.computer", { level: t(`level.${seat.level}`) });
    if (seat.kind === "online") {
      if (!seat.taken) return t("seat.free");
      return mySeats.includes(index) ? t("player.nickYou", { name: seat.nickname }) : seat.nickname;
    }
    return people === 1 && mySeats.length ? t("player.you") : t("player.person");
  }

  function clockLeft(seat) {
    const clock = state.clock;
    if (!clock) return null;
    const left = clock.remaining[seat];
    return clock.running === seat ? left - (performance.now() - receivedAt) : left;
  }

  function tickClocks() {
    if (!state || !state.clock) return;
    for (const node of root.querySelectorAll(".clock[data-seat]")) {
      const seat = Number(node.dataset.seat);
      const left = clockLeft(seat);
      node.textContent = formatClock(left);
      node.classList.toggle("low", left < 20000);
    }
  }
  const ticker = setInterval(tickClocks, 100);

  function sitDown(seat) {
    const nickname = $("#sit-nickname").value.trim();
    if (!nickname) {
      notice(t("error.nickname"));
      $("#sit-nickname").focus();
      return;
    }
    const who = identity();
    socket.send({ type: "sit", seat, nickname, identity: who ? who.secret : null });
  }

  function renderOnline() {
    const waiting = state.status === "waiting";
    $("#waiting").hidden = !waiting;
    $("#share-link").value = `${location.origin}/table/${id}`;
    $("#sit-form").hidden = !waiting || mySeats.length > 0;
    $("#leave").hidden = !waiting || !mySeats.length;
    const info = [];
    if (state.online) info.push(t("online.table"));
    if (state.clock || state.online) info.push(clockName(state.clock ? state.clock.control : ""));
    if (state.online) info.push(t(state.rated ? "lobby.ratedShort" : "lobby.casualShort"));
    if (state.unrated) info.push(t("rating.unrated", { reason: t("rating.sameAddress") }));
    if (state.deadline_rule === false) info.push(t("table.deadlineOff"));
    $("#table-info").textContent = info.join(" · ");
    const watching = $("#watching");
    watching.hidden = !state.online;
    const others = state.watchers - (mySeats.length ? 0 : 1);
    watching.textContent = [
      mySeats.length ? "" : t(waiting ? "online.notSeated" : "online.watching"),
      others > 0 ? t("online.watchers", { n: others }) : "",
    ].filter(Boolean).join(" ");
    if (!watching.textContent) watching.hidden = true;
  }

  function renderSide() {
    const word = variant.game;
    const players = $("#players");
    players.replaceChildren();
    state.seats.forEach((seat, i) => {
      const li = document.createElement("li");
      li.className = "player";
      li.dataset.colour = seat.colour;
      if (state.turn === i && !state.over) {
        li.classList.add("turn");
        li.setAttribute("aria-current", "true");
      }
      const name = document.createElement("div");
      name.className = "name";
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = `${colourName(seat.colour)} · ${playerName(seat, i)}`;
      name.append(swatch(seat.colour), who);
      if (state.clock) {
        const clock = document.createElement("span");
        clock.className = "clock";
        clock.dataset.seat = i;
        clock.setAttribute("role", "timer");
        clock.setAttribute("aria-label", t("clock.label", { colour: colourName(seat.colour) }));
        if (state.clock.running === i) clock.classList.add("running");
        name.appendChild(clock);
      }
      if (seat.kind === "online" && !seat.taken && !mySeats.length && state.status === "waiting") {
        const sit = document.createElement("button");
        sit.type = "button";
        sit.className = "primary sit";
        sit.dataset.seat = i;
        sit.textContent = t("online.sit");
        sit.setAttribute("aria-label", t("online.sitAs", { colour: colourName(seat.colour) }));
        sit.addEventListener("click", () => sitDown(i));
        name.appendChild(sit);
      }
      const detail = document.createElement("div");
      detail.className = "detail";
      const bits = [];
      if (seat.home !== undefined) bits.push(t(`seat.home.${word}`, { n: seat.home, of: seat.of }));
      if (seat.captured !== undefined) bits.push(t("seat.captured", { n: seat.captured }));
      if (seat.status === "finished" && seat.place) bits.push(t("seat.finished", { place: place(seat.place) }));
      else if (seat.status === "out") bits.push(t("seat.out"));
      else if (seat.status === "resigned") bits.push(t("seat.resigned"));
      else if (seat.status === "flagged") bits.push(t("seat.flagged"));
      detail.textContent = bits.join(" · ");
      if (seat.kind === "online" && seat.taken) {
        const here = document.createElement("span");
        const present = (state.present || []).includes(i);
        here.className = `presence ${present ? "here" : "away"}`;
        here.textContent = t(present ? "online.here" : "online.away");
        detail.prepend(here, bits.length ? " · " : "");
      }
      li.append(name, detail);
      players.appendChild(li);
    });

    const against = state.can_hint && mySeats.length > 0;
    $("#undo").hidden = !against;
    $("#hint").hidden = !against;
    $("#undo").disabled = !state.can_undo || viewing !== null;
    $("#hint").disabled = !controllable();
    // Before every player has moved, nobody has lost anything yet: Abort, not Resign.
    $("#resign").hidden = !mySeats.length || state.status === "waiting" || state.can_abort;
    $("#resign").disabled = state.over;
    $("#abort").hidden = !mySeats.length || !state.can_abort;
    renderOnline();
    tickClocks();

    $("#viewing").hidden = viewing === null;
    $("#viewing-text").textContent = viewing === null ? "" : t("status.viewing", { n: viewing });

    const list = $("#move-list");
    list.replaceChildren();
    const start = document.createElement("li");
    const startButton = document.createElement("button");
    startButton.type = "button";
    startButton.textContent = t("moves.start");
    startButton.addEventListener("click", () => look(0));
    if (viewing === 0) startButton.setAttribute("aria-current", "true");
    start.appendChild(startButton);
    list.appendChild(start);
    let row = null;
    let round = 0;
    let previous = Infinity;
    for (const move of state.moves) {
      if (move.seat <= previous) {
        round += 1;
        row = document.createElement("li");
        row.className = "round";
        const number = document.createElement("span");
        number.className = "round-number";
        number.textContent = `${round}.`;
        row.appendChild(number);
        list.appendChild(row);
      }
      previous = move.seat;
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.ply = move.ply;
      const colour = state.seats[move.seat].colour;
      button.append(swatch(colour, 14), ` ${move.text}`);
      button.setAttribute("aria-label", t("moves.item", { n: round, colour: colourName(colour), move: move.text }));
      if (viewing === move.ply) button.setAttribute("aria-current", "true");
      button.addEventListener("click", () => look(move.ply));
      row.appendChild(button);
    }
    if (viewing === null) list.lastElementChild?.scrollIntoView?.({ block: "nearest" });

    const result = $("#result");
    result.hidden = !state.over;
    if (state.over && state.result) {
      $("#reason").textContent = resultText(state.result);
      const places = $("#places");
      places.replaceChildren();
      places.hidden = state.status === "aborted";
      $("#result-title").textContent = t(state.status === "aborted" ? "result.aborted" : "result.title");
      const order = state.seats.map((s, i) => [s, i, state.result.places[i]]).sort((a, b) => (a[2] ?? 99) - (b[2] ?? 99));
      for (const [seat, i, p] of order) {
        const li = document.createElement("li");
        li.append(`${p ? place(p) : "–"} `, swatch(seat.colour, 16), ` ${colourName(seat.colour)} · ${playerName(seat, i)}`);
        places.appendChild(li);
      }
      renderRatings();
      renderRematch();
      $("#download").href = `/api/tables/${encodeURIComponent(id)}/record`;
      $("#analyse").href = `/analysis?table=${encodeURIComponent(id)}`;
    }
    renderStatus();
  }

  function renderRatings() {
    const list = $("#rating-changes");
    list.replaceChildren();
    list.hidden = !state.ratings;
    for (const change of state.ratings || []) {
      const seat = state.seats[change.seat];
      const li = document.createElement("li");
      const sign = change.change > 0 ? "+" : change.change < 0 ? "−" : "±";
      // A provisional rating (too few rated games to be sure of it) shows with "?".
      const before = `${change.before}${change.before_provisional ? "?" : ""}`;
      const after = `${change.after}${change.after_provisional ? "?" : ""}`;
      li.append(swatch(seat.colour, 16), ` ${t("rating.change", { name: seat.nickname || colourName(seat.colour), before, after, change: `${sign}${Math.abs(change.change)}` })}`);
      list.appendChild(li);
    }
  }

  function renderRematch() {
    const offers = state.rematch_offers || [];
    const mine = mySeats.some((s) => offers.includes(s));
    const button = $("#rematch");
    button.hidden = !mySeats.length || Boolean(state.rematch);
    button.disabled = mine;
    const others = offers.filter((s) => !mySeats.includes(s)).map((s) => state.seats[s].nickname || colourName(state.seats[s].colour));
    const notes = [];
    if (mine && !state.rematch) notes.push(t("online.rematchWaiting"));
    if (others.length && !state.rematch) notes.push(t("online.rematchOffer", { who: others.join(", ") }));
    $("#rematch-note").textContent = notes.join(" ");
    const link = $("#rematch-link");
    link.hidden = !state.rematch || mySeats.length > 0;
    if (state.rematch) link.href = `/table/${encodeURIComponent(state.rematch)}`;
  }

  /** "White wins. Black resigned." in the current language (the server's English as a fallback). */
  function resultText(result) {
    const name = (seat) => colourName(state.seats[seat].colour);
    if (result.ending === "aborted") {
      const who = result.seat === null || result.seat === undefined ? "" : name(result.seat);
      return t(`ending.aborted.${result.abort}`, { who });
    }
    let headline;
    if (result.team_places && result.team_places.length) {
      const firsts = variant.teams.filter((_, i) => result.team_places[i] === 1);
      headline = firsts.length === 1 ? t("result.teamWins", { who: firsts[0].map(name).join(" + ") }) : t("result.draw");
    } else {
      const firsts = result.places.map((p, i) => [p, i]).filter(([p]) => p === 1);
      headline = firsts.length === 1 ? t("result.wins", { who: name(firsts[0][1]) }) : t("result.draw");
    }
    const specific = `ending.${result.ending}.${variant.game}`;
    const key = has(specific) ? specific : `ending.${result.ending}`;
    const who = result.seat === null || result.seat === undefined ? "" : name(result.seat);
    return `${headline} ${has(key) ? t(key, { who }) : result.reason}`;
  }

  // -- buttons ------------------------------------------------------------------------
  $("#undo").addEventListener("click", () => {
    notice("");
    socket.send({ type: "undo" });
  });
  $("#hint").addEventListener("click", () => {
    notice("");
    $("#status").textContent = t("status.hintThinking");
    socket.send({ type: "hint" });
  });
  $("#resign").addEventListener("click", async () => {
    if (await ask(t("confirm.resign"), t("action.resign"), t("confirm.cancel"))) {
      const seat = isMine(state.turn) ? state.turn : mySeats.length === 1 ? mySeats[0] : undefined;
      socket.send({ type: "resign", seat });
    }
  });
  $("#abort").addEventListener("click", async () => {
    if (await ask(t("confirm.abort"), t("action.abort"), t("confirm.cancel"))) socket.send({ type: "abort" });
  });
  $("#back").addEventListener("click", backToGame);
  $("#loop").addEventListener("click", () => {
    if (controllable() && selected && targets.has(selected)) playTo(selected);
  });
  $("#coords").addEventListener("change", () => {
    localStorage.setItem(NAMES_KEY, $("#coords").checked ? "on" : "off");
    board?.showNames($("#coords").checked);
  });
  // Escape puts the piece back wherever the focus is (after Hint it is on the button).
  const escape = (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || !selected) return;
    if (document.querySelector("dialog[open]")) return;
    event.preventDefault();
    cancel();
  };
  document.addEventListener("keydown", escape);
  $("#rematch").addEventListener("click", () => socket.send({ type: "rematch" }));
  $("#leave").addEventListener("click", () => {
    socket.send({ type: "leave" });
    mySeats = [];
  });
  $("#copy-link").addEventListener("click", async () => {
    const input = $("#share-link");
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand && document.execCommand("copy");
    }
    notice(t("online.copied"));
  });
  const me = identity();
  $("#sit-nickname").value = me ? me.nickname : "";

  /** The texts that name the game and the variant, again after a change of language. The
   * header and the page title name this table's game, not the lobby's default. */
  function labelTable() {
    const brand = document.querySelector(".brand [data-i18n]");
    brand.dataset.i18n = `game.${variant.game}`;
    brand.textContent = t(`game.${variant.game}`);
    const title = `${t(`game.${variant.game}`)} · ${variantName(variant.id)}`;
    $("#table-title").textContent = title;
    document.title = title;
    $("#keys").textContent = t(`keys.help.${variant.game}`);
    $("#coords-text").textContent = t(`board.names.${variant.game}`);
    board.svg.setAttribute("aria-label", t("board.label"));
  }

  const relabel = () => {
    if (!state) return;
    labelTable();
    board.refreshLabels();
    renderSide();
  };
  document.addEventListener("languagechange", relabel);
  return () => {
    clearInterval(ticker);
    document.removeEventListener("languagechange", relabel);
    document.removeEventListener("keydown", escape);
    socket.close();
  };
}
