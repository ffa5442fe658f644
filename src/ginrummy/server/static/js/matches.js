// My matches: every match of this guest, with a link back to the table or to the replay.
import { api, describeError } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { guestName, robotName } from "./names.js";
import { h, startPage } from "./ui.js";

await startPage("matches");
const list = document.getElementById("match-list");
list.textContent = t("matches.loading");

function opponentName(m) {
  if (m.opponent_kind === "robot" && m.opponent_level) return robotName(m.opponent_level);
  if (m.opponent && m.opponent_bot) return t("bots.name_mark", { name: m.opponent });
  return m.opponent ? guestName(m.opponent) : t("matches.nobody");
}

function row(m) {
  const seat = m.seat ?? 0;
  const scores = m.scores || [0, 0];
  const preset = m.rules && typeof m.rules === "object" ? m.rules.preset : m.rules;
  let result = t(`matches.status.${m.status}`);
  let resultClass = m.status;
  if (m.status === "over") {
    if (m.winner_seat === null || m.winner_seat === undefined) result = t("matches.drawn");
    else if (m.winner_seat === seat) {
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
    h("div", { class: "who" }, t("matches.vs", { name: opponentName(m) })),
    h("div", { class: "rules" }, preset ? t(`rules.${preset}`) : ""),
    h("div", { class: "score" }, `${formatNumber(scores[seat])} – ${formatNumber(scores[1 - seat])}`),
    h("div", { class: `result ${resultClass}` }, result),
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
