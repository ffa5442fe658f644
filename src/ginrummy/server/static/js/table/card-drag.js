// Dragging a card with the pointer at the table: a card of the hand, or the stock or
// the discard pile's top, picked up once the pointer has moved 8 px (a shorter press stays a tap
// and its click does the work), followed by a ghost, and dropped where the pointer is let go.
// What a drop means is the table's own (`up` returns it).
import { cardBack } from "../cards.js";

export class CardDrag {
  /** `started(source)`: a drag began (e.g. show where the card may go); `ended()`: it is over. */
  constructor({ started = () => {}, ended = () => {} } = {}) {
    this.started = started;
    this.ended = ended;
    this.drag = null;
    // True for the moment after a drop, so the click the browser then sends does nothing.
    this.suppressClick = false;
  }

  down(event) {
    if (event.button !== 0) return;
    const source = event.target.closest("#hand .card") || event.target.closest("#stock, #discard");
    if (!source) return;
    this.drag = { source, x: event.clientX, y: event.clientY, ghost: null, id: event.pointerId };
  }

  move(event) {
    const drag = this.drag;
    if (!drag || drag.id !== event.pointerId) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
      const from = drag.source;
      let ghost;
      if (from.id === "stock") ghost = cardBack();
      else if (from.id === "discard") {
        const top = from.querySelector(".top");
        if (!top) return;
        ghost = top.cloneNode(true);
      } else ghost = from.cloneNode(true);
      ghost.classList.add("ghost");
      ghost.removeAttribute("id");
      document.body.append(ghost);
      drag.ghost = ghost;
      from.classList.add("dragging");
      document.body.classList.add("is-dragging");
      this.started(from);
    }
    drag.ghost.style.left = `${event.clientX}px`;
    drag.ghost.style.top = `${event.clientY}px`;
    event.preventDefault();
  }

  cancel() {
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.ghost) return;
    drag.ghost.remove();
    drag.source.classList.remove("dragging");
    document.body.classList.remove("is-dragging");
    this.ended();
  }

  /**
   * The pointer was let go: null for a plain tap (or another pointer), else the drop:
   * `{ pile }` ("stock" or "discard") when a pile was dragged, or `{ card }` for a card of the
   * hand, with `target` (the element under the pointer) and `handIndex` (where in the hand the
   * card would go, among the others).
   */
  up(event) {
    const drag = this.drag;
    if (!drag || drag.id !== event.pointerId) return null;
    if (!drag.ghost) {
      this.drag = null; // a plain tap; the click handler does the work
      return null;
    }
    this.cancel();
    this.suppressClick = true;
    setTimeout(() => {
      this.suppressClick = false;
    }, 0);
    const target = document.elementFromPoint(event.clientX, event.clientY);
    if (drag.source.id === "stock" || drag.source.id === "discard") return { pile: drag.source.id, target };
    const card = drag.source.dataset.card;
    return { card, target, handIndex: handIndexAt(card, event.clientX, event.clientY) };
  }
}

/** Where in the hand a card let go at (x, y) goes: the index among the hand's other cards. */
function handIndexAt(card, x, y) {
  const others = [...document.querySelectorAll("#hand .card")].filter((el) => el.dataset.card !== card);
  let best = null;
  for (const [k, el] of others.entries()) {
    const r = el.getBoundingClientRect();
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    const d = Math.hypot(x - cx, (y - cy) * 2);
    if (!best || d < best.d) best = { d, index: x > cx ? k + 1 : k };
  }
  return best ? best.index : 0;
}
