// Cards: rule-book notation (AS, TD), indices (suit*13+rank), and the HTML/CSS card faces.
import { t } from "./i18n.js";

export const RANK_CHARS = "A23456789TJQK";
export const SUIT_CHARS = "CDHS";
// Clubs, diamonds, hearts, spades: the order of CardSet indices on the server.
export const SUIT_SYMBOLS = ["\u2663", "\u2666", "\u2665", "\u2660"];
const SUIT_CLASSES = ["clubs", "diamonds", "hearts", "spades"];

/** Index 0..51 of a card code such as "TD" (also accepts "10D"); -1 when it is not a card. */
export function cardIndex(code) {
  if (typeof code !== "string") return -1;
  let text = code.trim().toUpperCase();
  if (text.startsWith("10")) text = "T" + text.slice(2);
  if (text.length !== 2) return -1;
  const rank = RANK_CHARS.indexOf(text[0]);
  const suit = SUIT_CHARS.indexOf(text[1]);
  return rank < 0 || suit < 0 ? -1 : suit * 13 + rank;
}

export function cardCode(index) {
  return RANK_CHARS[index % 13] + SUIT_CHARS[Math.floor(index / 13)];
}

export const rankOf = (index) => index % 13;
export const suitOf = (index) => Math.floor(index / 13);
/** Deadwood points: ace 1, number cards their value, J Q K 10. */
export const pointsOf = (index) => Math.min(rankOf(index) + 1, 10);

/** The rank as printed on the card face: A 2 … 10 J Q K ("10", never "T"). */
export function rankLabel(rank) {
  return rank === 9 ? "10" : RANK_CHARS[rank];
}

/** Short text of a card for messages: "10♦". */
export function cardText(code) {
  const i = typeof code === "number" ? code : cardIndex(code);
  if (i < 0) return String(code);
  return rankLabel(rankOf(i)) + SUIT_SYMBOLS[suitOf(i)];
}

/** Spoken name for screen readers, as the current language reads it ("queen of hearts", "Q cơ"). */
export function cardName(code) {
  const i = typeof code === "number" ? code : cardIndex(code);
  if (i < 0) return String(code);
  return t("card.name", {
    rank: t(`card.rank.${rankOf(i)}`),
    suit: t(`card.suit.${suitOf(i)}`),
  });
}

/** Sort key by suit then rank (clubs first) and by rank then suit. */
export const bySuit = (a, b) => a - b;
export const byRank = (a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b);

/**
 * A face-up card element. `opts.tag` picks the element (button for playable cards),
 * `opts.classes` adds classes such as "selected" or "laid-off".
 */
export function cardElement(code, opts = {}) {
  const i = typeof code === "number" ? code : cardIndex(code);
  const el = document.createElement(opts.tag || "div");
  el.className = `card face ${SUIT_CLASSES[suitOf(i)]}`;
  if (opts.classes) el.classList.add(...opts.classes);
  el.dataset.card = cardCode(i);
  const rank = rankLabel(rankOf(i));
  const suit = SUIT_SYMBOLS[suitOf(i)];
  el.setAttribute("aria-label", cardName(i));
  const face = rankOf(i) >= 10 ? " court" : "";
  el.innerHTML =
    `<span class="corner tl" aria-hidden="true"><b>${rank}</b><i>${suit}</i></span>` +
    `<span class="pip${face}" aria-hidden="true">${face ? rank : suit}</span>` +
    `<span class="corner br" aria-hidden="true"><b>${rank}</b><i>${suit}</i></span>`;
  return el;
}

/** A face-down card. */
export function cardBack(opts = {}) {
  const el = document.createElement(opts.tag || "div");
  el.className = "card back";
  if (opts.classes) el.classList.add(...opts.classes);
  el.setAttribute("aria-hidden", "true");
  return el;
}
