// My matches: every match of this guest, with a link back to the table or to the replay.
import { api, describeError } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { ratingChange } from "./compete.js";
import { guestName, playerName, robotName } from "./names.js";
import { h, startPage } from "./ui.js";

await startPage("matches");
const list = document.getElementById("match-list");
list.textContent = t("matches.loading");

function opponentName(m) {
  if (m.opponent_kind === "robot" && m.opponent_level) return robotName(m.opponent_level);
  if (m.opponent && m.opponent_bot) return t("bots.name_mark", { name: m.opponent });
  return m.opponent ? guestName(m.opponent) : t("matches.nobody");
}

/** The others at a table of more than two: "vs Bea, Cai and Robot (Casual)". */
function othersOf(m) {
  return (m.players || [])
    .filter((p) => p.seat !== m.seat)
    .map((p) => (p.kind ? playerName(p) : t("matches.nobody")))
    .join(", ");
}

function row(m) {
  const game = m.game || "gin";
  const side = m.side ?? m.seat ?? 0;
  const scores = m.scores || [0, 0];
  const preset = m.rules && typeof m.rules === "object" ? m.rules.preset : m.rules;
  let result = t(`matches.status.${m.status}`);
  let resultClass = m.status;
  const winner = m.winner_side ?? m.winner_seat;
  if (m.status === "over") {
    if (winner === null || winner === undefined) result = t("matches.drawn");
    else if (winner === side) {
      result = t("matches.won");
      resultClass = "won";
    } else {
      result = t("matches.lost");
      resultClass = "lost";
    }
  }
  const link =
    m.status === "over"
      ? h("a", { class: "button", href: `/replay/${encodeURIComponent(m.id)}`, dataset: { replay: m.id } }, t("matches.replay"))
      : h("a", { class: "button primary", href: `/m/${encodeURIComponent(m.id)}` }, t("matches.continue"));
  return h(
    "li",
    { class: `match-row ${resultClass}`, dataset: { id: m.id } },
    h("div", { class: "when" }, formatDate(m.finished_at || m.created_at)),
    h("div", { class: "who" }, game === "gin" ? t("matches.vs", { name: opponentName(m) }) : t("matches.with", { names: othersOf(m) })),
    h("div", { class: "rules" }, game !== "gin" ? t(`rules.${game}`) : preset ? t(`rules.${preset}`) : ""),
    // This side's score first, then the others'.
    h("div", { class: "score" }, [scores[side], ...scores.filter((_, k) => k !== side)].map(formatNumber).join(" – ")),
    h("div", { class: `result ${resultClass}` }, result),
    // What a rated match did to this player's rating (Lichess's game list shows it too).
    h("div", { class: "rating" }, m.ratings && m.ratings[m.seat] ? ratingChange(m.ratings[m.seat], { title: t("matches.rating_hint") }) : null),
    h("div", { class: "go" }, link),
  );
}

try {
  const data = await api("GET", "/api/matches");
  const matches = (data && data.matches) || [];
  if (!matches.length) {
    list.replaceChildren(h("p", {}, t("matches.none")), h("a", { class: "button primary", href: "/" }, t("nav.play")));
  } else {
    list.replaceChildren(h("ul", { class: "rows" }, matches.map(row)));
  }
} catch (error) {
  list.replaceChildren(h("p", { class: "error" }, describeError(error)));
}
