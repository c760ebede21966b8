// The table's board: the position as it is (or as it was, looking back), the moves the
// player may make through the Picker, the last move, a hint and the moves as they are
// played, turned so that this browser's seat sits at the bottom.

import { ends } from "../analysis-api.js";
import { Board } from "../board.js";
import { t } from "../i18n.js";
import { Picker } from "../picker.js";
import { shownLine } from "./view-status.js";

const NAMES_KEY = "sternhalma.holeNames";
const NONE = []; // no move on offer

export class BoardView {
  /**
   * @param {(selector) => Element} $ the page's elements
   * @param {TableCtrl} ctrl
   * @param {object} geometry the board's description from the catalogue
   * @param {() => void} onHighlight called after the marks change (the status tells what to pick)
   */
  constructor($, ctrl, geometry, onHighlight) {
    this.ctrl = ctrl;
    this.picker = new Picker(ctrl.variant.game, {
      onPlay: (move) => ctrl.move(move.path),
      onHighlight: () => {
        this.dim();
        this.drawForeseen();
        onHighlight();
      },
      loopButton: $("#loop"),
      sayMovable: true,
    });
    this.board = new Board($("#board"), geometry, this.picker.boardOptions());
    this.picker.board = this.board;
    this.board.svg.setAttribute("aria-label", t("board.label"));
    this.bottomSeat = null;
    this.drawn = null; // the state or the look on the board
    this.offered = NONE; // the legal paths the picker offers
    this.hinted = null; // the ctrl's hint the picker was given
    this.foreseen = NONE; // the hint's foreseen moves drawn

    $("#loop").addEventListener("click", () => this.picker.playLoop());
    const coords = $("#coords");
    this.board.showNames(localStorage.getItem(NAMES_KEY) === "on");
    coords.checked = this.board.namesShown;
    coords.addEventListener("change", () => {
      localStorage.setItem(NAMES_KEY, coords.checked ? "on" : "off");
      this.board.showNames(coords.checked);
    });
    // Escape puts the piece back wherever the focus is (after Hint it is on the button).
    this.escape = (event) => {
      if (event.key !== "Escape" || event.defaultPrevented || !this.picker.selected) return;
      if (document.querySelector("dialog[open]")) return;
      event.preventDefault();
      this.picker.cancel();
    };
    document.addEventListener("keydown", this.escape);
  }

  render() {
    const ctrl = this.ctrl;
    if (ctrl.viewing !== null) {
      this.offer(NONE);
      if (ctrl.looked && ctrl.looked !== this.drawn) this.drawLook(ctrl.looked);
      return;
    }
    if (ctrl.state !== this.drawn) this.drawState(ctrl.state);
    this.offer(ctrl.playable() ? ctrl.state.legal : NONE);
    if (ctrl.hint !== this.hinted) {
      this.hinted = ctrl.hint;
      if (ctrl.hint) this.picker.select(ctrl.hint[0], ctrl.hint);
    }
    this.drawForeseen();
  }

  /** Draws what the hint's search foresees, numbered, while the hint is shown. */
  drawForeseen() {
    const line = shownLine(this.ctrl, this.picker);
    if (line === this.foreseen || (!line.length && !this.foreseen.length)) return;
    this.foreseen = line;
    const seats = this.ctrl.state.seats;
    this.board.showLine(line.map(({ seat, path }) => ({ path, colour: seats[seat].colour })));
  }

  /** Offers ``paths`` to the picker (a new offer drops the piece picked up). */
  offer(paths) {
    if (paths === this.offered) return;
    this.offered = paths;
    this.picker.setMoves(paths.map((path) => ({ path })));
  }

  drawState(state) {
    this.drawn = state;
    this.orient();
    this.board.setPosition(state.position);
    const last = state.moves[state.moves.length - 1];
    this.board.mark("last", last ? ends(last.text.split("-")) : []);
    this.offered = null; // offered again: the marks and paths of the last state go
  }

  drawLook(look) {
    this.drawn = look;
    this.board.setPosition(look.position);
    const move = this.ctrl.state.moves[look.ply - 1];
    const path = move ? move.text.split("-") : null;
    this.board.mark("last", ends(path));
    this.board.showPath(path, "history");
  }

  /** The seat to move at the bottom when it is this browser's, else the last one that was. */
  orient() {
    const { state, variant, mySeats } = this.ctrl;
    if (this.ctrl.isMine(state.turn)) this.bottomSeat = state.turn;
    if (this.bottomSeat === null) this.bottomSeat = mySeats.length ? mySeats[0] : 0;
    this.board.turnHomeDown(variant.homes ? variant.homes[this.bottomSeat] : null);
    this.board.showGoal(variant.goals ? variant.goals[this.bottomSeat] : null);
  }

  /** Greys the holes where the picked-up marble may not end its move. */
  dim() {
    const { state, variant } = this.ctrl;
    this.board.mark("dim", this.picker.selected && variant.no_end ? variant.no_end[state.turn] : []);
  }

  /** Shows a move of the table as it is played (nothing can be picked up meanwhile). */
  async animate(event) {
    this.offer(NONE);
    await this.board.animate(event.path, event.removed || []);
  }

  /** The labels again, in a new language. */
  relabel() {
    this.board.svg.setAttribute("aria-label", t("board.label"));
    this.board.refreshLabels();
    this.picker.labelLoop();
  }

  /** The tab stop, after the player looked back (the focus was on the move list). */
  focus() {
    this.board.svg.querySelector(".hole[tabindex='0']")?.focus();
  }

  dispose() {
    document.removeEventListener("keydown", this.escape);
  }
}
