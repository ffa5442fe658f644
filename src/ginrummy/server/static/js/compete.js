// Competition helpers shared by pages: countdowns, rating text, board rows, the rating-history
// chart, the live games list.
import { formatNumber, t, tn } from "./i18n.js";
import { guestName, robotName } from "./names.js";
import { h } from "./ui.js";

/** "HH:MM:SS" (or "D d HH:MM:SS" past a day) until `seconds` from now; never negative. */
export function clockText(seconds) {
  const left = Math.max(0, Math.floor(seconds));
  const days = Math.floor(left / 86400);
  const rest = left % 86400;
  const pad = (n) => String(n).padStart(2, "0");
  const text = `${pad(Math.floor(rest / 3600))}:${pad(Math.floor((rest % 3600) / 60))}:${pad(rest % 60)}`;
  return days ? t("compete.days_clock", { days, clock: text }) : text;
}

/**
 * Keep `el` showing the time left until the unix time `until`, correcting for the server's clock
 * (`serverNow` as the server saw it when the page asked). Calls `onEnd` once at zero.
 */
export function countdown(el, until, serverNow, onEnd) {
  const skew = serverNow ? serverNow - Date.now() / 1000 : 0;
  let ended = false;
  const tick = () => {
    const left = until - (Date.now() / 1000 + skew);
    el.textContent = clockText(left);
    el.dataset.left = String(Math.max(0, Math.floor(left)));
    if (left <= 0 && !ended) {
      ended = true;
      clearInterval(timer);
      if (onEnd) onEnd();
    }
  };
  const timer = setInterval(tick, 250);
  tick();
  return () => clearInterval(timer);
}

/** The next 00:00:00 UTC after the unix time `now`. */
export const nextUtcMidnight = (now) => (Math.floor(now / 86400) + 1) * 86400;

