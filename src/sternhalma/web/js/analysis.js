// The analysis board: step through a finished or downloaded game (buttons, ← →, the
// move list), try other moves without changing the game, see the computer's best move,
// every seat's moves to go and the race, and review the whole game move by move.
// The computer's work runs on the server (docs/analysis.md); this page only draws:
// the move list in analysis-moves.js, the computer's view in analysis-eval.js, the
// review in analysis-review.js, the review's link in analysis-link.js.

import { catalogue } from "./api.js";
import { AnalysisSocket, ends, legalMoves, readRecord } from "./analysis-api.js";
import { renderEval } from "./analysis-eval.js";
import { decodeRecord, encodeRecord } from "./analysis-link.js";
import { renderMoveList } from "./analysis-moves.js";
import { renderReview, renderVerdict } from "./analysis-review.js";
import { Board } from "./board.js";
import { Picker } from "./picker.js";
import { has, t, translate } from "./i18n.js";
import { resultWords } from "./result-words.js";
import { colourName, variantName } from "./words.js";

export { decodeRecord, encodeRecord };

const PAGE = `
    <section class="table-view analysis-view">
      <div class="table-head">
        <h1 class="table-title" data-i18n="analysis.title"></h1>
        <p id="an-info" class="hint table-info"></p>
        <p id="an-status" class="status" role="status" aria-live="polite"></p>
        <p id="an-notice" class="notice" role="alert"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <p id="an-verdict" class="an-verdict" aria-live="polite"></p>
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

export async function showAnalysis(root) {
  const data = await catalogue();
  root.innerHTML = PAGE;
  translate(root);
  const $ = (selector) => root.querySelector(selector);

  let record = null; // the record text
  let game = null; // {variant, players, result, outcome, analysable, positions, moves}
  let variant = null;
  let board = null;
  let ply = 0;
  let tried = []; // moves tried from positions[ply]: [{text, path, after}]
  let picker = null;
  const analyses = new Map(); // position JSON -> analysis
  let asked = null; // the position JSON whose analysis is awaited
  let review = null; // {total, done, start, moves: []}

  const socket = new AnalysisSocket(receive);
  const view = () => ({ game, variant, review, ply, trying: tried.length > 0, go });

  function receive(message) {
    if (message.type === "analysis") {
      analyses.set(message.id, message);
      if (message.id === asked) showEval();
    } else if (message.type === "review-start") {
      review = { total: message.total, done: 0, start: null, moves: [] };
      showReview();
    } else if (message.type === "review-position") {
      review.start = message;
    } else if (message.type === "review-move") {
      review.done = message.done;
      review.moves[message.number - 1] = message;
      showReview();
      showMoves();
    } else if (message.type === "review-done") {
      review.finished = true;
      $("#an-share-box").hidden = false;
      showReview();
    } else if (message.type === "error") {
      notice(said(message));
    }
  }

  /** A refusal in the player's language where it has a word for it (the server's English else). */
  function said(error) {
    return error.code && has(`error.${error.code}`) ? t(`error.${error.code}`) : t("analysis.refused", { detail: error.message });
  }

  function notice(text) {
    $("#an-notice").textContent = text || "";
  }

  // -- loading a game ------------------------------------------------------------------
  // The record asked for last is shown: the empty board the page opens with, answering
  // after a file opened at once, must not replace it.
  let loads = 0;
  async function load(text) {
    notice("");
    const mine = ++loads;
    let read;
    try {
      read = await readRecord(text);
    } catch (error) {
      if (mine === loads) notice(said(error));
      return;
    }
    if (mine !== loads) return;
    game = read;
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
    board.turnHomeDown(variant.homes ? variant.homes[0] : null);
    board.showGoal(variant.goals ? variant.goals[0] : null);
    $("#an-steps").hidden = false;
    $("#an-eval").hidden = !game.analysable;
    $("#an-review").hidden = !game.analysable;
    $("#an-review-start").disabled = !game.moves.length;
    showReview();
    await go(game.moves.length);
  }

  /** The words of the page that are not in its template (set again on a language change). */
  function words() {
    if (!game) return;
    board.svg.setAttribute("aria-label", t("board.label"));
    board.refreshLabels();
    const names = Object.entries(game.players || {}).map(([c, n]) => `${colourName(c)}: ${n}`);
    const result = game.outcome ? resultWords(game.outcome, variant) : "";
    $("#an-info").textContent = [`${t(`game.${variant.game}`)} · ${variantName(variant.id)}`, ...names, result].filter(Boolean).join(" · ");
    if (!game.analysable) notice(t("analysis.raceOnly"));
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
    words();
    showMoves();
    renderWhere();
    askAnalysis(position);
    const moves = await legalMoves(position).catch((error) => { notice(said(error)); return []; });
    if (position === current()) picker.setMoves(moves);
  }

  function askAnalysis(position) {
    if (!game.analysable) return;
    asked = JSON.stringify(position);
    if (!analyses.has(asked)) socket.send({ type: "analyse", id: asked, position });
    showEval();
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

  // -- the computer's view and the review ---------------------------------------------------
  function drawBest() {
    const analysis = analyses.get(asked);
    if (!picker.selected && analysis && analysis.best) board.showPath(analysis.best.path, "best");
    else board.showPath(null);
  }

  function showEval() {
    renderEval($, analyses.get(asked));
    drawBest();
  }

  function showReview() {
    renderReview($, view());
    if (board) renderVerdict($, board, view());
  }

  function showMoves() {
    renderMoveList($("#an-moves"), view());
    showReview();
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
  // The template follows through translate(); what was written from code is written again.
  function onLanguage() {
    if (!game) return;
    words();
    showMoves();
    renderWhere();
    showEval();
  }
  document.addEventListener("languagechange", onLanguage);

  const params = new URLSearchParams(location.search);
  const table = params.get("table");
  // A record in the link: a shared review (#review=, made again, the same) or a game
  // handed over (#record=, a local game's from this browser: opened, not reviewed).
  const linked = /^#(review|record)=/.exec(location.hash);
  const inLink = linked ? decodeRecord(location.hash.slice(linked[0].length)) : null;
  if (inLink !== null) {
    await load(inLink);
    if (linked[1] === "review" && game && game.analysable && game.moves.length) $("#an-review-start").click();
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
    document.removeEventListener("languagechange", onLanguage);
    socket.close();
  };
}
