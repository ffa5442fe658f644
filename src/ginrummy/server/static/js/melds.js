// Least-deadwood arrangement of a hand, computed in the browser so the table can group melds live.
//
// Exact for any number of cards: runs inside one suit never compete with each other (every
// maximal stretch of three or more consecutive ranks is one run), so the only choices are the
// sets. We enumerate, for each rank held three or four times, "no set", each three-card set
// and the four-card set, and meld the remaining cards into runs suit by suit. Ace is low only.
import { cardIndex, pointsOf, rankOf, suitOf } from "./cards.js";

const toIndex = (c) => (typeof c === "number" ? c : cardIndex(c));

/** Runs and leftovers among `cards` (indices) after the sets were taken out. */
function runsOf(cards) {
  const melds = [];
  const deadwood = [];
  for (let suit = 0; suit < 4; suit++) {
    const ranks = cards.filter((i) => suitOf(i) === suit).sort((a, b) => a - b);
    let start = 0;
    for (let k = 1; k <= ranks.length; k++) {
      if (k === ranks.length || ranks[k] !== ranks[k - 1] + 1) {
        const stretch = ranks.slice(start, k);
        if (stretch.length >= 3) melds.push(stretch);
        else deadwood.push(...stretch);
        start = k;
      }
    }
  }
  return { melds, deadwood };
}

/** The set choices for one rank held `group` (3 or 4 cards): none, each 3-card set, the 4-card set. */
function setChoices(group) {
  const choices = [null];
  if (group.length === 3) choices.push(group);
  else {
    for (let skip = 0; skip < 4; skip++) choices.push(group.filter((_, k) => k !== skip));
    choices.push(group);
  }
  return choices;
}

const points = (cards) => cards.reduce((sum, i) => sum + pointsOf(i), 0);

/**
 * The best arrangement of `cards` (codes or indices):
 * { melds: [[index…]…], deadwood: [index…], count } with the least deadwood count
 * (ties: fewer deadwood cards). Melds list runs low to high and sets by suit.
 */
export function arrange(cards) {
  const hand = [...new Set(cards.map(toIndex))].filter((i) => i >= 0);
  const byRank = Array.from({ length: 13 }, () => []);
  for (const i of hand) byRank[rankOf(i)].push(i);
  const groups = byRank.filter((g) => g.length >= 3).map((g) => g.sort((a, b) => a - b));
  let best = null;
  const chosen = [];
  const visit = (k) => {
    if (k === groups.length) {
      const used = new Set(chosen.flat());
      const rest = runsOf(hand.filter((i) => !used.has(i)));
      const count = points(rest.deadwood);
      if (
        best === null ||
        count < best.count ||
        (count === best.count && rest.deadwood.length < best.deadwood.length)
      ) {
        best = { melds: [...chosen.map((s) => [...s]), ...rest.melds], deadwood: rest.deadwood, count };
      }
      return;
    }
    for (const choice of setChoices(groups[k])) {
      if (choice) chosen.push(choice);
      visit(k + 1);
      if (choice) chosen.pop();
    }
  };
  visit(0);
  best.melds.sort((a, b) => rankOf(a[0]) - rankOf(b[0]) || suitOf(a[0]) - suitOf(b[0]));
  best.deadwood.sort((a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b));
  return best;
}

/** The least deadwood count of `cards`. */
export function minDeadwood(cards) {
  return arrange(cards).count;
}
