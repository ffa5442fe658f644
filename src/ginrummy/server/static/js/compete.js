// Competition helpers shared by pages: countdowns, rating text, board rows, the rating-history
// chart, the live games list.
import { formatNumber, t, tn } from "./i18n.js";
import { guestMark, guestName, robotName } from "./names.js";
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

/** "+12", "−8" or "±0": a rating change as Lichess writes it. */
export function changeText(change) {
  if (change > 0) return `+${change}`;
  return change < 0 ? `\u2212${-change}` : "\u00b10";
}

/**
 * What a rated match did to a rating (`c`: {rating, change, provisional} from the server): the new
 * rating with its "?" while provisional, then the change, coloured up or down.
 */
export function ratingChange(c, attrs = {}) {
  const direction = c.change > 0 ? "up" : c.change < 0 ? "down" : "even";
  return h(
    "span",
    { class: "rating-after", ...attrs },
    h("span", { class: "new-rating", title: c.provisional ? t("profile.provisional") : null }, ratingText(c)),
    " ",
    h("span", { class: `rating-diff ${direction}` }, changeText(c.change)),
  );
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

/** Round grid values from below `lo` to above `hi`, at most five of them (1500, 1550, 1600…). */
function ticks(lo, hi) {
  const span = Math.max(hi - lo, 10);
  const step = [10, 20, 25, 50, 100, 200, 250, 500].find((s) => span / s <= 4) || 1000;
  const first = Math.floor(lo / step) * step;
  const last = Math.max(Math.ceil(hi / step) * step, first + step);
  const out = [];
  for (let v = first; v <= last; v += step) out.push(v);
  return out;
}

/**
 * The rating history as an SVG line chart (no library). It starts from `start` (the rating the
 * first match shown began from, when it began), then one point per rated match; the axes say what
 * they measure, and each point tells its date and value on hover, on a tap and on keyboard focus.
 */
export function ratingChart(history, { start = null, width = 640, height = 230, formatDay = (at) => String(at) } = {}) {
  const box = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "group", "aria-label": t("profile.chart_label") });
  const points = start ? [{ ...start, start: true }, ...history] : history;
  if (points.length === 0) return box;
  const pad = { left: 62, right: 14, top: 14, bottom: 44 };
  const grid = ticks(Math.min(...points.map((p) => p.rating)), Math.max(...points.map((p) => p.rating)));
  const lo = grid[0];
  const hi = grid[grid.length - 1];
  const x0 = points[0].at;
  const x1 = points[points.length - 1].at;
  const x = (at, i) =>
    pad.left + (width - pad.left - pad.right) * (x1 > x0 ? (at - x0) / (x1 - x0) : points.length > 1 ? i / (points.length - 1) : 0.5);
  const y = (r) => pad.top + (height - pad.top - pad.bottom) * (1 - (r - lo) / (hi - lo));
  for (const r of grid) {
    box.append(
      svg("line", { x1: pad.left, x2: width - pad.right, y1: y(r), y2: y(r), class: "grid" }),
      svg("text", { x: pad.left - 6, y: y(r) + 4, class: "axis tick", "text-anchor": "end" }, String(r)),
    );
  }
  // What each axis measures: the rating up the side, the dates along the bottom.
  const middle = pad.top + (height - pad.top - pad.bottom) / 2;
  box.append(
    svg("text", { x: 14, y: middle, class: "axis-title", id: "chart-rating-axis", "text-anchor": "middle", transform: `rotate(-90 14 ${middle})` }, t("profile.chart_rating_axis")),
    svg("text", { x: pad.left + (width - pad.left - pad.right) / 2, y: height - 6, class: "axis-title", id: "chart-date-axis", "text-anchor": "middle" }, t("profile.chart_date_axis")),
    svg("text", { x: pad.left, y: height - 24, class: "axis date" }, formatDay(x0)),
    svg("text", { x: width - pad.right, y: height - 24, class: "axis date", "text-anchor": "end" }, formatDay(x1)),
  );
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(p.at, i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  box.append(svg("path", { d: path, class: "line" }));

  // One tooltip for the chart, moved to the point pointed at, tapped or focused.
  const tipBox = svg("rect", { class: "tip-box", rx: 6, ry: 6 });
  const tipValue = svg("text", { class: "tip-value" });
  const tipDate = svg("text", { class: "tip-date" });
  const tip = svg("g", { class: "tip", id: "chart-tip", visibility: "hidden", "aria-hidden": "true" }, tipBox, tipValue, tipDate);
  const show = (p, cx, cy) => {
    tipValue.textContent = p.start ? t("profile.chart_start", { rating: String(p.rating) }) : String(p.rating);
    tipDate.textContent = formatDay(p.at);
    tip.setAttribute("visibility", "visible");
    const w = Math.max(tipValue.getComputedTextLength(), tipDate.getComputedTextLength()) + 16;
    const tall = 38;
    const left = Math.min(Math.max(cx - w / 2, pad.left), width - pad.right - w);
    const top = cy - tall - 10 >= 0 ? cy - tall - 10 : cy + 10;
    for (const [k, v] of Object.entries({ x: left, y: top, width: w, height: tall })) tipBox.setAttribute(k, String(v));
    for (const [el, dy] of [[tipValue, 16], [tipDate, 31]]) {
      el.setAttribute("x", String(left + 8));
      el.setAttribute("y", String(top + dy));
    }
  };
  const hide = () => tip.setAttribute("visibility", "hidden");
  points.forEach((p, i) => {
    const cx = x(p.at, i);
    const cy = y(p.rating);
    const label = p.start
      ? t("profile.chart_start_label", { rating: String(p.rating), date: formatDay(p.at) })
      : t("profile.chart_point", { rating: String(p.rating), date: formatDay(p.at) });
    const dot = svg("circle", { cx, cy, r: 4, class: p.start ? "dot start" : "dot", tabindex: 0, role: "img", "aria-label": label });
    dot.append(svg("title", {}, label));
    dot.addEventListener("pointerenter", () => show(p, cx, cy));
    dot.addEventListener("click", () => show(p, cx, cy));
    dot.addEventListener("focus", () => show(p, cx, cy));
    dot.addEventListener("pointerleave", hide);
    dot.addEventListener("blur", hide);
    box.append(dot);
  });
  box.append(tip);
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
  const mark = p.kind === "robot" ? "" : guestMark(p.name, p.guest);
  const name = (p.kind === "robot" ? robotName(p.level) : guestName(p.name)) + (mark ? ` ${mark}` : "");
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
