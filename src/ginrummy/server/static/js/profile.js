// A player's profile: name, rating with its history chart, statistics, finished matches with replays.
import { api, describeError } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { ratingChart, ratingText } from "./compete.js";
import { h, startPage } from "./ui.js";

await startPage("profile");
const root = document.getElementById("profile");
const parts = location.pathname.split("/").filter(Boolean);
const path = parts[0] === "@" ? `/api/players/@/${encodeURIComponent(decodeURIComponent(parts[1] || ""))}` : `/api/players/${encodeURIComponent(parts[1] || "")}`;

const percent = (x) => (x === null || x === undefined ? "–" : `${formatNumber(Math.round(x * 1000) / 10)} %`);
const day = (at) => new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: "medium" }).format(new Date(at * 1000));

function stat(key, value) {
  return h("div", { class: "stat", dataset: { stat: key } }, h("div", { class: "stat-value" }, value), h("div", { class: "stat-name" }, t(`profile.stat.${key}`)));
}

function render(p) {
  document.title = `${p.name} · ${t("app.name")}`;
  const r = p.rating;
  const s = p.stats;
  const matches = p.matches.map((m) =>
    h(
      "li",
      { class: `match-row ${m.outcome}`, dataset: { id: m.id } },
      h("div", { class: "when" }, formatDate(m.finished_at)),
      h("div", { class: "who" }, t("matches.vs", { name: m.opponent })),
      h("div", { class: "rules" }, m.rated ? t("profile.rated") : t("profile.casual")),
      h("div", { class: "score" }, `${formatNumber(m.scores[0])} – ${formatNumber(m.scores[1])}`),
      h("div", { class: `result ${m.outcome}` }, t(`profile.outcome.${m.outcome}`)),
      h("div", { class: "go" }, h("a", { class: "button", href: m.replay }, t("matches.replay"))),
    ),
  );
  root.replaceChildren(
    h(
      "div",
      { class: "profile-head" },
      h("h1", { id: "profile-name" }, p.name),
      h("span", { class: `badge ${p.account ? "account" : "guest"}` }, t(p.account ? "profile.account" : "profile.guest")),
      h("p", { class: "hint" }, t("profile.since", { date: formatDate(p.member_since) })),
    ),
    h(
      "div",
      { class: "rating-box" },
      h("div", { class: "rating-big", id: "profile-rating", title: t("profile.deviation", { n: r.deviation }) }, ratingText(r)),
      h("div", { class: "hint" }, r.provisional ? t("profile.provisional") : t("profile.rated_games", { n: r.games })),
    ),
    h("h2", {}, t("profile.history")),
    // Drawn at about the width it is shown at, so its labels stay readable on a phone.
    p.history.length
      ? ratingChart(p.history, { formatDay: day, width: Math.round(Math.min(640, Math.max(300, root.clientWidth || 640))) })
      : h("p", { class: "hint", id: "no-history" }, t("profile.no_history")),
    h("h2", {}, t("profile.statistics")),
    h(
      "div",
      { class: "stats" },
      stat("matches", formatNumber(s.matches)),
      stat("win_rate", percent(s.win_rate)),
      stat("gin_rate", percent(s.gin_rate)),
      stat("undercut_rate", percent(s.undercut_rate)),
      stat("knocks", formatNumber(s.knocks)),
      stat("knock_deadwood", s.knock_deadwood === null ? "–" : formatNumber(Math.round(s.knock_deadwood * 10) / 10)),
    ),
    h("h2", {}, t("profile.matches")),
    matches.length ? h("ul", { class: "rows match-list" }, matches) : h("p", { class: "hint" }, t("matches.none")),
  );
}

try {
  render(await api("GET", path));
} catch (error) {
  root.replaceChildren(h("p", { class: "error" }, describeError(error)));
}
