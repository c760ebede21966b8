// The game review on the analysis board: its progress, the graph along the game, each
// player's summary, and the move shown judged, with the better move drawn on the board.

import { el, swatch } from "./svg.js";
import { t } from "./i18n.js";
import { colourName } from "./words.js";

/** Fills the review card. ``view``: {review, ply, trying, go(ply)}. */
export function renderReview($, view) {
  const { review } = view;
  const box = $("#an-progress-box");
  const running = review && !review.finished;
  $("#an-review-start").hidden = Boolean(review);
  box.hidden = !review;
  if (review) {
    $("#an-progress").max = Math.max(1, review.total);
    $("#an-progress").value = review.done;
    $("#an-progress-text").textContent = running ? t("analysis.reviewing", { done: review.done, total: review.total }) : t("analysis.reviewed", { total: review.total });
  }
  drawGraph($("#an-graph"), view);
  renderSummary($("#an-summary"), review);
}

/** The judged move shown (the game's move ``ply``), or null (the start, a tried move, not yet judged). */
export function judgedMove({ review, ply, trying }) {
  return review && ply > 0 && !trying ? review.moves[ply - 1] || null : null;
}

/** The computer's move where ``judged`` was played, when it would have lost fewer moves. */
export function betterMove(judged) {
  return judged && judged.loss > 0 && judged.best && judged.best.text !== judged.played.text ? judged.best : null;
}

/** Says what the review thought of the move shown, and draws its better move on the board. */
export function renderVerdict($, board, view) {
  const judged = judgedMove(view);
  const better = betterMove(judged);
  const line = $("#an-verdict");
  line.replaceChildren();
  board.showPath(better ? better.path : null, "better", "second");
  if (!judged) return;
  const parts = [t("analysis.moveVerdict", {
    n: judged.number,
    colour: colourName(judged.seat),
    move: judged.played.text,
    verdict: t(`analysis.verdict.${judged.verdict}`),
  })];
  if (better) parts.push(t(judged.loss === 1 ? "analysis.betterOne" : "analysis.better", { best: better.text, n: judged.loss }));
  line.append(swatch(judged.seat, 16), ` ${parts.join(" ")}`);
}

function renderSummary(list, review) {
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

function drawGraph(box, { review, ply, go }) {
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
    const bounds = svg.getBoundingClientRect();
    go(Math.round(((event.clientX - bounds.left) / bounds.width) * n));
  });
  box.appendChild(svg);
  const legend = document.createElement("p");
  legend.className = "hint";
  legend.textContent = two ? t("analysis.graphRace") : t("analysis.graphToGo");
  box.appendChild(legend);
}
