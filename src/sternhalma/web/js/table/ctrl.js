// The table's controller: the state the server sent, what this browser asks of it and
// the socket's reconnects (docs/protocol.md). The server is authoritative: this sends
// intentions and keeps the state that comes back. No DOM here: after every change the
// views (view-*.js) draw the table again from this object. A local table (docs/browser.md)
// is the same conversation with the engine's worker in this browser instead of the server.

import { identity, rememberIdentity, rememberToken, tokenFor, TableSocket } from "../api.js";
import { EngineSocket, isLocal } from "../engine.js";
import { has, t } from "../i18n.js";
import { recordGame } from "../records.js";

export class TableCtrl {
  /**
   * @param {string} id the table
   * @param {object[]} variants the catalogue's variants
   * @param {object} hooks
   *   redraw(): the views draw the table again
   *   animate(event): resolves once a move event has been shown moving on the board
   *   confirmOut(): resolves true when the player plays a move that puts them out all the same
   *   navigate(path): goes to another page (the rematch's table)
   *   missing(): the table does not exist
   */
  constructor(id, variants, hooks) {
    this.id = id;
    this.variants = variants;
    this.hooks = hooks;
    this.state = null;
    this.variant = null;
    this.mySeats = [];
    this.connection = "open";
    this.receivedAt = performance.now(); // when the state (and its clock) came
    this.pending = false; // a move sent, the answer not back yet
    this.confirming = false; // the player is asked whether to play a move that puts them out
    this.askingHint = false;
    this.hint = null; // the hinted path for this state
    this.hintLine = []; // what the hint's search foresees after it: [{seat, path}]
    this.viewing = null; // the ply looked back at; null for the table as it is
    this.looked = null; // the server's answer to the last look: {ply, position}
    this.notice = "";
    this.recorded = false; // the game counted in this browser's records
    this.chat = []; // the chat lines this viewer may read (view-chat.js)
    this.publicUrl = null; // the address to share links with (serve --public-url)
    this.inbox = [];
    this.working = false;
    this.local = isLocal(id); // played in this browser's engine, not on the server
    this.recordUrl = null; // a local game's record, as a file to download
    this.recordText = null; // ... and as text, for the analysis board
    this.socket = new (this.local ? EngineSocket : TableSocket)(
      id,
      (message) => {
        this.inbox.push(message);
        this.drain();
      },
      (status) => this.connectionChanged(status),
    );
  }

  connectionChanged(status) {
    // Open again is not yet up to date: the table may have moved on meanwhile. Until
    // the welcome brings it as it is, the board takes no moves (they would be lost).
    if (status !== "closed") return;
    this.connection = "closed";
    if (this.state) this.hooks.redraw();
  }

  /** One message at a time, in order: a move's animation finishes before the next. */
  async drain() {
    if (this.working) return;
    this.working = true;
    try {
      while (this.inbox.length) await this.handle(this.inbox.shift());
    } finally {
      this.working = false;
    }
  }

  async handle(message) {
    switch (message.type) {
      case "welcome": {
        this.connection = "open";
        this.mySeats = message.seats;
        const missed = this.state && message.missed ? message.missed.filter((e) => e.event.kind === "move" && e.v > this.state.v) : [];
        if (missed.length) this.notice = t("online.missed", { n: missed.length });
        this.chat = message.chat || [];
        this.setState(message.state);
        break;
      }
      case "sync":
        this.setState(message.state);
        break;
      case "presence":
        if (this.state) {
          this.state.present = message.present;
          this.state.watchers = message.watchers;
          if (message.countdowns) this.state.countdowns = message.countdowns;
          this.receivedAt = performance.now();
          this.hooks.redraw();
        }
        break;
      case "seated":
        rememberToken(this.id, message.token);
        rememberIdentity(message.player);
        this.mySeats = [message.seat];
        if (message.chat) this.chat = message.chat;
        this.notice = "";
        if (this.state) this.hooks.redraw();
        break;
      case "event":
        await this.happened(message);
        break;
      case "chat":
        this.chat.push(message.line);
        this.hooks.redraw();
        break;
      case "chat-history":
        this.chat = message.lines;
        this.hooks.redraw();
        break;
      case "error":
        if (!this.state && (message.code === "no-table" || message.code === "engine-failed")) {
          this.close();
          this.hooks.missing(message.code === "engine-failed" ? message.message : null);
          return;
        }
        this.notice = has(`error.${message.code}`) ? t(`error.${message.code}`) : message.message;
        this.pending = false;
        this.askingHint = false;
        if (message.state) this.setState(message.state);
        else if (this.state) this.hooks.redraw();
        break;
      case "confirm": {
        this.pending = false;
        this.confirming = true;
        this.hooks.redraw();
        const yes = await this.hooks.confirmOut();
        this.confirming = false;
        if (yes) this.move(message.path, true);
        else this.hooks.redraw();
        break;
      }
      case "hint":
        if (this.state && message.v === this.state.v) {
          this.hint = message.path;
          this.hintLine = message.line ?? [];
          this.askingHint = false;
          this.hooks.redraw();
        }
        break;
      case "record":
        if (this.recordUrl) URL.revokeObjectURL(this.recordUrl);
        this.recordUrl = URL.createObjectURL(new Blob([message.text], { type: "text/plain" }));
        this.recordText = message.text;
        if (this.state) this.hooks.redraw();
        break;
      case "look":
        if (this.viewing === message.ply) {
          this.looked = message;
          this.hooks.redraw();
        }
        break;
      default:
        break;
    }
  }

