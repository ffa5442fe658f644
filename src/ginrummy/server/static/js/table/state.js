// The match state: the latest state message from the server, the facts the table derives from it,
// and what this browser remembers about the match between reloads (sessionStorage, per match).
import { t } from "../i18n.js";
import { playerName } from "../names.js";
import { knockChoice } from "./knock.js";

/** Values kept in sessionStorage under "gr-<key>-<match id>" (they survive a reload of the tab). */
export class MatchMemory {
  constructor(matchId) {
    this.matchId = matchId;
  }

  get(key, fallback) {
    try {
      const value = sessionStorage.getItem(`gr-${key}-${this.matchId}`);
      return value === null ? fallback : JSON.parse(value);
    } catch {
      return fallback;
    }
  }

  set(key, value) {
    sessionStorage.setItem(`gr-${key}-${this.matchId}`, JSON.stringify(value));
  }
}

export class TableState {
  constructor(matchId) {
    this.matchId = matchId;
    this.memory = new MatchMemory(matchId);
    this.message = null; // the latest "state" message
    this.commitments = this.memory.get("commitments", {}); // hand number -> commitment seen before the deal
    this.seenShowdown = this.memory.get("seen", 0); // the last hand whose showdown this browser showed
    this.handNumber = null; // the hand on the table, to spot a new deal
    this.previousHand = [];
    this.newCard = null; // the card just drawn, to mark it
    this.timedOut = []; // seats whose turn clock ran out with the latest message
    this.hintMessage = null; // the latest hint from the server (for the position of its version)
    this.hintAsked = null; // the version a hint was asked for and has not come yet
  }

  /**
   * True when `message` is older than the state on the table (a lower version of this match): it
   * is not shown. After a server failover a copy from a process that lost the match may still come;
   * the newer state follows at once.
   */
  isStale(message) {
    return Boolean(this.message) && typeof message.version === "number" && message.version < this.message.version;
  }

  /** Take a new state message; returns true when it deals a new hand. */
  update(message) {
    const before = this.message;
    this.message = message;
    // Seats whose turn clock has just run out (the server moved for them): both players are told.
    this.timedOut = [];
    if (before && before.match && message.match) {
      for (const p of message.match.players || []) {
        const old = (before.match.players || []).find((x) => x.seat === p.seat);
        if (old && (p.timeouts || 0) > (old.timeouts || 0)) this.timedOut.push(p.seat);
      }
    }
    const v = message.view;
    const m = message.match;
    if (v && m && m.commitment && v.phase !== "over" && !this.commitments[v.hand_number]) {
      this.commitments[v.hand_number] = m.commitment;
      this.memory.set("commitments", this.commitments);
    }
    return this.trackHand(v);
  }

  trackHand(v) {
    if (!v) return false;
    const cards = v.hand;
    if (this.handNumber !== v.hand_number) {
      this.handNumber = v.hand_number;
      this.newCard = null;
      this.previousHand = cards;
      return true;
    }
    if (cards.length > this.previousHand.length) {
      const added = cards.filter((c) => !this.previousHand.includes(c));
      this.newCard = added.length === 1 ? added[0] : null;
    } else if (cards.length < this.previousHand.length) {
      this.newCard = null;
    }
    this.previousHand = cards;
    return false;
  }

  /** The finished hand whose showdown this browser has not shown yet, or null. */
  unseenShowdown() {
    const message = this.message;
    if (!message) return null;
    const v = message.view;
    const finished = v && v.phase === "over" && v.showdown ? v : message.last_hand;
    if (finished && finished.showdown && finished.hand_number > this.seenShowdown) return finished;
    return null;
  }

  /** A hint arrived from the server (it is for the position of its version only). */
  setHint(message) {
    this.hintMessage = message;
    this.hintAsked = null;
  }

  /** The hint for the position on the table now, or null. */
  get hint() {
    const hint = this.hintMessage;
    return hint && hint.version === this.version && this.myTurn() ? hint : null;
  }

  /** True when this table gives hints (casual matches) and it is this player's turn to use one. */
  canAskHint() {
    const m = this.match;
    return Boolean(m && m.hints && m.status === "playing" && this.myTurn());
  }

  /** The card the hint is about (the one to discard or to knock with), or null. */
  hintedCard() {
    const hint = this.hint;
    return hint && (hint.action.type === "discard" || hint.action.type === "knock") ? hint.action.card : null;
  }

  markShowdownSeen(handNumber) {
    this.seenShowdown = Math.max(this.seenShowdown, handNumber);
    this.memory.set("seen", this.seenShowdown);
  }

  // --- facts derived from the latest message ----------------------------------------------

  get view() {
    return this.message && this.message.view;
  }

  get match() {
    return this.message && this.message.match;
  }

  get result() {
    return this.message && this.message.result;
  }

  get version() {
    return this.message ? this.message.version : undefined;
  }

  get seat() {
    return this.match ? this.match.seat : 0;
  }

  get legal() {
    return (this.view && this.view.legal) || [];
  }

  canDraw(source) {
    return this.legal.some((a) => a.type === "draw" && a.source === source);
  }

  canPass() {
    return this.legal.some((a) => a.type === "pass");
  }

  canDiscard(card) {
    return this.legal.some((a) => a.type === "discard" && a.card === card);
  }

  knockCards() {
    return this.legal.filter((a) => a.type === "knock").map((a) => a.card);
  }

  canBigGin() {
    return this.legal.some((a) => a.type === "big_gin");
  }

  myTurn() {
    return this.legal.length > 0;
  }

  /** True when this player let the turn clock run out again and again: a robot plays for them. */
  iAmAway() {
    const me = ((this.match && this.match.players) || []).find((p) => p.seat === this.seat);
    return Boolean(me && me.autoplay && me.timeouts > 0);
  }

  /** The player in `seat`, with a name to show (an empty seat reads "Waiting for a player"). */
  player(seat) {
    const players = (this.match && this.match.players) || [];
    const found = players.find((p) => p.seat === seat);
    if (found && found.name) return { ...found, name: playerName(found) };
    return { ...(found || { seat, kind: null, connected: false }), name: t("table.empty_seat") };
  }

  /** Display names by seat: "You" for this seat (`inText`: the form used inside a sentence). */
  names(inText = false) {
    const out = [this.player(0).name, this.player(1).name];
    out[this.seat] = inText ? t("table.you_in_text") : t("table.you");
    return out;
  }

  opponentName() {
    return this.player(1 - this.seat).name;
  }

  target() {
    const m = this.match;
    const v = this.view;
    return (m && m.rules && m.rules.target) || (v && v.rules && v.rules.target) || 100;
  }

  /** The card taken from the discard pile this turn (it may not be discarded until a later turn). */
  takenCard() {
    const v = this.view;
    if (!v || v.phase !== "discard" || !this.myTurn()) return null;
    const last = v.history[v.history.length - 1];
    if (last && last.seat === this.seat && last.action.type === "draw" && last.action.source === "discard") {
      return last.card || null;
    }
    return null;
  }

  /** The knock choice for the `selected` card (table/knock.js), or null when knocking is not allowed. */
  knockChoice(selected) {
    return knockChoice(this.view && this.view.hand, this.legal, selected);
  }
}
