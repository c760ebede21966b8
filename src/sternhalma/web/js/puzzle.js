// The crossing puzzle: white's ten marbles alone on the star cross to the facing point
// in as few moves as possible (27 is the proven minimum). The page counts the moves,
// keeps the player's best in this browser, and "Show me" plays the computer's solution.

import { catalogue } from "./api.js";
import { crossingMoves, ends } from "./analysis-api.js";
import { Board } from "./board.js";
import { Picker } from "./picker.js";
import { t, translate } from "./i18n.js";

const BEST = "sternhalma.puzzles";
const VARIANT = "classic-2";

/** The player's fewest moves per puzzle, kept in this browser only. */
export function puzzleBest(name) {
  try {
    return (JSON.parse(localStorage.getItem(BEST)) || {})[name] ?? null;
  } catch {
    return null;
  }
}

function rememberBest(name, moves) {
  let all = {};
  try {
    all = JSON.parse(localStorage.getItem(BEST)) || {};
  } catch {
    all = {};
  }
  if (all[name] !== undefined && all[name] <= moves) return false;
  all[name] = moves;
  localStorage.setItem(BEST, JSON.stringify(all));
  return true;
}

export async function showPuzzle(root) {
  const data = await catalogue();
  const solution = await (await fetch("/static/data/crossing.json")).json();
  root.innerHTML = `
    <section class="table-view puzzle-view">
      <div class="table-head">
        <h1 class="table-title" data-i18n="puzzle.title"></h1>
        <p class="hint" data-i18n="puzzle.intro"></p>
        <p id="pz-status" class="status" role="status" aria-live="polite"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <p class="keys hint" data-i18n="keys.help.chinese-checkers"></p>
      </div>
      <aside class="side">
        <dl class="card pz-counts">
          <dt data-i18n="puzzle.moves"></dt><dd id="pz-moves">0</dd>
          <dt data-i18n="puzzle.best"></dt><dd id="pz-best"></dd>
          <dt data-i18n="puzzle.minimum"></dt><dd>27</dd>
        </dl>
        <div class="actions">
          <button type="button" id="pz-undo" data-i18n="action.undo"></button>
          <button type="button" id="pz-restart" data-i18n="puzzle.restart"></button>
          <button type="button" id="pz-show" data-i18n="puzzle.showMe"></button>
          <button type="button" id="pz-stop" hidden data-i18n="puzzle.stop"></button>
        </div>
        <section class="moves" aria-labelledby="pz-list-title">
          <h2 id="pz-list-title" data-i18n="moves.title"></h2>
          <ol id="pz-list" class="move-list"></ol>
        </section>
      </aside>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);
  const variant = data.variants.find((v) => v.id === VARIANT);
  const start = { marbles: { white: variant.homes[0] } };
  const goal = new Set(variant.goals[0]);

  let positions = [start];
  let played = []; // [{text, path, after}]
  let showing = false; // "Show me" is playing
  let done = false;

  const picker = new Picker(variant.game, {
    onPlay: async (move) => {
      await play(move);
      await draw();
      if (done && rememberBest("crossing", played.length)) render();
    },
  });
  const board = new Board($("#board"), data.boards[variant.board], picker.boardOptions());
  picker.board = board;
  board.svg.setAttribute("aria-label", t("board.label"));
  board.turnHomeDown(variant.homes[0]);
  board.showGoal(variant.goals[0]);

  /** The moves from ``pos``, each with the position it leads to (``after``). */
  async function legalMoves(pos) {
    const moves = await crossingMoves(pos.marbles.white);
    return moves.map((move) => ({ ...move, after: { marbles: { white: move.white } } }));
  }

  function position() {
    return positions[positions.length - 1];
  }

  function crossed(pos) {
    return pos.marbles.white.every((hole) => goal.has(hole));
  }

  async function draw() {
    const pos = position();
    board.setPosition(pos);
    const last = played[played.length - 1];
    board.mark("last", last ? ends(last.path) : []);
    done = crossed(pos);
    picker.setMoves([]);
    render();
    if (!done && !showing) {
      const moves = await legalMoves(pos);
      if (pos === position()) picker.setMoves(moves);
    }
  }

  function render() {
    $("#pz-moves").textContent = String(played.length);
    const best = puzzleBest("crossing");
    $("#pz-best").textContent = best === null ? "–" : String(best);
    let text = t("puzzle.go");
    if (showing) text = t("puzzle.showing", { n: played.length, total: solution.moves.length });
    else if (done) text = t("puzzle.done", { n: played.length });
    $("#pz-status").textContent = text;
    $("#pz-undo").disabled = showing || !played.length;
    $("#pz-show").hidden = showing;
    $("#pz-stop").hidden = !showing;
    const list = $("#pz-list");
    list.replaceChildren();
    played.forEach((move, index) => {
      const item = document.createElement("li");
      item.textContent = `${index + 1}. ${move.text}`;
      list.appendChild(item);
    });
    list.lastElementChild?.scrollIntoView({ block: "nearest" });
  }

  async function play(move) {
    await board.animate(move.path, [], 120);
    played.push(move);
    positions.push(move.after);
  }

  function restart() {
    positions = [start];
    played = [];
    return draw();
  }

  async function showMe() {
    showing = true;
    await restart();
    for (const text of solution.moves) {
      if (!showing) break;
      const moves = await legalMoves(position());
      const [first, last] = ends(text.split("-"));
      const move = moves.find((m) => m.path[0] === first && m.path[m.path.length - 1] === last);
      if (!showing || !move) break;
      await play(move);
      board.setPosition(position());
      board.mark("last", ends(move.path));
      render();
      await new Promise((resolve) => setTimeout(resolve, 350));
    }
    showing = false;
    await draw();
  }

  $("#pz-undo").addEventListener("click", () => {
    if (!played.length) return;
    played.pop();
    positions.pop();
    draw();
  });
  $("#pz-restart").addEventListener("click", () => { showing = false; restart(); });
  $("#pz-show").addEventListener("click", showMe);
  $("#pz-stop").addEventListener("click", () => { showing = false; });
  await draw();
  return () => { showing = false; };
}