  async happened(message) {
    if (this.state && message.v <= this.state.v) return; // already seen (a reconnect's overlap)
    const event = message.event;
    if (event.kind === "move" && this.state && this.viewing === null) await this.hooks.animate(event);
    if (event.kind === "rematch" && this.mySeats.length && (this.local || tokenFor(this.id))) {
      if (!this.local) rememberToken(event.table, tokenFor(this.id));
      this.setState(message.state);
      this.hooks.navigate(`/table/${event.table}`);
      return;
    }
    if (event.kind === "error" && event.code === "computer-failed") this.notice = t("error.computer");
    this.hooks.heard?.(message);
    this.setState(message.state);
  }

  setState(state) {
    this.state = state;
    this.variant = this.variants.find((v) => v.id === state.variant);
    this.receivedAt = performance.now();
    this.pending = false;
    this.hint = null;
    this.hintLine = [];
    if (state.over && this.mySeats.length && recordGame(state)) this.recorded = true;
    if (state.over && this.local && !this.recordUrl) this.socket.send({ type: "record" });
    this.hooks.redraw();
  }

  isMine(seat) {
    return seat !== null && seat !== undefined && this.mySeats.includes(seat) && this.state.seats[seat].kind !== "computer";
  }

  /** Whether this browser may play a move now. */
  playable() {
    const state = this.state;
    return Boolean(state) && this.connection === "open" && !state.over && this.viewing === null && !this.pending
      && this.isMine(state.turn) && state.legal.length > 0;
  }

  /** The time ``seat`` has left now (its clock runs down from when the state came). */
  clockLeft(seat) {
    const clock = this.state.clock;
    const left = clock.remaining[seat];
    return clock.running === seat ? left - (performance.now() - this.receivedAt) : left;
  }

  // -- what this browser asks --------------------------------------------------------
  say(notice) {
    this.notice = notice;
    this.hooks.redraw();
  }

  /** ``confirm``: the player was asked and plays the move that puts them out all the same. */
  move(path, confirm = false) {
    this.pending = true;
    this.notice = "";
    this.socket.send({ type: "move", seat: this.state.turn, path, confirm, v: this.state.v });
    this.hooks.redraw();
  }

  undo() {
    this.say("");
    this.socket.send({ type: "undo" });
  }

  askHint() {
    this.askingHint = true;
    this.say("");
    this.socket.send({ type: "hint" });
  }

  resign() {
    const seat = this.isMine(this.state.turn) ? this.state.turn : this.mySeats.length === 1 ? this.mySeats[0] : undefined;
    this.socket.send({ type: "resign", seat });
  }

  /** Claims the seat of a player who left: "win", "draw", "computer" or "out". */
  claim(seat, claim) {
    this.socket.send({ type: "claim", seat, claim });
  }

  /** Says ``text`` at the table (a spectator under this browser's identity). */
  speak(text) {
    const who = identity();
    this.socket.send({ type: "chat", text, identity: who ? who.secret : null });
  }

  /** The ms left of a countdown (view-absent.js) now: it runs down from when it came. */
  countdownLeft(countdown) {
    return countdown.left - (performance.now() - this.receivedAt);
  }

  abort() {
    this.socket.send({ type: "abort" });
  }

  rematch() {
    this.socket.send({ type: "rematch" });
  }

  /** Sits down on ``seat``; false (and a notice) without a nickname. */
  sit(seat, nickname) {
    if (!nickname) {
      this.say(t("error.nickname"));
      return false;
    }
    const who = identity();
    this.socket.send({ type: "sit", seat, nickname, identity: who ? who.secret : null });
    return true;
  }

  leave() {
    this.socket.send({ type: "leave" });
    this.mySeats = [];
  }

  /** Shows the position after ``ply`` (0: the start) until back(). */
  look(ply) {
    this.viewing = ply;
    this.socket.send({ type: "look", ply });
    this.hooks.redraw();
  }

  back() {
    this.viewing = null;
    this.looked = null;
    this.hooks.redraw();
  }

  close() {
    this.socket.close();
    if (this.recordUrl) URL.revokeObjectURL(this.recordUrl);
  }
}
