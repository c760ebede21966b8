// The puzzle stream (/puzzles): puzzles made by `sternhalma puzzles make` from computer
// games (static/data/puzzles.json, every answer checked by the engine), served one after
// another nearest the player's puzzle rating, and a daily puzzle, the same for everyone on
// a date (UTC). The rating (Glicko-2, glicko.js) and the puzzles tried live in this
// browser. An answer is checked here against the answers the set ships; the legal moves
// come from the server (a position's, or one seat's alone for "finish in N").

import { catalogue } from "./api.js";
import { ends, legalMoves } from "./analysis-api.js";
import { Board } from "./board.js";
import { START, update } from "./glicko.js";
import { Picker } from "./picker.js";
import { t, translate } from "./i18n.js";

const STORE = "sternhalma.puzzleRating";
/** How sure the set is of a puzzle's own rating (its difficulty). */
const PUZZLE_DEVIATION = 100;

/** The player's puzzle rating and the puzzles tried ({id: 1 solved, 0 not}). */
export function puzzleRecord() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE));
    if (saved && typeof saved.rating === "number") return { tried: {}, ...saved };
  } catch {
    // a damaged entry starts again
  }
  return { ...START, tried: {} };
}

function save(record) {
  localStorage.setItem(STORE, JSON.stringify(record));
}

/** The date (UTC) and the index of its puzzle: a hash of the date, the same everywhere. */
export function dailyIndex(date, count) {
  let hash = 2166136261;
  for (const char of date) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash % count;
}

/** The next puzzle: not tried yet, nearest the player's rating (ties: the set's order). */
function nextPuzzle(puzzles, record, skip) {
  let left = puzzles.filter((p) => !(p.id in record.tried) && p.id !== skip);
  if (!left.length) left = puzzles.filter((p) => p.id !== skip);
  return left.reduce((best, p) => (Math.abs(p.rating - record.rating) < Math.abs(best.rating - record.rating) ? p : best));
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || response.statusText);
  return data;
}

