// Picking a move on a board from a list of legal moves (the table, the analysis board's
// tried moves and the crossing puzzle): click a marble, its targets light up, click one.
// A capture chain may come back to its start (a loop, played by its own button: a click
// on the picked-up piece puts it back), and several chains may end on one hole (the
// player chooses which, each chain drawn on the board as its choice is hovered or focused).

import { choose } from "./dialogs.js";
import { t } from "./i18n.js";
import { thingName } from "./words.js";

const end = (move) => move.path[move.path.length - 1];
const chain = (move) => move.path.join("-");

export class Picker {
  /**
   * @param {string} game the game's word for the labels ("chinese-checkers", "halma", "capture")
   * @param {object} options
   *   onPlay(move): called with the chosen {path, ...} move (after the picker let go of it)
   *   onHighlight(): called after the marks change
   *   loopButton: the button that offers a loop back to the picked-up piece (its page wires
   *     the click to playLoop), if loops can happen
   *   sayMovable: the movable marbles' labels say so (the table's players hear whose turn it is)
   */
  constructor(game, { onPlay, onHighlight = () => {}, loopButton = null, sayMovable = false }) {
    this.game = game;
    this.onPlay = onPlay;
    this.onHighlight = onHighlight;
    this.loopButton = loopButton;
    this.sayMovable = sayMovable;
    this.board = null;
    this.legal = [];
    this.selected = null;
    this.hint = null; // a suggested path, shown until the player picks up something else
  }

  /** The options for ``new Board``: labels, clicks, hovers and Escape go through the picker. */
  boardOptions() {
    return {
      interactive: true,
      label: (name) => this.label(name),
      onActivate: (name) => this.activate(name),
      onHover: (name) => this.hover(name),
      onCancel: () => this.cancel(),
    };
  }

  /** The moves now on offer ([] while none may be played); drops the marble picked up. */
  setMoves(moves) {
    this.legal = moves;
    this.selected = null;
    this.hint = null;
    this.highlight();
  }

  movesFrom(name) {
    return this.legal.filter((m) => m.path[0] === name);
  }

  /** The picked-up marble's moves that end on ``name``. */
  movesTo(name) {
    return this.selected ? this.movesFrom(this.selected).filter((m) => end(m) === name) : [];
  }

  /** The holes the picked-up marble can reach, not its own (a loop has its button). */
  targets() {
    return this.selected ? [...new Set(this.movesFrom(this.selected).map(end))].filter((n) => n !== this.selected) : [];
  }

  hasLoop() {
    return this.movesTo(this.selected).length > 0;
  }

  /** Picks up ``name``; a hint's path stays drawn until the player picks up another. */
  select(name, hint = null) {
    this.selected = name;
    this.hint = hint;
    this.highlight();
  }

  /** Puts the picked-up marble back, the focus on its hole. */
  cancel() {
    const was = this.selected;
    if (!was) return;
    this.select(null);
    this.board.hole(was).focus();
  }

  highlight() {
    const board = this.board;
    if (!board) return;
    const starts = [...new Set(this.legal.map((m) => m.path[0]))];
    const targets = this.targets();
    board.mark("movable", this.selected ? [] : starts);
    board.mark("selected", this.selected ? [this.selected] : []);
    board.mark("target", targets);
    const stops = this.selected ? [this.selected, ...targets] : starts;
    board.setTabStops(stops.length ? stops : [board.names[Math.floor(board.names.length / 2)]]);
    board.refreshLabels();
    board.showPath(this.hint, "hint");
    this.labelLoop();
    this.onHighlight();
  }

  labelLoop() {
    if (!this.loopButton) return;
    this.loopButton.hidden = !this.hasLoop();
    this.loopButton.textContent = this.selected ? t("action.loop", { hole: this.selected }) : "";
  }

  label(name) {
    const colour = this.board.colourAt(name);
    const parts = [name, colour === undefined ? t("hole.empty") : thingName(this.game, colour)];
    if (this.selected === name) parts.push(t(this.hasLoop() ? "hole.selectedLoop" : "hole.selected"));
    else if (this.targets().includes(name)) parts.push(t("hole.target"));
    else if (this.sayMovable && !this.selected && this.movesFrom(name).length) parts.push(t("hole.movable"));
    return parts.join(", ");
  }

  /** A click on a hole: a lit hole plays, a movable marble is picked up, the picked-up one goes back. */
  async activate(name) {
    if (this.targets().includes(name)) await this.play(name);
    else if (name !== this.selected && this.movesFrom(name).length) this.select(name);
    else this.cancel();
  }

  /** Shows the path of the picked-up marble's move to ``name`` (the first, when several). */
  hover(name) {
    if (!this.selected || this.hint) return;
    this.board.showPath(this.movesTo(name)[0]?.path ?? null);
  }

  playLoop() {
    if (this.hasLoop()) this.play(this.selected);
  }

  /** Plays the picked-up marble to ``name`` (its own hole for a loop), asking which chain
   * when several end there. */
  async play(name) {
    const moves = this.movesTo(name);
    let move = moves[0];
    if (moves.length > 1) {
      // Each chain is drawn on the board as the player looks at its button.
      const preview = (option) => this.board.showPath(moves.find((m) => chain(m) === option)?.path ?? null, "preview", "second");
      const answer = await choose(t("choose.title"), moves.map(chain), t("confirm.cancel"), preview);
      move = moves.find((m) => chain(m) === answer);
      // Not when the moves changed while the player chose (the table moved on meanwhile).
      if (!move || !this.legal.includes(move)) return;
    }
    this.setMoves([]);
    await this.onPlay(move);
    this.board.hole(name)?.focus();
  }
}
