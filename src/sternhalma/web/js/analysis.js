// The analysis board: step through a finished or downloaded game (buttons, ← →, the
// move list), try other moves without changing the game, see the computer's best move,
// every seat's moves to go and the race, and review the whole game move by move.
// The computer's work runs on the server (docs/analysis.md); this page only draws.

import { catalogue } from "./api.js";
import { AnalysisSocket, ends, legalMoves, readRecord } from "./analysis-api.js";
import { Board } from "./board.js";
import { el, swatch } from "./svg.js";
import { Picker } from "./picker.js";
import { t, translate } from "./i18n.js";
import { colourName, variantName } from "./words.js";

/** Verdict marks in the move list, as chess players know them. */
const SYMBOLS = { good: "", inaccuracy: "?!", mistake: "?" };

export async function showAnalysis(root) {
  const data = await catalogue();
  root.innerHTML = `
    <section class="table-view analysis-view">
      <div class="table-head">
        <h1 class="table-title" data-i18n="analysis.title"></h1>
        <p id="an-info" class="hint table-info"></p>
        <p id="an-status" class="status" role="status" aria-live="polite"></p>
        <p id="an-notice" class="notice" role="alert"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <button type="button" id="an-loop" hidden></button>
        <p class="keys hint" data-i18n="analysis.keys"></p>
      </div>
      <aside class="side">
        <label class="field card" id="an-open"><span data-i18n="analysis.open"></span>
          <input type="file" id="an-file" accept=".txt,text/plain"></label>
        <details class="card an-paste"><summary data-i18n="analysis.paste"></summary>
          <textarea id="an-paste" rows="6" data-i18n-attr="aria-label:analysis.paste"></textarea>
          <button type="button" id="an-paste-open" data-i18n="analysis.pasteOpen"></button></details>
        <div class="actions an-steps" id="an-steps" hidden>
          <button type="button" id="an-first" class="step" data-i18n-attr="aria-label:analysis.first">«</button>
          <button type="button" id="an-prev" class="step" data-i18n-attr="aria-label:analysis.prev">‹</button>
          <button type="button" id="an-next" class="step" data-i18n-attr="aria-label:analysis.next">›</button>
          <button type="button" id="an-last" class="step" data-i18n-attr="aria-label:analysis.last">»</button>
          <button type="button" id="an-back" hidden data-i18n="analysis.backToGame"></button>
        </div>
        <section id="an-eval" class="card an-eval" hidden aria-labelledby="an-eval-title">
          <h2 id="an-eval-title" data-i18n="analysis.computer"></h2>
          <p id="an-best" aria-live="polite"></p>
          <table class="an-togo">
            <thead><tr><th data-i18n="analysis.seat"></th><th data-i18n="analysis.atLeast"></th><th data-i18n="analysis.about"></th></tr></thead>
            <tbody id="an-togo"></tbody>
          </table>
          <div id="an-race" class="an-race"></div>
        </section>
        <section id="an-review" class="card" hidden aria-labelledby="an-review-title">
          <h2 id="an-review-title" data-i18n="analysis.review"></h2>
          <button type="button" id="an-review-start" class="primary" data-i18n="analysis.reviewStart"></button>
          <div id="an-progress-box" hidden>
            <progress id="an-progress" max="1" value="0"></progress>
            <span id="an-progress-text" class="hint"></span>
          </div>
          <div id="an-graph" class="an-graph"></div>
          <ul id="an-summary" class="an-summary"></ul>
          <p class="hint" data-i18n="analysis.thresholds"></p>
          <div id="an-share-box" hidden>
            <button type="button" id="an-share" data-i18n="analysis.share"></button>
            <input id="an-link" readonly hidden data-i18n-attr="aria-label:analysis.shareLink">
            <p class="hint" data-i18n="analysis.shareHint"></p>
          </div>
        </section>
        <section class="moves" aria-labelledby="an-moves-title">
          <h2 id="an-moves-title" data-i18n="moves.title"></h2>
          <ol id="an-moves" class="move-list"></ol>
        </section>
      </aside>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);

  let record = null; // the record text
  let game = null; // {variant, players, result, analysable, positions, moves}
  let variant = null;
  let board = null;
  let ply = 0;
  let tried = []; // moves tried from positions[ply]: [{text, path, after}]
  let picker = null;
  const analyses = new Map(); // position JSON -> analysis
  let asked = null; // the position JSON whose analysis is awaited
  let review = null; // {total, done, start, moves: []}

  const socket = new AnalysisSocket(receive);

  function receive(message) {
    if (message.type === "analysis") {
      analyses.set(message.id, message);
      if (message.id === asked) renderEval();
    } else if (message.type === "review-start") {
      review = { total: message.total, done: 0, start: null, moves: [] };
      renderReview();
    } else if (message.type === "review-position") {
      review.start = message;
    } else if (message.type === "review-move") {
      review.done = message.done;
      review.moves[message.number - 1] = message;
      renderReview();
      renderMoves();
    } else if (message.type === "review-done") {
      review.finished = true;
      $("#an-share-box").hidden = false;
      renderReview();
    } else if (message.type === "error") {
      notice(message.message);
    }
  }

  function notice(text) {
    $("#an-notice").textContent = text || "";
  }

  // -- loading a game ------------------------------------------------------------------
  async function load(text) {
    notice("");
    try {
      game = await readRecord(text);
    } catch (error) {
      notice(error.message);
      return;
    }
    record = text;
    review = null;
    $("#an-share-box").hidden = true;
    $("#an-link").hidden = true;
    analyses.clear();
    variant = data.variants.find((v) => v.id === game.variant);
    $("#board").replaceChildren();
    picker = new Picker(variant.game, {
      onPlay: async (move) => {
        await board.animate(move.path, [], 100);
        tried.push(move);
        await show();
      },
      onHighlight: drawBest,
      loopButton: $("#an-loop"),
    });
    board = new Board($("#board"), data.boards[variant.board], picker.boardOptions());
    picker.board = board;
    board.svg.setAttribute("aria-label", t("board.label"));
    board.turnHomeDown(variant.homes ? variant.homes[0] : null);
    board.showGoal(variant.goals ? variant.goals[0] : null);
    const names = Object.entries(game.players || {}).map(([c, n]) => `${colourName(c)}: ${n}`);
    $("#an-info").textContent = [`${t(`game.${variant.game}`)} · ${variantName(variant.id)}`, ...names, game.result || ""].filter(Boolean).join(" · ");
    $("#an-steps").hidden = false;
    $("#an-eval").hidden = !game.analysable;
    $("#an-review").hidden = !game.analysable;
    $("#an-review-start").disabled = !game.moves.length;
    if (!game.analysable) notice(t("analysis.raceOnly"));
    renderReview();
    await go(game.moves.length);
  }

  // -- where we are --------------------------------------------------------------------
  function current() {
    return tried.length ? tried[tried.length - 1].after : game.positions[ply];
  }

  async function go(target) {
    if (!game) return;
    ply = Math.max(0, Math.min(game.moves.length, target));
    tried = [];
    await show();
  }

  async function show() {
    const position = current();
    board.setPosition(position);
    const last = tried.length ? tried[tried.length - 1] : game.moves[ply - 1];
    board.mark("last", last ? ends(last.path) : []);
    picker.setMoves([]);
    renderMoves();
    renderWhere();
    askAnalysis(position);
    const moves = await legalMoves(position).catch((error) => { notice(error.message); return []; });
    if (position === current()) picker.setMoves(moves);
  }

  function askAnalysis(position) {
    if (!game.analysable) return;
    asked = JSON.stringify(position);
    if (!analyses.has(asked)) socket.send({ type: "analyse", id: asked, position });
    renderEval();
  }

  function renderWhere() {
    const total = game.moves.length;
    let text;
    if (tried.length) text = t("analysis.trying", { moves: tried.map((m) => m.text).join(" ") });
    else if (ply === 0) text = t("analysis.start", { total });
    else text = t("analysis.at", { n: ply, total, move: game.moves[ply - 1].text });
    $("#an-status").textContent = text;
    $("#an-back").hidden = !tried.length;
    $("#an-first").disabled = $("#an-prev").disabled = ply === 0 && !tried.length;
    $("#an-next").disabled = $("#an-last").disabled = ply === total && !tried.length;
  }

  // -- the computer's view -----------------------------------------------------------------
  function drawBest() {
    const analysis = analyses.get(asked);
    if (!picker.selected && analysis && analysis.best) board.showPath(analysis.best.path, "best");
    else board.showPath(null);
  }

  function renderEval() {
    const analysis = analyses.get(asked);
    const best = $("#an-best");
    const body = $("#an-togo");
    body.replaceChildren();
    $("#an-race").replaceChildren();
    if (!analysis) {
      best.textContent = t("analysis.thinking");
      return;
    }
    best.textContent = analysis.best ? t("analysis.best", { move: analysis.best.text, colour: colourName(analysis.turn) }) : t("analysis.noMove");
    for (const [colour, count] of Object.entries(analysis.to_go)) {
      const row = document.createElement("tr");
      const who = document.createElement("td");
      who.append(swatch(colour, 18), ` ${colourName(colour)}`);
      const lower = document.createElement("td");
      lower.textContent = count.exact ? t("analysis.exactly", { n: count.lower }) : String(count.lower);
      const about = document.createElement("td");
      about.textContent = String(count.estimate);
      row.append(who, lower, about);
      body.appendChild(row);
    }
    if (analysis.race !== null) raceBar($("#an-race"), analysis.race, Object.keys(analysis.to_go));
    drawBest();
  }

  // -- the review ------------------------------------------------------------------------
  function renderReview() {
    const box = $("#an-progress-box");
    const running = review && !review.finished;
    $("#an-review-start").hidden = Boolean(review);
    box.hidden = !review;
    if (review) {
      $("#an-progress").max = Math.max(1, review.total);
      $("#an-progress").value = review.done;
      $("#an-progress-text").textContent = running ? t("analysis.reviewing", { done: review.done, total: review.total }) : t("analysis.reviewed", { total: review.total });
    }
    drawGraph();
    renderSummary();
  }

  function renderSummary() {
    const list = $("#an-summary");
    list.replaceChildren();
    if (!review || !review.moves.length) return;
    const rows = {};
    for (const move of review.moves) {
      if (!move) continue;
      const row = (rows[move.seat] ||= { inaccuracy: 0, mistake: 0, lost: 0 });
      if (move.verdict !== "good") row[move.verdict] += 1;
      row.lost += move.loss;
    }
    for (const [colour, row] of Object.entries(rows)) {
      const item = document.createElement("li");
      item.append(swatch(colour, 16), ` ${t("analysis.summary", { colour: colourName(colour), inaccuracies: row.inaccuracy, mistakes: row.mistake, lost: row.lost })}`);
      list.appendChild(item);
    }
  }

  function drawGraph() {
    const box = $("#an-graph");
    box.replaceChildren();
    if (!review || !review.moves.length) return;
    const moves = review.moves.filter(Boolean);
    const two = moves[0].race !== null;
    const series = two
      ? [{ colour: "race", values: [review.start?.race ?? 0, ...moves.map((m) => m.race)] }]
      : Object.keys(moves[0].to_go).map((colour) => ({
        colour,
        values: [review.start?.to_go[colour].estimate ?? null, ...moves.map((m) => m.to_go[colour].estimate)],
      }));
    const all = series.flatMap((s) => s.values).filter((v) => v !== null);
    const top = Math.max(1, ...all.map(Math.abs));
    const low = two ? -top : 0;
    const width = 300;
    const height = 120;
    const n = Math.max(1, review.total);
    const x = (i) => (i / n) * width;
    const y = (v) => height - ((v - low) / (top - low || 1)) * height;
    const svg = el("svg", { viewBox: `-4 -6 ${width + 8} ${height + 12}`, class: "graph", role: "img", "aria-label": t(two ? "analysis.graphRace" : "analysis.graphToGo") });
    if (two) el("line", { x1: 0, x2: width, y1: y(0), y2: y(0), class: "axis" }, svg);
    for (const s of series) {
      const points = s.values.map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`)).filter(Boolean);
      el("polyline", { points: points.join(" "), class: `line line-${s.colour}` }, svg);
    }
    for (const move of moves) {
      if (move.verdict === "good") continue;
      const value = two ? move.race : move.to_go[move.seat].estimate;
      const dot = el("circle", { cx: x(move.number), cy: y(value), r: move.verdict === "mistake" ? 5 : 3.5, class: `dot ${move.verdict} c-${move.seat}` }, svg);
      el("title", {}, dot).textContent = `${move.number}. ${move.played.text} ${t(`analysis.verdict.${move.verdict}`)}`;
    }
    el("line", { x1: x(ply), x2: x(ply), y1: 0, y2: height, class: "cursor" }, svg);
    svg.addEventListener("click", (event) => {
      const box = svg.getBoundingClientRect();
      go(Math.round(((event.clientX - box.left) / box.width) * n));
    });
    box.appendChild(svg);
    const legend = document.createElement("p");
    legend.className = "hint";
    legend.textContent = two ? t("analysis.graphRace") : t("analysis.graphToGo");
    box.appendChild(legend);
  }

  // -- the move list -------------------------------------------------------------------
  function renderMoves() {
    const list = $("#an-moves");
    list.replaceChildren();
    if (!game) return;
    const start = document.createElement("li");
    const startButton = document.createElement("button");
    startButton.type = "button";
    startButton.textContent = t("analysis.startShort");
    startButton.setAttribute("aria-current", String(ply === 0 && !tried.length));
    startButton.addEventListener("click", () => go(0));
    start.appendChild(startButton);
    list.appendChild(start);
    game.moves.forEach((move, index) => {
      const judged = review && review.moves[index];
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.ply = String(index + 1);
      button.textContent = `${index + 1}. ${move.text}${judged ? SYMBOLS[judged.verdict] : ""}`;
      if (judged) {
        button.classList.add(`verdict-${judged.verdict}`);
        button.title = judged.verdict !== "good"
          ? t("analysis.lost", { verdict: t(`analysis.verdict.${judged.verdict}`), n: judged.loss, best: judged.best.text })
          : t("analysis.verdict.good");
      }
      button.setAttribute("aria-current", String(ply === index + 1 && !tried.length));
      button.addEventListener("click", () => go(index + 1));
      item.appendChild(button);
      list.appendChild(item);
    });
    list.querySelector("[aria-current='true']")?.scrollIntoView({ block: "nearest" });
    if (review) drawGraph();
  }

  // -- controls ---------------------------------------------------------------------------
  function back() {
    if (tried.length) {
      tried.pop();
      show();
    } else go(ply - 1);
  }

  $("#an-first").addEventListener("click", () => go(0));
  $("#an-prev").addEventListener("click", back);
  $("#an-next").addEventListener("click", () => go(tried.length ? ply : ply + 1));
  $("#an-last").addEventListener("click", () => go(game.moves.length));
  $("#an-back").addEventListener("click", () => go(ply));
  $("#an-loop").addEventListener("click", () => picker.playLoop());
  $("#an-review-start").addEventListener("click", () => {
    notice("");
    socket.send({ type: "review", record });
  });
  $("#an-paste-open").addEventListener("click", () => load($("#an-paste").value));
  $("#an-share").addEventListener("click", async () => {
    const link = $("#an-link");
    link.value = `${location.origin}/analysis#review=${encodeRecord(record)}`;
    link.hidden = false;
    link.select();
    await navigator.clipboard?.writeText(link.value).catch(() => {});
  });
  $("#an-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) await load(await file.text());
  });
  function onKey(event) {
    if (!game || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target.closest && (target.closest(".board") || target.closest("input, select, textarea"))) return;
    if (event.key === "ArrowLeft") {
      event.preventDefault();
      back();
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      go(tried.length ? ply : ply + 1);
    }
  }
  document.addEventListener("keydown", onKey);

  const params = new URLSearchParams(location.search);
  const table = params.get("table");
  const shared = location.hash.startsWith("#review=") ? decodeRecord(location.hash.slice(8)) : null;
  if (shared !== null) {
    // A shared review: the record is in the link; the review is made again, the same.
    await load(shared);
    if (game && game.analysable && game.moves.length) $("#an-review-start").click();
  } else if (table) {
    const response = await fetch(`/api/tables/${encodeURIComponent(table)}/record`);
    if (response.ok) await load(await response.text());
    else notice(t("analysis.noRecord"));
  } else {
    // Nothing to review yet: the start of a two-player game, to try moves on.
    await load('[Variant "classic-2"]\n[Result "*"]\n\n');
  }

  return () => {
    document.removeEventListener("keydown", onKey);
    socket.close();
  };
}

