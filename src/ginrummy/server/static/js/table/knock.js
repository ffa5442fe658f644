// Knocking: the card to knock with (the one selected when it may be, else the one leaving the least
// deadwood) and the confirmation asked first, for every Gin table (two players, three, teams).
import { cardIndex, cardText, pointsOf } from "../cards.js";
import { t } from "../i18n.js";
import { minDeadwood } from "../melds.js";
import { ask, h } from "../ui.js";

/**
 * The knock choice for `hand` (card codes) and its `legal` actions: `selected` when it allows a
 * knock, else the card leaving the least deadwood; with every allowed card and the deadwood it
 * leaves. Null when knocking is not allowed.
 */
export function knockChoice(hand, legal, selected) {
  const options = legal.filter((a) => a.type === "knock").map((a) => a.card);
  if (!options.length || !hand) return null;
  const after = options.map((card) => ({ card, deadwood: minDeadwood(hand.filter((c) => c !== card)) }));
  after.sort((a, b) => a.deadwood - b.deadwood || pointsOf(cardIndex(b.card)) - pointsOf(cardIndex(a.card)));
  const chosen = after.find((o) => o.card === selected) || after[0];
  return { chosen, options: after };
}

/** Ask before knocking (which card, and the deadwood it leaves); resolves to the card, or null. */
export async function confirmKnock(choice) {
  let card = choice.chosen.card;
  let select = null;
  const body = h("div", {});
  if (choice.options.length > 1) {
    select = h(
      "select",
      { id: "knock-card" },
      choice.options.map((o) =>
        h("option", { value: o.card, selected: o.card === card }, t("table.knock_option", { card: cardText(o.card), n: o.deadwood })),
      ),
    );
    body.append(h("label", { class: "field" }, h("span", {}, t("table.knock_which")), select));
  }
  const explain = h("p", { id: "knock-explain" });
  const update = () => {
    const picked = choice.options.find((o) => o.card === (select ? select.value : card));
    explain.textContent =
      picked.deadwood === 0
        ? t("table.confirm_gin_text", { card: cardText(picked.card) })
        : t("table.confirm_knock_text", { card: cardText(picked.card), n: picked.deadwood });
  };
  if (select) select.addEventListener("change", update);
  update();
  body.append(explain);
  const gin = choice.options.some((o) => o.deadwood === 0) && choice.chosen.deadwood === 0;
  const answer = await ask({
    title: gin ? t("table.confirm_gin") : t("table.confirm_knock"),
    body,
    className: "confirm-knock",
    buttons: [
      { label: t("table.cancel"), value: "cancel" },
      { label: gin ? t("table.gin") : t("table.knock"), value: "knock", class: "primary" },
    ],
  });
  if (answer !== "knock") return null;
  if (select) card = select.value;
  return card;
}
