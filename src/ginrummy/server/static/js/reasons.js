// Moves and the reasons for them in the page's language: a reason arrives as phrases (a key of the
// server's phrase book, its values, the punctuation joining it to the one before), and each phrase
// is written from the catalogue's "hint.<key>" (cards as the table prints them, numbers the local way).
import { cardText } from "./cards.js";
import { hasText, t, tn } from "./i18n.js";

function phraseText(phrase) {
  const values = {};
  for (const [name, value] of Object.entries(phrase.values || {})) {
    if (Array.isArray(value)) values[name] = value.map(cardText).join("");
    else values[name] = typeof value === "string" ? cardText(value) : value;
  }
  const key = `hint.${phrase.key}`;
  if (hasText(`${key}.other`)) return tn(key, values.n, values);
  return hasText(key) ? t(key, values) : phrase.key;
}

/** A reason (a list of phrases) as one sentence. */
export function reasonText(why) {
  return (why || []).map((phrase, i) => (i ? phrase.lead || " " : "") + phraseText(phrase)).join("");
}

/** A move in a few words: "Discard 7♥", "Take the upcard 9♣", "Gin with K♠". */
export function moveText(action, upcard) {
  switch (action.type) {
    case "pass":
      return t("coach.move.pass");
    case "draw":
      if (action.source === "discard") return upcard ? t("coach.move.take", { card: cardText(upcard) }) : t("coach.move.take_any");
      return t("coach.move.stock");
    case "discard":
      return t("coach.move.discard", { card: cardText(action.card) });
    case "knock":
      return t("coach.move.knock", { card: cardText(action.card) });
    case "big_gin":
      return t("coach.move.big_gin");
    default:
      return action.type;
  }
}
