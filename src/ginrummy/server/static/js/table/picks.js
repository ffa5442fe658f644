// The cards the player has picked in their hand: several at once in Rummy (to lay them as a meld),
// one at a time at a Gin table (to discard or knock with it).
export class Picks {
  constructor() {
    this.cards = [];
    this.several = false;
  }

  has(card) {
    return this.cards.includes(card);
  }

  toggle(card) {
    if (this.has(card)) this.cards = this.cards.filter((c) => c !== card);
    else this.cards = this.several ? [...this.cards, card] : [card];
  }

  /** The picked card when exactly one is picked, else null. */
  single() {
    return this.cards.length === 1 ? this.cards[0] : null;
  }

  /** Forget picked cards that left the hand. */
  keepTo(hand) {
    this.cards = this.cards.filter((c) => hand.includes(c));
  }

  clear() {
    this.cards = [];
  }
}
