// What the player does at a table of any game: clicks, keys and drag and drop turned into moves for
// the socket (checked against the legal moves first, so a refusal is explained at once) and into
// choices about the hand (pick cards, sort, reorder, move along it with the arrow keys). Rummy adds
// melds, lay-offs and going out; two-player Gin adds hints.
import { cardText } from "../cards.js";
import { t } from "../i18n.js";
import { ask, toast } from "../ui.js";
import { CardDrag } from "./card-drag.js";
import { confirmKnock } from "./knock.js";

export class Input {
  /**
   * `state`: TableState; `choices`: HandChoices; `picks`: the cards picked for a meld, a layoff or
   * a discard; `socket`: MatchSocket; `board`: redraws what a choice changes; `blocked()`: true
   * while an overlay holds the table.
   */
  constructor({ state, choices, picks, socket, board, blocked }) {
    this.state = state;
    this.choices = choices;
    this.picks = picks;
    this.socket = socket;
    this.board = board;
    this.blocked = blocked;
    this.dragging = new CardDrag({
      started: (from) => from.dataset.card && this.showLayoffTargets(from.dataset.card),
      ended: () => this.showLayoffTargets(null),
    });
  }

  /** Listen to the page (its parts of the game on the table: the Hint button, Rummy's melds). */
  attach() {
    const hand = document.getElementById("hand");
    hand.addEventListener("click", (e) => this.onHandClick(e));
    hand.addEventListener("keydown", (e) => this.onHandKey(e));
    for (const id of ["stock", "discard"]) {
      const el = document.getElementById(id);
      el.addEventListener("click", (e) => this.onPileClick(e));
      el.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          this.onPileClick(e);
        }
      });
    }
    const buttons = ["actions", "status", "coach"].filter((id) => document.getElementById(id));
    for (const id of buttons) document.getElementById(id).addEventListener("click", (e) => this.onActionClick(e));
    document.getElementById("sort").addEventListener("click", (e) => {
      const chip = e.target.closest("[data-sort]");
      if (chip) this.setSort(chip.dataset.sort);
    });
    document.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    document.addEventListener("pointermove", (e) => this.onPointerMove(e), { passive: false });
    document.addEventListener("pointerup", (e) => this.onPointerUp(e));
    document.addEventListener("pointercancel", () => this.cancelDrag());
    document.addEventListener("keydown", (e) => this.onShortcut(e));
    document.getElementById("melds")?.addEventListener("click", (e) => {
      const spot = e.target.closest("[data-meld]");
      if (spot && !this.dragging.suppressClick) this.layOff(Number(spot.dataset.meld));
    });
  }

  /** While a card is dragged: the melds it may be laid off on light up (null: none). */
  showLayoffTargets(card) {
    const fits = new Set(card ? this.state.layoffsOf(card) : []);
    for (const spot of document.querySelectorAll("#melds [data-meld]")) {
      spot.classList.toggle("drop-target", fits.has(Number(spot.dataset.meld)));
    }
  }

  // --- moves ------------------------------------------------------------------------------

  /** Send a move; false (and says so) when the socket is not open. At the bigger tables the picked
   * cards are let go once it is on its way. */
  send(action) {
    if (!this.socket.sendAction(action, this.state.version)) {
      toast(t("table.offline"), "error");
      return false;
    }
    if (!this.state.twoPlayer) this.picks.clear();
    return true;
  }

  /** False (and says why) when this player may not move now. */
  ready() {
    const { state } = this;
    if (this.socket.pending) return false;
    if (state.myTurn()) return true;
    const m = state.match;
    if (!m || m.status === "waiting") toast(t("table.waiting"), "error");
    else if (state.twoPlayer) toast(t("table.not_your_turn", { name: state.opponentName() }), "error");
    else if (state.phase() === "out") toast(t("tables.you_sit_out"), "error");
    else toast(t("tables.not_your_turn"), "error");
    return false;
  }

  draw(source) {
    if (!this.ready()) return;
    if (!this.state.canDraw(source)) {
      if (!["draw", "offer"].includes(this.state.phase())) toast(t("table.already_drew"), "error");
      else toast(source === "stock" ? t("table.cannot_stock") : t("table.cannot_take"), "error");
      return;
    }
    this.send({ type: "draw", source });
  }

  pass() {
    if (!this.ready()) return;
    if (!this.state.canPass()) return toast(t("table.cannot_pass"), "error");
    this.send({ type: "pass" });
  }

  discard(card = this.picks.single()) {
    const { state } = this;
    if (!this.ready()) return;
    if (["draw", "offer"].includes(state.phase())) return toast(t("table.draw_first"), "error");
    if (!card) return toast(t("table.select_first"), "error");
    if (card === state.takenCard()) return toast(t("table.taken_card"), "error");
    if (!state.canDiscard(card)) return toast(t("table.cannot_discard", { card: cardText(card) }), "error");
    if (state.twoPlayer) this.picks.clear();
    this.send({ type: "discard", card });
  }

  meld(cards = this.picks.cards) {
    if (!this.ready()) return;
    const meld = this.state.meldOf(cards);
    if (!meld) return toast(cards.length ? t("tables.not_a_meld") : t("tables.pick_meld"), "error");
    this.send(meld);
  }

  layOff(number, card = this.picks.single()) {
    const { state } = this;
    if (!this.ready()) return;
    if (!card) return toast(t("tables.pick_layoff"), "error");
    if (number === null) return toast(t("tables.no_meld_fits", { card: cardText(card) }), "error");
    if (!state.layoffsOf(card).includes(number)) {
      return toast(t("tables.cannot_lay_off", { card: cardText(card), n: number + 1 }), "error");
    }
    this.send({ type: "layoff", card, meld: number });
  }

  /** Lay the last cards down: the move that empties the hand. */
  goOut() {
    if (!this.ready()) return;
    const out = this.state.goingOut();
    if (!out) return toast(t("tables.cannot_go_out"), "error");
    this.send(out);
  }

  async knock() {
    const { state } = this;
    if (!this.ready()) return;
    const choice = state.knockChoice(this.picks.single());
    if (!choice) {
      const mine = state.mine();
      const text = state.phase() === "discard" ? t("table.knock_too_much", { n: mine.knock_limit }) : t("table.draw_first");
      return toast(text, "error");
    }
    const card = await confirmKnock(choice);
    if (!card) return;
    if (state.twoPlayer) this.picks.clear();
    this.send({ type: "knock", card });
  }

  /** Ask the server for the expert's move (casual matches only); it comes back as a "hint" message. */
  askHint() {
    const { state } = this;
    const m = state.match;
    if (!m || !m.hints) return;
    if (!state.canAskHint()) return toast(t("table.hint_not_now"), "error");
    if (state.hint || state.hintAsked === state.version) return;
    if (!this.socket.sendMessage({ type: "hint", version: state.version })) return toast(t("table.offline"), "error");
    state.hintAsked = state.version;
    this.board.renderCoach();
    this.board.renderLastMoves();
  }

  onActionClick(event) {
    const button = event.target.closest("button[data-action]");
    if (!button || button.disabled) return;
    const run = {
      take: () => this.draw("discard"),
      stock: () => this.draw("stock"),
      pass: () => this.pass(),
      discard: () => this.discard(),
      meld: () => this.meld(),
      "meld-ready": () => this.meld(button.dataset.cards.split(" ")),
      out: () => this.goOut(),
      knock: () => this.knock(),
      "big-gin": () => this.bigGin(),
      back: () => this.socket.sendMessage({ type: "back" }),
      hint: () => this.askHint(),
    }[button.dataset.action];
    if (run) run();
  }

  async bigGin() {
    if (!this.state.canBigGin()) return;
    const answer = await ask({
      title: t("table.big_gin"),
      body: t("table.confirm_big_gin"),
      buttons: [
        { label: t("table.cancel"), value: "cancel" },
        { label: t("table.big_gin"), value: "go", class: "primary" },
      ],
    });
    if (answer === "go") this.send({ type: "big_gin" });
  }

  /** The hand's cards in the order they are shown. */
  currentOrder() {
    return [...document.querySelectorAll("#hand .card")].map((el) => el.dataset.card);
  }

  onHandKey(event) {
    const el = event.target.closest(".card");
    if (!el) return;
    const cards = [...document.querySelectorAll("#hand .card")];
    const index = cards.indexOf(el);
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      const step = event.key === "ArrowLeft" ? -1 : 1;
      if (event.shiftKey || event.altKey) {
        this.moveCard(el.dataset.card, index + step);
        document.querySelector(`#hand [data-card="${el.dataset.card}"]`)?.focus();
      } else cards[(index + step + cards.length) % cards.length].focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      cards[event.key === "Home" ? 0 : cards.length - 1].focus();
    }
  }

  /** Run the move of a shortcut key from `keys` (key -> function), unless the keys are not the table's now. */
  runShortcut(event, keys) {
    if (event.ctrlKey || event.metaKey || event.altKey || this.blocked()) return;
    if (event.target.closest("input, select, textarea, dialog")) return;
    if (!this.state.view) return;
    const run = keys[event.key.toLowerCase()];
    if (!run) return;
    run();
    event.preventDefault();
  }

  // --- choices about the hand -------------------------------------------------------------

  pick(card) {
    this.picks.toggle(card);
    this.board.redrawHand(false);
  }

  setSort(mode) {
    this.choices.setSort(mode);
    this.board.redrawHand(true);
  }

  moveCard(card, toIndex) {
    this.choices.move(this.currentOrder(), card, toIndex);
    this.board.redrawHand(true);
  }

  // --- clicks and keys --------------------------------------------------------------------

  onHandClick(event) {
    if (this.dragging.suppressClick) return;
    const el = event.target.closest(".card");
    if (el) this.pick(el.dataset.card);
  }

  onPileClick(event) {
    if (this.dragging.suppressClick) return;
    if (event.currentTarget.id === "stock") return this.draw("stock");
    const { state } = this;
    if (state.myTurn() && !["draw", "offer"].includes(state.phase())) return this.discard();
    return this.draw("discard");
  }

  onShortcut(event) {
    const { state } = this;
    const keys = {
      s: () => this.draw("stock"),
      u: () => this.draw("discard"),
      p: () => state.canPass() && this.pass(),
      d: () => this.discard(),
      k: () => !state.rummy && this.knock(),
    };
    if (state.twoPlayer) keys.h = () => this.askHint();
    else {
      keys.m = () => state.rummy && this.meld();
      keys.o = () => state.rummy && this.goOut();
      keys.l = () => {
        const card = this.picks.single();
        const fits = card ? state.layoffsOf(card) : [];
        return state.rummy && this.layOff(fits.length ? fits[0] : null);
      };
    }
    this.runShortcut(event, keys);
  }

  // --- drag and drop (pointer events) -----------------------------------------------------

  onPointerDown(event) {
    if (!this.blocked()) this.dragging.down(event);
  }

  onPointerMove(event) {
    this.dragging.move(event);
  }

  cancelDrag() {
    this.dragging.cancel();
  }

  /** The drop of a drag, once a pile's card dropped on the player's own seat has been drawn. */
  dropped(event) {
    const drop = this.dragging.up(event);
    if (!drop) return null;
    if (drop.pile) {
      if (drop.target && drop.target.closest("#me")) this.draw(drop.pile);
      return null;
    }
    return drop;
  }

  onPointerUp(event) {
    const drop = this.dropped(event);
    if (!drop) return;
    const { target } = drop;
    const spot = target && target.closest("[data-meld]");
    if (spot) return this.layOff(Number(spot.dataset.meld), drop.card);
    if (target && target.closest("#discard")) return this.discard(drop.card);
    if (target && target.closest("#hand")) this.moveCard(drop.card, drop.handIndex);
  }
}
