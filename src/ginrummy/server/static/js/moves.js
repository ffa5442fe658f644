// A move of any game in words ("Bea takes 7♥", "Cai lays 7♥ 8♥ 9♥", "Dan lays off Q♠ on meld 2").
import { cardText } from "./cards.js";
import { t } from "./i18n.js";

/**
 * `entry` is a history entry ({seat, action, card?, turnover?}); `who` the name of its seat. A stock
 * draw names its card only when the entry has it (the seat's own draw).
 */
export function describeMove(entry, who) {
  const a = entry.action;
  const card = entry.card || a.card;
  switch (a.type) {
    case "pass":
      return t("move.pass", { who });
    case "draw": {
      if (a.source === "discard") return t("move.take", { who, card: cardText(card) });
      const text = card ? t("move.draw_seen", { who, card: cardText(card) }) : t("move.draw", { who });
      return entry.turnover ? `${t("move.turnover")} ${text}` : text;
    }
    case "discard":
      return t("move.discard", { who, card: cardText(card) });
    case "knock":
      return t("move.knock", { who });
    case "big_gin":
      return t("move.big_gin", { who });
    case "meld":
      return t("move.meld", { who, cards: a.cards.map(cardText).join(" ") });
    case "layoff":
      return t("move.layoff", { who, card: cardText(a.card), n: a.meld + 1 });
    default:
      return a.type;
  }
}
