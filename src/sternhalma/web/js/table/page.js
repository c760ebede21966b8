// The table page: the board, whose turn it is, the players, the move list, undo, hint,
// resign, the end of the game and the rematch. The controller (ctrl.js) keeps the state
// and talks to the server; the views (view-*.js) draw it, each its part of the page.

import { catalogue } from "../api.js";
import { ask } from "../dialogs.js";
import { t, translate } from "../i18n.js";
import { variantName } from "../words.js";
import { TableCtrl } from "./ctrl.js";
import { soundView } from "./sound.js";
import { absentView } from "./view-absent.js";
import { chatView } from "./view-chat.js";
import { actionsView } from "./view-actions.js";
import { BoardView } from "./view-board.js";
import { clocksView } from "./view-clocks.js";
import { movesView } from "./view-moves.js";
import { onlineView } from "./view-online.js";
import { playersView } from "./view-players.js";
import { resultView } from "./view-result.js";
import { statusView } from "./view-status.js";

const PAGE = `
  <section class="table-view">
    <div class="table-head">
      <h1 class="table-title" id="table-title"></h1>
      <p id="table-info" class="hint table-info"></p>
      <p id="status" class="status" role="status" aria-live="polite"></p>
      <p id="foreseen" class="hint foreseen" hidden></p>
      <p id="notice" class="notice" role="alert"></p>
      <section id="countdowns" class="countdowns" hidden aria-live="polite"></section>
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
        <p class="hint" id="share-local" data-i18n="online.shareLocal" hidden></p>
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
      <section id="chat" class="chat card" hidden aria-labelledby="chat-title">
        <h2 id="chat-title"></h2>
        <ul id="chat-lines" class="chat-lines" aria-live="polite"></ul>
        <form id="chat-form" class="chat-form">
          <input id="chat-text" maxlength="140" autocomplete="off" data-i18n-attr="aria-label:chat.say">
          <button type="submit" data-i18n="chat.send"></button>
        </form>
        <p id="chat-who" class="hint" data-i18n="chat.needName" hidden></p>
      </section>
      <label class="check sound"><input type="checkbox" id="sound"> <span data-i18n="sound.on"></span></label>
      <section class="moves" aria-labelledby="moves-title">
        <h2 id="moves-title" data-i18n="moves.title"></h2>
        <ol id="move-list" class="move-list"></ol>
      </section>
    </aside>
  </section>`;

export async function showTable(root, id, navigate) {
  const data = await catalogue();
  root.innerHTML = PAGE;
  translate(root);
  const $ = (selector) => root.querySelector(selector);

  let board = null; // the BoardView, once the first state tells the variant
  const ctrl = new TableCtrl(id, data.variants, {
    redraw,
    animate: (event) => board.animate(event),
    confirmOut: () => ask(t("confirm.out"), t("confirm.play"), t("confirm.cancel")),
    navigate,
    missing: (why) => showMissing(root, why),
    heard: (message) => sound.heard(message),
  });
  ctrl.publicUrl = data.public_url || null;
  const sound = soundView($, ctrl);
  const absent = absentView($, ctrl);
  const renderStatus = statusView($, ctrl);
  const clocks = clocksView(root, ctrl);
  const views = [
    playersView($, ctrl),
    clocks.render,
    actionsView($, ctrl),
    onlineView($, ctrl),
    movesView($, ctrl, () => board.focus()),
    resultView($, ctrl),
    absent.render,
    chatView($, ctrl),
  ];

  function redraw() {
    if (!ctrl.state) return;
    if (!board) {
      board = new BoardView($, ctrl, data.boards[ctrl.variant.board], () => renderStatus(board.picker));
      labelTable();
    }
    board.render();
    for (const render of views) render();
    renderStatus(board.picker);
  }

  /** The texts that name the game and the variant, again after a change of language. The
   * header and the page title name this table's game, not the lobby's default. */
  function labelTable() {
    const game = ctrl.variant.game;
    const brand = document.querySelector(".brand [data-i18n]");
    brand.dataset.i18n = `game.${game}`;
    brand.textContent = t(`game.${game}`);
    const title = `${t(`game.${game}`)} · ${variantName(ctrl.variant.id)}`;
    $("#table-title").textContent = title;
    document.title = title;
    $("#keys").textContent = t(`keys.help.${game}`);
    $("#coords-text").textContent = t(`board.names.${game}`);
  }

  const relabel = () => {
    if (!board) return;
    labelTable();
    board.relabel();
    redraw();
  };
  document.addEventListener("languagechange", relabel);
  return () => {
    clocks.stop();
    absent.stop();
    sound.stop();
    board?.dispose();
    document.removeEventListener("languagechange", relabel);
    ctrl.close();
  };
}

/** An unknown table (or a local one whose engine would not load, ``why``): the message
 * and the way back, none of a table's buttons. */
function showMissing(root, why = null) {
  root.innerHTML = `<section class="missing card"><h1></h1><p class="hint"></p>
    <a href="/" data-link class="button" data-i18n="action.lobby"></a></section>`;
  translate(root);
  root.querySelector("h1").textContent = t(why ? "error.engine-failed" : "error.no-table");
  root.querySelector("p").textContent = why || "";
}
