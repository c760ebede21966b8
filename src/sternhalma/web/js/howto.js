// "How to play" pages: one HTML fragment per game and language in /static/howto/,
// with small diagrams drawn by the same board code as the table:
// <figure class="diagram" data-board="star" data-marbles="white:m1 m2;black:m3"
//         data-path="m1-m3-k5" data-crop="j1 n1 i7 n7" data-lit="k5 l4"> <figcaption>…

import { catalogue } from "./api.js";
import { Board } from "./board.js";
import { language, t, translate } from "./i18n.js";

function words(text) {
  return (text || "").split(/[\s,]+/).filter(Boolean);
}

export async function drawDiagrams(root) {
  const data = await catalogue();
  for (const figure of root.querySelectorAll("figure.diagram")) {
    const holder = document.createElement("div");
    holder.className = "diagram-board";
    figure.prepend(holder);
    const board = new Board(holder, data.boards[figure.dataset.board || "star"], { interactive: false });
    const position = figure.dataset.pieces !== undefined ? { pieces: words(figure.dataset.pieces) } : { marbles: {} };
    for (const part of (figure.dataset.marbles || "").split(";").filter(Boolean)) {
      const [colour, holes] = part.split(":");
      position.marbles[colour.trim()] = words(holes);
    }
    board.setPosition(position);
    if (figure.dataset.goal) board.showGoal(words(figure.dataset.goal));
    board.mark("target", words(figure.dataset.lit));
    board.mark("dim", words(figure.dataset.grey));
    if (figure.dataset.path) board.showPath(figure.dataset.path.split("-"), "preview");
    if (figure.dataset.crop) board.fitView(words(figure.dataset.crop));
    const caption = figure.querySelector("figcaption");
    board.svg.setAttribute("aria-label", caption ? caption.textContent : "");
  }
}

export async function showHowTo(root, game) {
  const { games } = await catalogue();
  if (!games.includes(game)) game = games[0];
  const render = async () => {
    const response = await fetch(`/static/howto/${language()}/${game}.html`);
    root.innerHTML = `
      <nav class="howto-nav" aria-label="${t("howto.games")}">
        ${games.map((g) => `<a href="/how-to-play/${g}" data-link ${g === game ? 'aria-current="page"' : ""} data-i18n="game.${g}"></a>`).join("")}
      </nav>
      <article class="howto card">${await response.text()}</article>
      <p><a href="/rules.md" data-i18n="howto.rules"></a></p>
      <p><a href="/" data-link class="button primary" data-i18n="action.play"></a></p>`;
    translate(root);
    await drawDiagrams(root);
  };
  document.addEventListener("languagechange", render);
  await render();
  return () => document.removeEventListener("languagechange", render);
}
