// The player's own choices about the hand on screen: the cards picked, the sort and their own order.
import { byRank, bySuit, cardIndex } from "../cards.js";
import { arrange } from "../melds.js";

export const SORT_MODES = ["melds", "suit", "rank"];
const SORT_KEY = "gr-sort";

export class HandChoices {
  /** `memory` is the match's MatchMemory: the player's own order survives a reload. */
  constructor(memory) {
    this.memory = memory;
    this.sortMode = localStorage.getItem(SORT_KEY) || "melds";
    this.custom = memory.get("order", []); // card codes in the player's own order
  }

  /** A new deal: the player's own order starts again. */
  newDeal() {
    if (this.sortMode === "custom") this.custom = [];
  }

  setSort(mode) {
    this.sortMode = mode;
    localStorage.setItem(SORT_KEY, mode === "custom" ? "melds" : mode);
  }

  /** Move `card` to position `toIndex` of `order` (the cards as shown): the player's own order. */
  move(order, card, toIndex) {
    const rest = order.filter((c) => c !== card);
    rest.splice(Math.max(0, Math.min(rest.length, toIndex)), 0, card);
    this.custom = rest;
    this.memory.set("order", rest);
    this.sortMode = "custom";
  }

  /**
   * The hand as groups to show: {groups: [{kind: "run"|"set"|"deadwood"|"all", cards: [index…]}],
   * arrangement, dead}: melds and deadwood when sorting by melds, else one row in the chosen order.
   */
  groups(cards) {
    const arrangement = arrange(cards);
    const dead = new Set(arrangement.deadwood);
    if (this.sortMode === "melds") {
      const groups = arrangement.melds.map((m) => ({
        kind: m.every((i) => i % 13 === m[0] % 13) ? "set" : "run",
        cards: m,
      }));
      if (arrangement.deadwood.length) groups.push({ kind: "deadwood", cards: arrangement.deadwood });
      return { groups, arrangement, dead };
    }
    let order = cards.map(cardIndex);
    if (this.sortMode === "suit") order.sort(bySuit);
    else if (this.sortMode === "rank") order.sort(byRank);
    else {
      const kept = this.custom.map(cardIndex).filter((i) => order.includes(i));
      order = [...kept, ...order.filter((i) => !kept.includes(i))];
    }
    return { groups: [{ kind: "all", cards: order }], arrangement, dead };
  }
}

/**
 * The cards the player has picked in their hand: several at once in Rummy (to lay them as a meld),
 * one at a time at a Gin table (to discard or knock with it).
 */
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
