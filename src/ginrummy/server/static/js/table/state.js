// The state of a table of any game (two-player Gin, three-player Gin, team Gin, Rummy): the latest
// state message from the server, the facts the table derives from it (whose turn, this seat's hand
// and moves, the sides and their totals), and what this browser remembers about the match between
// reloads (sessionStorage, per match).
import { t } from "../i18n.js";
import { playerName } from "../names.js";
import { knockChoice } from "./knock.js";

/** Team Gin's teams: partners sit opposite. */
const TEAMS = [
  [0, 2],
  [1, 3],
];

/** Values kept in sessionStorage under "gr-<key>-<match id>" (they survive a reload of the tab). */
class MatchMemory {
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
    this.commitments = this.memory.get("commitments", {}); // deal number -> commitment(s) seen before the deal
    this.seenEnd = this.memory.get("seen", 0); // the last deal whose end this browser showed
    this.dealNumber = null; // the deal on the table, to spot a new one
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
    // Seats whose turn clock has just run out (the server moved for them): every player is told.
    this.timedOut = [];
    if (before && before.match && message.match) {
      for (const p of message.match.players || []) {
        const old = (before.match.players || []).find((x) => x.seat === p.seat);
        if (old && (p.timeouts || 0) > (old.timeouts || 0)) this.timedOut.push(p.seat);
      }
    }
    const v = message.view;
    const m = message.match;
    // Two-player Gin publishes one commitment before each hand; the bigger tables one per Gin hand.
    const published = this.twoPlayer ? v && v.phase !== "over" && m && m.commitment : m && m.commitments && m.commitments.length && m.commitments;
    if (v && published && !this.commitments[v.hand_number]) {
      this.commitments[v.hand_number] = published;
      this.memory.set("commitments", this.commitments);
    }
    if (!v) return false;
    const cards = this.hand();
    if (this.dealNumber !== v.hand_number) {
      this.dealNumber = v.hand_number;
      this.newCard = null;
      this.previousHand = cards;
      return true;
    }
    const added = cards.filter((c) => !this.previousHand.includes(c));
    if (cards.length > this.previousHand.length) this.newCard = added.length === 1 ? added[0] : null;
    else if (cards.length < this.previousHand.length || !this.twoPlayer) this.newCard = null;
    this.previousHand = cards;
    return false;
  }

  // --- the message ---------------------------------------------------------------------------

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

  /** The game: "gin" (two players), "gin3", "gin4_teams" or "rummy". */
  get game() {
    return (this.match && this.match.game) || "gin";
  }

  /** Two-player Gin: one hand, the opponent opposite, hints and forfeits. */
  get twoPlayer() {
    return this.game === "gin";
  }

  get rummy() {
    return this.game === "rummy";
  }

  get seats() {
    return ((this.match && this.match.players) || []).length;
  }

  get legal() {
    return (this.view && this.view.legal) || [];
  }

  // --- the sides and their names -------------------------------------------------------------

  /** The seats that score together: a team each in team Gin, else every seat alone. */
  sides() {
    if (this.game === "gin4_teams") return TEAMS;
    return Array.from({ length: this.seats }, (_, s) => [s]);
  }

  sideOf(seat) {
    return this.game === "gin4_teams" ? seat % 2 : seat;
  }

  /** The partner of this seat in team Gin, else null. */
  partner() {
    return this.game === "gin4_teams" ? (this.seat + 2) % 4 : null;
  }

  /**
   * The player in `seat`, with a name to show (an empty seat reads "Waiting for a player"). At a
   * bigger table two players who would read alike (robots of one level) are told apart by their
   * seat's number.
   */
  player(seat) {
    const players = (this.match && this.match.players) || [];
    const found = players.find((p) => p.seat === seat);
    if (!found || !found.name) return { ...(found || { seat, kind: null, connected: false }), name: t("table.empty_seat") };
    const name = playerName(found);
    const alike = !this.twoPlayer && players.some((p) => p.seat !== seat && p.name && playerName(p) === name);
    return { ...found, name: alike ? t("tables.seat_name", { name, n: seat + 1 }) : name };
  }

  /** The name of `seat`, "You" for this one (`inText`: the form used inside a sentence). */
  nameOf(seat, inText = false) {
    if (seat === this.seat) return inText ? t("table.you_in_text") : t("table.you");
    return this.player(seat).name;
  }

  /** Display names by seat, "You" for this one. */
  names(inText = false) {
    return Array.from({ length: Math.max(2, this.seats) }, (_, s) => this.nameOf(s, inText));
  }

  /** The opponent's name (two players), else the names of the other people at the table. */
  opponentName() {
    if (this.twoPlayer) return this.player(1 - this.seat).name;
    const others = ((this.match && this.match.players) || []).filter((p) => p.seat !== this.seat && p.kind === "human");
    return others.map((p) => this.player(p.seat).name).join(", ");
  }

  /** The name of a side: a player, or a team ("You & Bea"). */
  sideName(side) {
    return this.sides()[side].map((s) => this.nameOf(s)).join(" & ");
  }

  target() {
    const m = this.match;
    const v = this.view;
    return (m && m.rules && m.rules.target) || (v && v.rules && v.rules.target) || 100;
  }

  // --- the hands being played ----------------------------------------------------------------

  /** The Gin hands of a bigger table's deal (each a table view), or [] (two players, Rummy). */
  tables() {
    return (!this.rummy && !this.twoPlayer && this.view && this.view.tables) || [];
  }

  /** The index of the Gin hand this seat plays at a bigger table, or null. */
  myTable() {
    const k = this.tables().findIndex((table) => table.players.includes(this.seat));
    return k < 0 ? null : k;
  }

  /** The hand this seat plays: its table view (three-player and team Gin), else the view itself. */
  mine() {
    if (this.rummy || this.twoPlayer) return this.view;
    const k = this.myTable();
    return k === null ? null : this.tables()[k];
  }

  /** This seat's cards (none while it sits out). */
  hand() {
    const mine = this.mine();
    return (mine && mine.hand) || [];
  }

  /** The phase of this seat's hand: offer, draw, play/discard, over, or "out" (sitting out). */
  phase() {
    const mine = this.mine();
    return mine ? mine.phase : "out";
  }

  /** The seats with a move to make now (two at once in team Gin). */
  acting() {
    if (!this.view || (this.match && this.match.status !== "playing")) return [];
    if (this.twoPlayer) return this.view.phase === "over" ? [] : [this.myTurn() ? this.seat : 1 - this.seat];
    if (this.rummy) return this.view.to_act === null ? [] : [this.view.to_act];
    return this.tables()
      .filter((table) => table.phase !== "over" && table.to_act !== null)
      .map((table) => table.to_act);
  }

  myTurn() {
    return this.legal.length > 0;
  }

  /** True when this player let the turn clock run out again and again: a robot plays for them. */
  iAmAway() {
    const me = this.player(this.seat);
    return Boolean(me.autoplay && me.timeouts > 0);
  }

  /** How many cards `seat` holds now. */
  handCount(seat) {
    const v = this.view;
    if (!v) return 0;
    if (seat === this.seat) return this.hand().length;
    if (this.rummy) return v.hand_counts[seat];
    const table = this.twoPlayer ? v : this.tables().find((x) => x.players.includes(seat));
    if (!table || table.phase === "over") return 0;
    if (this.twoPlayer) return v.phase === "discard" && !this.myTurn() ? 11 : 10;
    return table.to_act === seat && table.phase === "discard" ? 11 : 10;
  }

  /** The cards `seat` was seen taking from the discard pile and still holds. */
  knownOf(seat) {
    const v = this.view;
    if (!v) return [];
    if (this.twoPlayer) return seat === this.seat ? [] : v.opponent_known || [];
    if (this.rummy) return v.known[seat] || [];
    const table = this.tables().find((x) => x.players.includes(seat));
    return table ? table.known[table.players.indexOf(seat)] : [];
  }

  /** The history of this seat's hand (Rummy: the hand's; sitting out: the first hand's). */
  history() {
    const mine = this.mine() || this.tables()[0];
    return (mine && mine.history) || [];
  }

  // --- this seat's moves -------------------------------------------------------------------

  canDraw(source) {
    return this.legal.some((a) => a.type === "draw" && a.source === source);
  }

  canPass() {
    return this.legal.some((a) => a.type === "pass");
  }

  canDiscard(card) {
    return this.legal.some((a) => a.type === "discard" && a.card === card);
  }

  canBigGin() {
    return this.legal.some((a) => a.type === "big_gin");
  }

  knockCards() {
    return this.legal.filter((a) => a.type === "knock").map((a) => a.card);
  }

  /** The knock choice for the `selected` card (table/knock.js), or null when knocking is not allowed. */
  knockChoice(selected) {
    return knockChoice(this.hand(), this.legal, selected);
  }

  /** The melds this seat may lay now (largest first). */
  melds() {
    return this.legal.filter((a) => a.type === "meld").sort((a, b) => b.cards.length - a.cards.length);
  }

  /** The meld of exactly these cards, if it may be laid. */
  meldOf(cards) {
    const key = [...cards].sort().join();
    return this.melds().find((a) => [...a.cards].sort().join() === key) || null;
  }

  /** The table melds `card` may be laid off on. */
  layoffsOf(card) {
    return this.legal.filter((a) => a.type === "layoff" && a.card === card).map((a) => a.meld);
  }

  /** A move that lays this seat's last cards down (going out without a discard), if there is one. */
  goingOut() {
    const cards = this.hand();
    return (
      this.legal.find(
        (a) => (a.type === "meld" && a.cards.length === cards.length) || (a.type === "layoff" && cards.length === 1),
      ) || null
    );
  }

  /** The card taken from the discard pile this turn (it may not be discarded this turn). */
  takenCard() {
    if (!this.myTurn() || (this.twoPlayer && this.phase() !== "discard")) return null;
    const history = this.history();
    for (let k = history.length - 1; k >= 0; k--) {
      const entry = history[k];
      if (entry.seat !== this.seat) return null;
      if (entry.action.type === "draw") return entry.action.source === "discard" ? entry.card || null : null;
    }
    return null;
  }

  // --- hints (casual two-player matches) -------------------------------------------------------

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

  // --- ends of deals -------------------------------------------------------------------------

  /**
   * The finished deal whose end this browser has not shown yet (a view of it), or null: two-player
   * Gin's with its showdown, a bigger table's with its `deal` proof.
   */
  unseenEnd() {
    const message = this.message;
    if (!message || (!message.view && !this.twoPlayer)) return null;
    const v = message.view;
    const over = this.twoPlayer ? v && v.phase === "over" && v.showdown : v.deal;
    const finished = over ? v : message.last_hand;
    if (!finished || finished.hand_number <= this.seenEnd) return null;
    return !this.twoPlayer || finished.showdown ? finished : null;
  }

  markEndSeen(number) {
    this.seenEnd = Math.max(this.seenEnd, number);
    this.memory.set("seen", this.seenEnd);
  }
}
