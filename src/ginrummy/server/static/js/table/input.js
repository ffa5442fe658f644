// What the player does at the table: clicks, keys, drag and drop, turned into moves for the socket
// (after checking them against the legal moves, so a refusal is explained at once) and into
// choices about the hand (select a card, sort, reorder).
import { cardText } from "../cards.js";
import { HandInput } from "../hand-input.js";
import { t } from "../i18n.js";
import { toast } from "../ui.js";
import { confirmKnock } from "./knock.js";

export class Input extends HandInput {
  /** Listen to the page. */
  attach() {
    super.attach(["actions", "status", "coach"]);
  }

  // --- moves ------------------------------------------------------------------------------

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

  onPileClick(event) {
    if (this.dragging.suppressClick) return;
    const v = this.state.view;
    if (event.currentTarget.id === "stock") return this.draw("stock");
    if (v && v.phase === "discard" && this.state.myTurn()) return this.discard();
    return this.draw("discard");
  }

  onShortcut(event) {
    this.runShortcut(event, {
      s: () => this.draw("stock"),
      u: () => this.draw("discard"),
      p: () => this.state.canPass() && this.pass(),
      d: () => this.discard(),
      k: () => this.knock(),
      h: () => this.askHint(),
    });
  }

  // --- drag and drop (pointer events) -----------------------------------------------------

  onPointerUp(event) {
    const drop = this.dropped(event);
    if (!drop) return;
    const { target } = drop;
    if (target && target.closest("#discard")) return this.discard(drop.card);
    if (target && target.closest("#hand")) this.moveCard(drop.card, drop.handIndex);
  }
}