/** "1834" or "1500?" for a provisional rating. */
export function ratingText(r) {
  if (!r) return "";
  return `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;
}

/** A link to a player's profile; a guest without an account is marked as one (nobody passes for an account). */
export function playerLink(line) {
  const name = line.name + (line.guest ? ` ${t("compete.guest_mark")}` : "");
  return h("a", { href: `/players/${encodeURIComponent(line.id)}`, class: "player-link" }, name);
}

/** A leaderboard table: rank, player, then the board's own columns; the viewer's own line marked. */
export function boardTable(board, { compact = false } = {}) {
  const rating = board.board === "rating";
  const cols = rating ? ["rating", "matches"] : ["wins", "points", "matches"];
  const shown = compact ? cols.slice(0, rating ? 1 : 2) : cols;
  const row = (line, mine) =>
    h(
      "tr",
      { class: mine ? "mine" : null, dataset: { id: line.id } },
      h("td", { class: "rank" }, formatNumber(line.rank)),
      h("td", { class: "who" }, playerLink(line)),
      shown.map((c) => h("td", { class: `num ${c}` }, c === "rating" ? String(line.rating) : formatNumber(line[c] ?? 0))),
    );
  const me = board.me;
  const body = board.lines.map((line) => row(line, me && line.id === me.id));
  if (me && !board.lines.some((line) => line.id === me.id)) {
    body.push(h("tr", { class: "gap" }, h("td", { colspan: 2 + shown.length }, "…")), row(me, true));
  }
  if (!body.length) {
    return h("p", { class: "hint empty-board" }, t(rating ? "board.empty_rating" : "board.empty"));
  }
  return h(
    "table",
    { class: `board ${compact ? "compact" : ""}`, dataset: { board: board.board } },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, t("board.rank")), h("th", {}, t("board.player")), shown.map((c) => h("th", { class: `num ${c}` }, t(`board.col.${c}`)))),
    ),
    h("tbody", {}, body),
  );
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** The rating history as an SVG line chart (no library): one point per rated match, dates below. */
export function ratingChart(points, { width = 640, height = 220, formatDay } = {}) {
  const box = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img", "aria-label": t("profile.chart_label") });
  if (points.length === 0) return box;
  const pad = { left: 44, right: 12, top: 12, bottom: 26 };
  const ratings = points.map((p) => p.rating);
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  if (hi - lo < 50) {
    lo -= 25;
    hi += 25;
  }
  const x0 = points[0].at;
  const x1 = points[points.length - 1].at;
  const x = (at, i) =>
    pad.left + (width - pad.left - pad.right) * (x1 > x0 ? (at - x0) / (x1 - x0) : points.length > 1 ? i / (points.length - 1) : 0.5);
  const y = (r) => pad.top + (height - pad.top - pad.bottom) * (1 - (r - lo) / (hi - lo));
  for (const r of [lo, (lo + hi) / 2, hi]) {
    box.append(
      svg("line", { x1: pad.left, x2: width - pad.right, y1: y(r), y2: y(r), class: "grid" }),
      svg("text", { x: pad.left - 6, y: y(r) + 4, class: "axis", "text-anchor": "end" }, String(Math.round(r))),
    );
  }
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.at, i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  box.append(svg("path", { d: path, class: "line" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: x(p.at, i), cy: y(p.rating), r: 3, class: "dot" });
    dot.append(svg("title", {}, `${p.rating} — ${formatDay ? formatDay(p.at) : ""}`));
    box.append(dot);
  });
  if (formatDay) {
    box.append(
      svg("text", { x: pad.left, y: height - 6, class: "axis" }, formatDay(x0)),
      svg("text", { x: width - pad.right, y: height - 6, class: "axis", "text-anchor": "end" }, formatDay(x1)),
    );
  }
  return box;
}

/** The listed tournaments with a countdown each (to the start, or to the end while running). */
export function tournamentList(tournaments, now) {
  if (!tournaments.length) return h("p", { class: "hint" }, t("tournament.none"));
  return h(
    "ul",
    { class: "tournament-list" },
    tournaments.map((tour) => {
      const clock = h("strong", { class: "countdown" }, "");
      const swiss = tour.format === "swiss";
      let when;
      if (tour.status === "created") {
        countdown(clock, tour.starts_at, now);
        when = [t("tournament.starts_in"), " ", clock];
      } else if (swiss) {
        when = [t("tournament.round_of", { n: tour.round, total: tour.rounds })];
      } else {
        countdown(clock, tour.ends_at, now);
        when = [t("tournament.ends_in"), " ", clock];
      }
      return h(
        "li",
        { dataset: { id: tour.id, format: tour.format } },
        h("a", { href: tour.url }, tour.name),
        h("span", {}, when, " · ", swiss ? [t("tournament.swiss_rounds", { n: tour.rounds }), " · "] : null, t("tournament.players", { n: tour.players })),
      );
    }),
  );
}

/** One player of a live game: name (a link to the profile for a person), rating, and a mark. */
function livePlayer(p) {
  const name = p.kind === "robot" ? robotName(p.level) : guestName(p.name);
  const label = p.id ? h("a", { href: `/players/${encodeURIComponent(p.id)}`, class: "player-link" }, name) : h("span", {}, name);
  return h(
    "span",
    { class: "live-player", dataset: { seat: p.seat } },
    label,
    p.bot ? [" ", h("span", { class: "badge bot" }, t("bots.badge"))] : null,
    p.rating !== null && p.rating !== undefined ? [" ", h("span", { class: "live-rating" }, ratingText(p))] : null,
  );
}

/** A live game's line: who plays whom (with ratings), the score, the game, and Watch. */
export function liveGameItem(game, { featured = false } = {}) {
  const kind = game.tournament ? game.tournament.name : t(game.rated ? "online.rated" : "online.casual");
  return h(
    "li",
    { class: `live-game${featured ? " featured" : ""}`, dataset: { id: game.id, rating: game.rating ?? "" } },
    h("div", { class: "live-players" }, game.players.flatMap((p, i) => [i ? h("span", { class: "vs" }, " – ") : null, livePlayer(p)])),
    h("div", { class: "live-score" }, game.scores.map((n) => formatNumber(n)).join(" – ")),
    h(
      "div",
      { class: "live-about hint" },
      t(`game.${game.game}`),
      " · ",
      t("watch.target", { n: game.target }),
      " · ",
      kind,
      game.spectators ? [" · ", tn("watch.spectators", game.spectators)] : null,
    ),
    h("a", { class: featured ? "button primary live-watch" : "button live-watch", href: game.watch }, t("live.watch")),
  );
}

/** The list of live games, in the server's order (highest rated first). */
export function liveGameList(games) {
  return h("ul", { class: "live-list", id: "live-list" }, games.map((g) => liveGameItem(g)));
}
