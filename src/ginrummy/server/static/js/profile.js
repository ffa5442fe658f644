// A player's profile: name, rating with its history chart, statistics, finished matches with replays.
import { api, describeError } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { ratingChange, ratingChart, ratingText } from "./compete.js";
import { fill, h, startPage, toast } from "./ui.js";

await startPage("profile");
const root = document.getElementById("profile");
const parts = location.pathname.split("/").filter(Boolean);
const path = parts[0] === "@" ? `/api/players/@/${encodeURIComponent(decodeURIComponent(parts[1] || ""))}` : `/api/players/${encodeURIComponent(parts[1] || "")}`;

const percent = (x) => (x === null || x === undefined ? "–" : `${formatNumber(Math.round(x * 1000) / 10)} %`);
const day = (at) => new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: "medium" }).format(new Date(at * 1000));

function stat(key, value) {
  return h("div", { class: "stat", dataset: { stat: key } }, h("div", { class: "stat-value" }, value), h("div", { class: "stat-name" }, t(`profile.stat.${key}`)));
}

const PRESETS = ["classic", "hoyle", "oklahoma", "big_gin"];
const TARGETS = [10, 25, 50, 100, 150, 250];
const CLOCKS = [30, 60, 90, 120];

/** The challenge form of a bot's profile: rules, target, clock, rated; then the wait for its answer. */
function challengeForm(p) {
  const select = (id, values, chosen, label) =>
    h("select", { id }, values.map((v) => h("option", { value: v, selected: v === chosen }, label(v))));
  const preset = select("challenge-preset", PRESETS, "classic", (v) => t(`rules.${v}`));
  const target = select("challenge-target", TARGETS, 100, (n) => t("home.target_n", { n }));
  const clock = select("challenge-clock", CLOCKS, 60, (n) => t("bots.clock_n", { n }));
  const rated = h("input", { type: "checkbox", id: "challenge-rated", checked: true });
  const status = h("p", { class: "hint", id: "challenge-status", role: "status" });
  const button = h("button", { type: "submit", class: "primary big", id: "challenge-send" }, t("bots.challenge"));
  const cancel = h("button", { type: "button", id: "challenge-cancel", hidden: true }, t("bots.challenge_cancel"));
  let pending = null;
  const form = h(
    "form",
    { id: "challenge-form", class: "challenge" },
    h("h2", {}, t("bots.challenge_title", { name: p.name })),
    h("label", { class: "field" }, h("span", {}, t("home.rules")), preset),
    h("label", { class: "field" }, h("span", {}, t("home.target")), target),
    h("label", { class: "field" }, h("span", {}, t("home.turn_clock")), clock),
    h("label", { class: "check" }, rated, h("span", {}, t("bots.rated_in_pool"))),
    h("div", { class: "actions" }, button, cancel),
    status,
  );
  const settle = (c) => {
    pending = null;
    button.disabled = false;
    cancel.hidden = true;
    if (c.status === "accepted") {
      status.textContent = t("bots.challenge_accepted");
      location.assign(c.url);
    } else if (c.status === "declined") {
      status.textContent = t(`bots.declined.${c.decline_reason || "generic"}`, { name: p.name });
    } else {
      status.textContent = t(`bots.challenge_${c.status}`, { name: p.name });
    }
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      let c = await api("POST", `/api/players/${encodeURIComponent(p.id)}/challenge`, {
        preset: preset.value,
        target: Number(target.value),
        turn_seconds: Number(clock.value),
        rated: rated.checked,
      });
      pending = c.id;
      cancel.hidden = false;
      status.textContent = t("bots.challenge_waiting", { name: p.name });
      while (c.status === "pending" && pending === c.id) {
        c = await api("GET", `/api/challenges/${encodeURIComponent(c.id)}?wait=25`);
      }
      if (pending === c.id || c.status !== "pending") settle(c);
    } catch (error) {
      pending = null;
      button.disabled = false;
      cancel.hidden = true;
      status.textContent = "";
      toast(describeError(error), "error");
    }
  });
  // Leaving the page withdraws a challenge still waiting: nobody would be at the table.
  addEventListener("pagehide", () => {
    if (pending) fetch(`/api/challenges/${encodeURIComponent(pending)}`, { method: "DELETE", keepalive: true }).catch(() => {});
  });
  cancel.addEventListener("click", async () => {
    if (!pending) return;
    try {
      settle(await api("DELETE", `/api/challenges/${encodeURIComponent(pending)}`));
    } catch (error) {
      toast(describeError(error), "error");
    }
  });
  return form;
}

