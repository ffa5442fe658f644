// What every table does the same with a player's taps, keys and drags: the listeners on the hand,
// the piles and the page, moving along the hand with the arrow keys, drag and drop, sending a move
// and confirming Big Gin. A table's own moves, choices and shortcuts are its subclass's.
import { CardDrag } from "./card-drag.js";
import { t } from "./i18n.js";
import { ask, toast } from "./ui.js";

export class HandInput {
  /**
   * `state`: the table's state; `choices`: HandChoices; `socket`: MatchSocket; `board`: redraws
   * what a choice changes; `blocked()`: true while an overlay holds the table; `drag`: CardDrag's
   * callbacks.
   */
  constructor({ state, choices, socket, board, blocked, drag }) {
    this.state = state;
    this.choices = choices;
    this.socket = socket;
    this.board = board;
    this.blocked = blocked;
    this.dragging = new CardDrag(drag);
  }

  /** Listen to the page; `buttons`: the ids of the elements whose buttons carry a data-action. */
  attach(buttons) {
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
  }

  /** Send a move; false (and says so) when the socket is not open. */
  send(action) {
    if (this.socket.sendAction(action, this.state.version)) return true;
    toast(t("table.offline"), "error");
    return false;
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
}
