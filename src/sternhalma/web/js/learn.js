// The rules lesson (/learn): learn by doing. Each step shows a position and asks for a
// move; the legal moves, and which of them are the asked ones, come from the engine
// (GET /api/learn, sternhalma/lessons.py). A wrong move is explained and taken back; the
// asked move opens the next step. The board's keyboard cursor works as on a table.

import { catalogue } from "./api.js";
import { ends } from "./analysis-api.js";
import { Board } from "./board.js";
import { Picker } from "./picker.js";
import { t, translate } from "./i18n.js";

export async function showLearn(root) {
  const [data, lesson] = await Promise.all([catalogue(), fetch("/api/learn").then((r) => r.json())]);
  const steps = lesson.steps;
  root.innerHTML = `
    <section class="table-view puzzle-view learn-view">
      <div class="table-head">
        <h1 class="table-title" data-i18n="learn.title"></h1>
        <p id="ln-progress" class="hint"></p>
        <h2 id="ln-step"></h2>
        <p id="ln-text"></p>
        <p id="ln-status" class="status" role="status" aria-live="polite"></p>
      </div>
      <div class="board-area">
        <div class="board-wrap" id="board"></div>
        <p class="keys hint" id="ln-keys"></p>
      </div>
      <aside class="side">
        <ol class="move-list learn-steps" id="ln-steps"></ol>
        <div class="actions">
          <button type="button" id="ln-again" data-i18n="learn.again"></button>
          <button type="button" id="ln-next" data-i18n="learn.next" disabled></button>
        </div>
      </aside>
    </section>`;
  translate(root);
  const $ = (selector) => root.querySelector(selector);
  let index = 0;
  let board = null;
  const picker = new Picker("chinese-checkers", { onPlay: (move) => play(move) });

  // Each step's title opens it: a returning learner goes straight to the rule wanted.
  function renderSteps() {
    const list = $("#ln-steps");
    list.replaceChildren();
    steps.forEach((step, i) => {
      const item = document.createElement("li");
      const open = document.createElement("button");
      open.type = "button";
      open.textContent = t(`learn.${step.id}.title`);
      open.addEventListener("click", () => load(i));
      item.appendChild(open);
      if (i === index) item.setAttribute("aria-current", "step");
      if (i < index) item.classList.add("done");
      list.appendChild(item);
    });
  }

  function load(i) {
    index = i;
    const step = steps[i];
    const variant = data.variants.find((v) => v.id === step.variant);
    picker.game = variant.game;
    $("#board").replaceChildren();
    board = new Board($("#board"), data.boards[variant.board], picker.boardOptions());
    picker.board = board;
    board.svg.setAttribute("aria-label", t("board.label"));
    if (variant.homes) board.turnHomeDown(variant.homes[0]);
    if (variant.goals) board.showGoal(variant.goals[0]);
    $("#ln-keys").textContent = t(`keys.help.${variant.game}`);
    $("#ln-progress").textContent = t("learn.progress", { n: i + 1, total: steps.length });
    $("#ln-step").textContent = t(`learn.${step.id}.title`);
    $("#ln-text").textContent = t(`learn.${step.id}.ask`);
    $("#ln-status").textContent = "";
    $("#ln-next").disabled = true;
    root.dataset.step = step.id;
    renderSteps();
    reset();
  }

  function reset() {
    const step = steps[index];
    board.setPosition(step.position);
    board.mark("last", []);
    picker.setMoves(step.moves);
  }

  async function play(move) {
    const step = steps[index];
    await board.animate(move.path, [], 150);
    board.setPosition(move.after);
    board.mark("last", ends(move.path));
    if (move.ok) {
      const last = index === steps.length - 1;
      $("#ln-status").textContent = `${t(`learn.${step.id}.done`)} ${last ? t("learn.complete") : ""}`.trim();
      root.dataset.done = last ? "true" : "false";
      $("#ln-next").disabled = last;
      if (last) localStorage.setItem("sternhalma.learned", "true");
      // After the picker has put the focus back on the board.
      setTimeout(() => (last ? $("#ln-again") : $("#ln-next")).focus(), 0);
      return;
    }
    const why = move.out ? "learn.wrong.out" : "learn.wrong";
    $("#ln-status").textContent = `${t(why, { move: move.text })} ${t(`learn.${step.id}.ask`)}`;
    setTimeout(() => {
      if (steps[index] === step) reset();
    }, 900);
  }

  $("#ln-next").addEventListener("click", () => {
    if (index < steps.length - 1) load(index + 1);
  });
  $("#ln-again").addEventListener("click", () => load(0));
  load(0);
  return () => {};
}