function botPanel(p) {
  if (!p.bot) return null;
  return h(
    "div",
    { class: "bot-panel", id: "bot-panel" },
    h(
      "p",
      { class: "hint" },
      t("bots.made_by"),
      " ",
      h("a", { href: `/players/${encodeURIComponent(p.bot.owner.id)}`, id: "bot-owner" }, p.bot.owner.name),
      " · ",
      h("span", { class: `badge ${p.bot.online ? "online" : "offline"}`, id: "bot-online" }, t(p.bot.online ? "bots.online" : "bots.offline")),
    ),
    h("p", { class: "hint" }, t("bots.pool_note")),
    p.bot.online ? challengeForm(p) : h("p", { class: "hint", id: "bot-offline-note" }, t("bots.offline_note", { name: p.name })),
  );
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
      h("div", { class: "who" }, t("matches.vs", { name: m.opponent }), m.opponent_bot ? h("span", { class: "badge bot" }, t("bots.badge")) : null),
      h("div", { class: "rules" }, m.rated ? t("profile.rated") : t("profile.casual")),
      h("div", { class: "score" }, `${formatNumber(m.scores[0])} – ${formatNumber(m.scores[1])}`),
      h("div", { class: `result ${m.outcome}` }, t(`profile.outcome.${m.outcome}`)),
      h("div", { class: "rating" }, m.rating ? ratingChange(m.rating, { title: t("matches.rating_hint") }) : null),
      h("div", { class: "go" }, h("a", { class: "button", href: m.replay }, t("matches.replay"))),
    ),
  );
  fill(
    root,
    h(
      "div",
      { class: "profile-head" },
      h("h1", { id: "profile-name" }, p.name),
      p.bot
        ? h("span", { class: "badge bot", id: "bot-badge", title: t("bots.badge_hint") }, t("bots.badge"))
        : h("span", { class: `badge ${p.account ? "account" : "guest"}` }, t(p.account ? "profile.account" : "profile.guest")),
      h("p", { class: "hint" }, t("profile.since", { date: formatDate(p.member_since) })),
    ),
    h(
      "div",
      { class: "rating-box" },
      h("div", { class: "rating-big", id: "profile-rating", title: t("profile.deviation", { n: r.deviation }) }, ratingText(r)),
      h("div", { class: "hint" }, r.provisional ? t("profile.provisional") : t("profile.rated_games", { n: r.games })),
    ),
    p.table_ratings && p.table_ratings.length
      ? h(
          "ul",
          { class: "table-ratings", id: "table-ratings", "aria-label": t("profile.table_ratings") },
          p.table_ratings.map((g) =>
            h(
              "li",
              { dataset: { game: g.game }, title: t("profile.deviation", { n: g.deviation }) },
              h("span", { class: "who" }, t(`game.${g.game}`)),
              " ",
              h("strong", {}, ratingText(g)),
              " ",
              h("span", { class: "hint" }, t("profile.rated_games", { n: g.games })),
            ),
          ),
        )
      : null,
    botPanel(p),
    p.playing && p.playing.length
      ? h(
          "div",
          { id: "now-playing" },
          h("h2", {}, t("bots.playing_now")),
          h("ul", { class: "rows" }, p.playing.map((g) => h("li", {}, h("a", { class: "button primary profile-watch", href: g.watch }, t("bots.watch"))))),
        )
      : null,
    h("h2", {}, t("profile.history")),
    // Drawn at about the width it is shown at, so its labels stay readable on a phone.
    p.history.length
      ? ratingChart(p.history, { start: p.history_start, formatDay: day, width: Math.round(Math.min(640, Math.max(300, root.clientWidth || 640))) })
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
    matches.length ? h("ul", { class: "rows match-list" }, matches) : h("p", { class: "hint" }, t("profile.no_matches")),
  );
}

try {
  render(await api("GET", path));
} catch (error) {
  root.replaceChildren(h("p", { class: "error" }, describeError(error)));
}
