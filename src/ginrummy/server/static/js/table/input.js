// What the player does at the table: clicks, keys, drag and drop, turned into moves for the socket
// (after checking them against the legal moves, so a refusal is explained at once) and into
// choices about the hand (select a card, sort, reorder).
import { CardDrag } from "../card-drag.js";
import { cardText } from "../cards.js";
import { t } from "../i18n.js";
import { ask, toast } from "../ui.js";
import { confirmKnock } from "./knock.js";

export class Input {
  /**
   * `state`: TableState; `choices`: HandChoices; `socket`: MatchSocket; `board`: Board (to redraw
   * the hand after a choice); `blocked()`: true while an overlay holds the table (a showdown).
   */
  constructor({ state, choices, socket, board, blocked }) {
    this.state = state;
    this.choices = choices;
    this.socket = socket;
    this.board = board;
    this.blocked = blocked;
    this.dragging = new CardDrag();
  }

  /** Listen to the page. */
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
    document.getElementById("actions").addEventListener("click", (e) => this.onActionClick(e));
    document.getElementById("status").addEventListener("click", (e) => this.onActionClick(e));
    document.getElementById("coach").addEventListener("click", (e) => this.onActionClick(e));
    document.getElementById("sort").addEventListener("click", (e) => {
      const chip = e.target.closest("[data-sort]");
      if (chip) this.setSort(chip.dataset.sort);
    });
    document.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    document.addEventListener("pointermove", (e) => this.onPointerMove(e), { passive: false });
    document.addEventListener("pointerup", (e) => this.onPointerUp(e));
    document.addEventListener("pointercancel", () => this.cancelDrag());
    document.addEventListener("keydown", (e) => this.onShortcut(e));
  }

  // --- moves ------------------------------------------------------------------------------

  send(action) {
    if (!this.socket.sendAction(action, this.state.version)) toast(t("table.offline"), "error");
  }

  notYourTurn() {
    const m = this.state.match;
    if (!m || m.status === "waiting") toast(t("table.waiting"), "error");
    else toast(t("table.not_your_turn", { name: this.state.opponentName() }), "error");
  }

  draw(source) {
    const { state } = this;
    if (this.socket.pending) return;
    if (!state.myTurn()) return this.notYourTurn();
    if (!state.canDraw(source)) {
      const v = state.view;
      const key =
        v && v.phase === "discard" ? "table.already_drew" : source === "stock" ? "table.cannot_stock" : "table.cannot_take";
      toast(t(key), "error");
      return;
    }
    this.send({ type: "draw", source });
  }

  pass() {
    if (this.socket.pending) return;
    if (!this.state.myTurn()) return this.notYourTurn();
    if (!this.state.canPass()) return toast(t("table.cannot_pass"), "error");
    this.send({ type: "pass" });
  }

  discard(card = this.choices.selected) {
    const { state } = this;
    if (this.socket.pending) return;
    const v = state.view;
    if (!state.myTurn()) return this.notYourTurn();
    if (!v || v.phase !== "discard") return toast(t("table.draw_first"), "error");
    if (!card) return toast(t("table.select_first"), "error");
    if (card === state.takenCard()) return toast(t("table.taken_card"), "error");
    if (!state.canDiscard(card)) return toast(t("table.cannot_discard", { card: cardText(card) }), "error");
    this.choices.selected = null;
    this.send({ type: "discard", card });
  }

  async knock() {
    const { state } = this;
    if (this.socket.pending) return;
    if (!state.myTurn()) return this.notYourTurn();
    const choice = state.knockChoice(this.choices.selected);
    if (!choice) {
      const v = state.view;
      const text =
        v && v.phase === "discard" ? t("table.knock_too_much", { n: v.knock_limit }) : t("table.draw_first");
      return toast(text, "error");
    }
    const card = await confirmKnock(choice);
    if (!card) return;
    this.choices.selected = null;
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

  onActionClick(event) {
    const button = event.target.closest("button[data-action]");
    if (!button || button.disabled) return;
    const run = {
      take: () => this.draw("discard"),
      stock: () => this.draw("stock"),
      pass: () => this.pass(),
      discard: () => this.discard(),
      knock: () => this.knock(),
      "big-gin": () => this.bigGin(),
      back: () => this.socket.sendMessage({ type: "back" }),
      hint: () => this.askHint(),
    }[button.dataset.action];
    if (run) run();
  }

  // --- choices about the hand -------------------------------------------------------------

  toggleSelect(card) {
    this.choices.toggle(card);
    this.board.renderHand();
    this.board.renderControls();
  }

  setSort(mode) {
    this.choices.setSort(mode);
    this.board.renderSort();
    this.board.renderHand();
  }

  currentOrder() {
    return [...document.querySelectorAll("#hand .card")].map((el) => el.dataset.card);
  }

  moveCard(card, toIndex) {
    this.choices.move(this.currentOrder(), card, toIndex);
    this.board.renderSort();
    this.board.renderHand();
  }

  // --- clicks and keys --------------------------------------------------------------------

  onHandClick(event) {
    if (this.dragging.suppressClick) return;
    const el = event.target.closest(".card");
    if (el) this.toggleSelect(el.dataset.card);
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

  onPileClick(event) {
    if (this.dragging.suppressClick) return;
    const v = this.state.view;
    if (event.currentTarget.id === "stock") return this.draw("stock");
    if (v && v.phase === "discard" && this.state.myTurn()) return this.discard();
    return this.draw("discard");
  }

  onShortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || this.blocked()) return;
    if (event.target.closest("input, select, textarea, dialog")) return;
    if (!this.state.view) return;
    const run = {
      s: () => this.draw("stock"),
      u: () => this.draw("discard"),
      p: () => this.state.canPass() && this.pass(),
      d: () => this.discard(),
      k: () => this.knock(),
      h: () => this.askHint(),
    }[event.key.toLowerCase()];
    if (!run) return;
    run();
    event.preventDefault();
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

  onPointerUp(event) {
    const drop = this.dragging.up(event);
    if (!drop) return;
    const { target } = drop;
    if (drop.pile) {
      if (target && target.closest("#me")) this.draw(drop.pile);
      return;
    }
    if (target && target.closest("#discard")) return this.discard(drop.card);
    if (target && target.closest("#hand")) this.moveCard(drop.card, drop.handIndex);
  }
}
