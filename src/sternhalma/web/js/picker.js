// Picking a move on a board from a list of legal moves (the analysis board's tried
// moves and the crossing puzzle): click a marble, its targets light up, click one.

import { t } from "./i18n.js";
import { thingName } from "./words.js";

export class Picker {
  /**
   * @param {string} game the game's word for the labels ("chinese-checkers", "halma", "capture")
   * @param {(move) => Promise<void>} onPlay called with the chosen {text, path, ...} move
   * @param {() => void} onHighlight called after the marks change
   */
  constructor(game, onPlay, onHighlight = () => {}) {
    this.game = game;
    this.onPlay = onPlay;
    this.onHighlight = onHighlight;
    this.board = null;
    this.legal = [];
    this.selected = null;
  }

  /** The options for ``new Board``: labels, clicks and Escape go through the picker. */
  boardOptions() {
    return {
      interactive: true,
      label: (name) => this.label(name),
      onActivate: (name) => this.activate(name),
      onCancel: () => this.setMoves(this.legal),
    };
  }

  /** The moves now on offer ([] while none may be played); drops the marble picked up. */
  setMoves(moves) {
    this.legal = moves;
    this.selected = null;
    this.highlight();
  }

  movesFrom(name) {
    return this.legal.filter((m) => m.path[0] === name);
  }

  targets() {
    return this.selected ? this.movesFrom(this.selected).map((m) => m.path[m.path.length - 1]) : [];
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
    board.setTabStops(stops.length ? stops : [board.names[0]]);
    board.refreshLabels();
    this.onHighlight();
  }

  label(name) {
    const colour = this.board.colourAt(name);
    const parts = [name, colour === undefined ? t("hole.empty") : thingName(this.game, colour)];
    if (this.selected === name) parts.push(t("hole.selected"));
    else if (this.targets().includes(name)) parts.push(t("hole.target"));
    return parts.join(", ");
  }

  async activate(name) {
    if (this.selected) {
      const move = this.movesFrom(this.selected).find((m) => m.path[m.path.length - 1] === name);
      if (move) {
        this.setMoves([]);
        await this.board.animate(move.path, [], 100);
        await this.onPlay(move);
        this.board.hole(name)?.focus();
        return;
      }
    }
    this.selected = this.movesFrom(name).length ? name : null;
    this.highlight();
  }
}
