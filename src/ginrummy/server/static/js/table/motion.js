// Cards glide from where they were to where they are: a drawn card from the stock or the discard
// pile into the hand, a discard from the hand (or the opponent's side) onto the pile, cards moving
// when the hand is sorted. Nothing moves for people who ask for reduced motion.
const SELECTOR = "#hand .card, #discard .card.top";
const DURATION = 320;

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function rectOf(el) {
  return el ? el.getBoundingClientRect() : null;
}

export class Motion {
  constructor() {
    this.before = null;
    this.count = 0; // animations started (the table shows it in data-motion, for tests)
  }

  /** Note where every card is before the table is drawn again. */
  capture() {
    if (reducedMotion()) {
      this.before = null;
      return;
    }
    const cards = new Map();
    for (const el of document.querySelectorAll(SELECTOR)) cards.set(el.dataset.card, rectOf(el));
    const top = document.querySelector("#discard .card.top");
    this.before = {
      cards,
      top: top ? top.dataset.card : null,
      topRect: rectOf(top),
      stock: rectOf(document.getElementById("stock")),
      opponent: rectOf(document.getElementById("opponent-count")),
    };
  }

  /** Move every card from where it was to where it is now. */
  play() {
    const before = this.before;
    this.before = null;
    if (!before) return;
    for (const el of document.querySelectorAll("#hand .card")) {
      const code = el.dataset.card;
      // A card new in the hand came from the discard pile (it was the upcard) or from the stock.
      const from = before.cards.get(code) || (code === before.top ? before.topRect : before.stock);
      this.glide(el, from);
    }
    const top = document.querySelector("#discard .card.top");
    if (top && top.dataset.card !== before.top) {
      // A new upcard: discarded from this hand, or by the opponent.
      this.glide(top, before.cards.get(top.dataset.card) || before.opponent);
    }
  }

  glide(el, from) {
    if (!from) return;
    const to = el.getBoundingClientRect();
    const dx = from.left - to.left;
    const dy = from.top - to.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
      duration: DURATION,
      easing: "cubic-bezier(0.2, 0.7, 0.2, 1)",
    });
    this.count += 1;
    document.getElementById("table").dataset.motion = String(this.count);
  }
}