/** A record in a link: its UTF-8 bytes in base64url (the link carries the whole game,
 * so it needs no storage on the server and never expires; docs/analysis.md). */
export function encodeRecord(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The record of a link made by encodeRecord, or null when it is not one. */
export function decodeRecord(code) {
  try {
    const binary = atob(code.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** A bar of the race with two players: who is ahead, by how many moves. */
export function raceBar(box, lead, colours) {
  const [first, second] = colours;
  const span = Math.max(5, Math.abs(lead));
  const share = 50 + (lead / span) * 50;
  const svg = el("svg", { viewBox: "0 0 100 10", class: "race-bar", "aria-hidden": "true", preserveAspectRatio: "none" });
  el("rect", { x: 0, y: 0, width: share, height: 10, class: `part c-${first}` }, svg);
  el("rect", { x: share, y: 0, width: 100 - share, height: 10, class: `part c-${second}` }, svg);
  el("line", { x1: 50, x2: 50, y1: 0, y2: 10, class: "middle" }, svg);
  const text = document.createElement("p");
  text.className = "race-text";
  const colour = colourName(lead > 0 ? first : second);
  const n = Math.abs(lead);
  text.textContent = n === 0 ? t("analysis.level") : t(n === 1 ? "analysis.aheadOne" : "analysis.ahead", { colour, n });
  box.append(svg, text);
}