export async function showPuzzles(root) {
  const [data, set] = await Promise.all([catalogue(), fetch("/static/data/puzzles.json").then((r) => r.json())]);
  const puzzles = set.puzzles;
  root.innerHTML = `
    <section class="table-view puzzle-view">
      <div class="table-head">
        <h1 class="table-title" data-i18n="puzzles.title"></h1>
        <p id="pz-task" class="hint"></p>
        <p id="pz-status" class="status" role="status" aria-live="polite"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <p class="keys hint" id="pz-keys"></p>
      </div>
      <aside class="side">
        <dl class="card pz-counts">
          <dt data-i18n="puzzles.yourRating"></dt><dd id="pz-rating"></dd>
          <dt data-i18n="puzzles.puzzleRating"></dt><dd id="pz-difficulty"></dd>
          <dt data-i18n="puzzles.kind"></dt><dd id="pz-kind"></dd>
          <dt data-i18n="puzzles.variant"></dt><dd id="pz-variant"></dd>
          <dt data-i18n="puzzles.solved"></dt><dd id="pz-solved"></dd>
        </dl>
        <div class="actions">
          <button type="button" id="pz-next" data-i18n="puzzles.next"></button>
          <button type="button" id="pz-daily" data-i18n="puzzles.daily"></button>
          <button type="button" id="pz-retry" data-i18n="puzzles.retry"></button>
          <button type="button" id="pz-answer" data-i18n="puzzles.showAnswer"></button>
        </div>
        <p class="hint"><span data-i18n="puzzles.setSize"></span> ${puzzles.length}</p>
      </aside>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);
  let board = null;
  let puzzle = null;
  let played = 0;
  let over = false;
  let daily = null;
  let goal = new Set(); // the seat's goal holes

  const picker = new Picker("chinese-checkers", { onPlay: (move) => play(move) });

  function render(text) {
    const record = puzzleRecord();
    $("#pz-rating").textContent = String(Math.round(record.rating));
    $("#pz-solved").textContent = String(Object.values(record.tried).filter((x) => x === 1).length);
    if (puzzle) {
      $("#pz-difficulty").textContent = String(puzzle.rating);
      $("#pz-kind").textContent = t(`puzzles.kind.${puzzle.kind}`);
      $("#pz-variant").textContent = t(`variant.${puzzle.variant}`);
    }
    if (text !== undefined) $("#pz-status").textContent = text;
  }

  /** Rates the first attempt at a puzzle (a win when solved), once. */
  function rate(solved) {
    const record = puzzleRecord();
    if (puzzle.id in record.tried) return;
    const after = update(record, [[{ rating: puzzle.rating, deviation: PUZZLE_DEVIATION }, solved ? 1 : 0, 1]]);
    save({ ...after, tried: { ...record.tried, [puzzle.id]: solved ? 1 : 0 } });
  }

  function startPosition() {
    return puzzle.kind === "finish" ? { marbles: { [puzzle.seat]: puzzle.marbles } } : puzzle.position;
  }

  async function movesAt(position) {
    if (puzzle.kind !== "finish") return legalMoves(position);
    const answer = await post("/api/puzzles/solo-moves", {
      variant: puzzle.variant,
      seat: puzzle.seat,
      marbles: position.marbles[puzzle.seat],
    });
    return answer.moves.map((m) => ({ ...m, after: { marbles: { [puzzle.seat]: m.marbles } } }));
  }

  async function load(next, isDaily = false) {
    puzzle = next;
    daily = isDaily ? daily : null;
    played = 0;
    over = false;
    const variant = data.variants.find((v) => v.id === puzzle.variant);
    const seat = variant.seats.indexOf(puzzle.seat);
    picker.game = variant.game;
    $("#board").replaceChildren();
    board = new Board($("#board"), data.boards[variant.board], picker.boardOptions());
    picker.board = board;
    board.svg.setAttribute("aria-label", t("board.label"));
    board.turnHomeDown(variant.homes[seat]);
    board.showGoal(variant.goals[seat]);
    goal = new Set(variant.goals[seat]);
    $("#pz-keys").textContent = t(`keys.help.${variant.game}`);
    const task = t(`puzzles.task.${puzzle.kind}`, { n: puzzle.moves, colour: t(`colour.${puzzle.seat}`), rival: t(`colour.${puzzle.rival}`) });
    $("#pz-task").textContent = daily ? `${t("puzzles.dailyOf", { date: daily })} ${task}` : task;
    root.dataset.puzzle = puzzle.id;
    await show(startPosition());
    render(t("puzzles.go"));
  }

  async function show(position) {
    board.setPosition(position);
    picker.setMoves([]);
    const moves = over ? [] : await movesAt(position);
    if (!over) picker.setMoves(moves);
  }

  const isAnswer = (move) => {
    const [first, last] = ends(move.path);
    return puzzle.answers.some(([a, b]) => a === first && b === last);
  };

  async function play(move) {
    await board.animate(move.path, [], 120);
    board.mark("last", ends(move.path));
    played += 1;
    if (puzzle.kind === "finish") {
      const home = move.after.marbles[puzzle.seat].every((h) => goal.has(h));
      if (home || played >= puzzle.moves) over = true;
      await show(move.after);
      if (home) finish(true);
      else if (over) finish(false);
      else render(t("puzzles.movesLeft", { n: puzzle.moves - played }));
      return;
    }
    over = true;
    await show(move.after);
    finish(isAnswer(move));
  }

  function finish(solved) {
    const before = Math.round(puzzleRecord().rating);
    rate(solved);
    const after = Math.round(puzzleRecord().rating);
    const change = after === before ? "" : ` (${after > before ? "+" : ""}${after - before})`;
    render(t(solved ? "puzzles.solved.now" : "puzzles.wrong") + change);
    root.dataset.result = solved ? "solved" : "wrong";
    setTimeout(() => $("#pz-next").focus(), 0); // after the picker's focus on the board
  }

  function showAnswer() {
    if (!(puzzle.id in puzzleRecord().tried)) rate(false);
    const path = puzzle.kind === "finish" ? puzzle.solution[0] : puzzle.answers[0];
    board.showPath(path, "hint");
    const text = puzzle.kind === "finish" ? puzzle.solution.map((m) => m.join("-")).join(", ") : puzzle.answers.map((m) => m.join("-")).join(", ");
    render(t("puzzles.answerIs", { moves: text }));
  }

  $("#pz-next").addEventListener("click", () => load(nextPuzzle(puzzles, puzzleRecord(), puzzle?.id)));
  $("#pz-retry").addEventListener("click", () => load(puzzle, daily !== null));
  $("#pz-answer").addEventListener("click", showAnswer);
  $("#pz-daily").addEventListener("click", () => {
    daily = new Date().toISOString().slice(0, 10);
    load(puzzles[dailyIndex(daily, puzzles.length)], true);
  });
  const wanted = new URLSearchParams(location.search);
  if (wanted.has("daily")) {
    daily = new Date().toISOString().slice(0, 10);
    await load(puzzles[dailyIndex(daily, puzzles.length)], true);
  } else {
    const named = puzzles.find((p) => p.id === wanted.get("id"));
    await load(named || nextPuzzle(puzzles, puzzleRecord(), null));
  }
  return () => {};
}
