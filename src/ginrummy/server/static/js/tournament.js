// One tournament: countdown, live standings over a WebSocket, join / pause / withdraw, your next
// pairing (the page goes to the match as soon as it is made), the matches in play to watch, the winner.
import { api, describeError, parseJson } from "./api.js";
import { formatDate, formatNumber, t } from "./i18n.js";
import { countdown, playerLink } from "./compete.js";
import { copyText, fill, h, startPage, toast } from "./ui.js";

await startPage("tournaments");
const root = document.getElementById("tournament");
const tournamentId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let stopClock = null;
let lastMatch = sessionStorage.getItem(`gr-t-${tournamentId}-seen`);

// The page's state: the last whole state with every pushed change applied (see `absorb`).
let view = null;
let lines = new Map(); // the lines shown, by player id, without their rank

function absorb(message) {
  // A whole state (on opening, and answers to join / pause / withdraw) replaces everything; a
  // push (delta: true) carries the order of the lines shown when it changed, the lines that
  // changed, and the tournament, the matches to watch and your own part when they changed.
  if (!message.delta || !view) {
    lines = new Map(message.standings.map((line) => [line.id, line]));
    view = message;
    return view;
  }
  for (const [id, line] of Object.entries(message.lines || {})) lines.set(id, line);
  const order = message.order || view.standings.map((line) => line.id);
  const shown = new Map();
  const standings = [];
  for (const id of order) {
    const line = lines.get(id);
    if (!line) continue;
    shown.set(id, line);
    standings.push({ ...line, rank: standings.length + 1 });
  }
  lines = shown;
  view = {
    ...view,
    now: message.now,
    players_ranked: message.players_ranked,
    standings,
    tournament: message.tournament || view.tournament,
    playing: message.playing || view.playing,
    me: "me" in message ? message.me : view.me,
  };
  return view;
}

function goPlay(matchId) {
  // Your next pairing: go and play it (as Lichess's arena does).
  lastMatch = matchId;
  sessionStorage.setItem(`gr-t-${tournamentId}-seen`, matchId);
  location.assign(`/m/${encodeURIComponent(matchId)}`);
}

async function act(verb) {
  try {
    render(absorb(await api("POST", `/api/tournaments/${encodeURIComponent(tournamentId)}/${verb}`)));
    // Someone who came by the link had no guest yet when the page's socket opened: joining made
    // one, so open the socket again as that guest (its next pairing comes over it).
    if (verb === "join") connect();
  } catch (error) {
    toast(describeError(error), "error");
  }
}

function score(value) {
  // Swiss scores go by halves: 2.5 is written 2½.
  const whole = Math.floor(value);
  return value === whole ? formatNumber(value) : `${whole ? formatNumber(whole) : ""}½`;
}

function standingsTable(data) {
  const me = data.me;
  const swiss = data.tournament.format === "swiss";
  const row = (line) =>
    h(
      "tr",
      { class: [me && line.rank === me.rank ? "mine" : "", line.withdrawn ? "withdrawn" : ""].join(" "), dataset: { id: line.id } },
      h("td", { class: "rank" }, formatNumber(line.rank)),
      h(
        "td",
        { class: "who" },
        playerLink(line),
        line.fire ? h("span", { class: "fire", title: t("tournament.on_fire") }, " \u{1F525}") : null,
        line.paused ? h("span", { class: "hint" }, ` (${t("tournament.paused")})`) : null,
      ),
      h("td", { class: "sheet" }, line.sheet.join(" ")),
      // Not "score": that class is the table page's scoreboard (a grid, which breaks a table cell).
      h("td", { class: "num points" }, score(line.score)),
      swiss
        ? [h("td", { class: "num tb" }, score(line.buchholz)), h("td", { class: "num tb sb" }, score(line.sonneborn_berger))]
        : h("td", { class: "num perf" }, line.performance === null ? "–" : String(line.performance)),
    );
  const rows = data.standings.map(row);
  if (me && me.line && me.line.rank > data.standings.length) {
    // Your own line, wherever you stand.
    rows.push(h("tr", { class: "gap" }, h("td", { colspan: swiss ? 6 : 5 }, "…")));
    rows.push(row(me.line));
  }
  if (!rows.length) return h("p", { class: "hint" }, t("tournament.nobody"));
  return h(
    "table",
    { class: "board standings", id: "standings" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, t("board.rank")),
        h("th", {}, t("board.player")),
        h("th", { class: "sheet" }, t("tournament.sheet")),
        h("th", { class: "num points" }, t("tournament.score")),
        swiss
          ? [h("th", { class: "num tb", title: t("tournament.buchholz") }, t("tournament.buchholz")), h("th", { class: "num tb sb" }, t("tournament.sonneborn_berger"))]
          : h("th", { class: "num perf" }, t("tournament.performance")),
      ),
    ),
    h("tbody", {}, rows),
  );
}

function render(data) {
  const tour = data.tournament;
  const me = data.me;
  if (me && me.match_id && me.match_id !== lastMatch) {
    goPlay(me.match_id);
    return;
  }
  document.title = `${tour.name} · ${t("app.name")}`;
  const clock = h("strong", { class: "countdown", id: "t-countdown" }, "");
  const swiss = tour.format === "swiss";
  let phase = tour.status === "created" ? "starts_in" : tour.status === "started" ? "ends_in" : "finished";
  if (swiss && phase === "ends_in") phase = tour.next_round_at ? "next_round_in" : "round";
  const buttons = [];
  if (tour.status !== "finished") {
    if (!me || !me.joined) buttons.push(h("button", { class: "primary big", id: "t-join", onclick: () => act("join") }, t("tournament.join")));
    else {
      buttons.push(
        me.paused
          ? h("button", { id: "t-resume", class: "primary", onclick: () => act("resume") }, t("tournament.resume"))
          : h("button", { id: "t-pause", onclick: () => act("pause") }, t("tournament.pause")),
        h("button", { id: "t-withdraw", onclick: () => act("withdraw") }, t("tournament.withdraw")),
      );
    }
  }
  const link = new URL(`/t/${tournamentId}`, location.origin).href;
  const linkInput = h("input", { readonly: true, value: link, id: "t-link" });
  const winner = tour.winner
    ? h("p", { class: "winner", id: "t-winner" }, "\u2605 ", t("tournament.winner", { name: tour.winner.name }))
    : null;
  fill(
    root,
    h("h1", { id: "t-title" }, tour.name),
    h(
      "p",
      { class: "hint" },
      t(`rules.${tour.rules.preset || "classic"}`),
      " · ",
      t("home.target_n", { n: tour.rules.target || 100 }),
      " · ",
      tour.rated ? t("tournament.rated_short") : t("tournament.casual_short"),
      " · ",
      t("tournament.players", { n: tour.players }),
    ),
    swiss && tour.round ? h("p", { class: "round", id: "t-round" }, t("tournament.round_of", { n: tour.round, total: tour.rounds })) : null,
    phase === "round" ? null : h("p", { class: "ends", dataset: { phase } }, phase === "finished" ? t("tournament.finished") : [t(`tournament.${phase}`), " ", clock]),
    // The start in the viewer's own time, beside the countdown.
    tour.status === "created" ? h("p", { class: "hint", id: "t-starts-at" }, t("tournament.starts_on", { when: formatDate(tour.starts_at) })) : null,
    winner,
    h("div", { class: "row" }, buttons),
    me && me.joined && !me.match_id && tour.status === "started" && !me.paused ? h("p", { class: "hint", id: "t-waiting" }, t("tournament.waiting_pairing")) : null,
    standingsTable(data),
    data.playing.length
      ? h(
          "div",
          { id: "t-playing" },
          h("h2", {}, t("tournament.watch")),
          h("ul", { class: "watch-list" }, data.playing.map((m) => h("li", {}, h("a", { href: m.watch, dataset: { match: m.id } }, m.names.join(" – "))))),
        )
      : null,
    h("h2", {}, t("tournament.share")),
    h("div", { class: "row" }, linkInput, h("button", { type: "button", onclick: async () => toast((await copyText(link, linkInput)) ? t("home.copied") : t("home.copy_failed")) }, t("home.copy"))),
  );
  if (stopClock) stopClock();
  stopClock = null;
  const until = { starts_in: tour.starts_at, ends_in: tour.ends_at, next_round_in: tour.next_round_at }[phase];
  if (until) stopClock = countdown(clock, until, data.now);
}

let socket = null;

function connect(attempt = 0) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const old = socket;
  const ws = new WebSocket(`${scheme}://${location.host}/ws/t/${encodeURIComponent(tournamentId)}`);
  socket = ws;
  if (old) old.close();
  ws.addEventListener("message", (event) => {
    const message = parseJson(event.data);
    if (message.type === "tournament") render(absorb(message));
    else if (message.type === "pairing" && message.match_id !== lastMatch) goPlay(message.match_id);
    else if (message.type === "error") root.replaceChildren(h("p", { class: "error" }, message.message));
  });
  ws.addEventListener("open", () => {
    attempt = 0;
  });
  ws.addEventListener("close", (event) => {
    if (ws !== socket || event.code === 4404) return;
    setTimeout(() => connect(attempt + 1), Math.min(10000, 500 * 2 ** attempt));
  });
}

try {
  render(absorb(await api("GET", `/api/tournaments/${encodeURIComponent(tournamentId)}`)));
  connect();
} catch (error) {
  root.replaceChildren(h("p", { class: "error" }, describeError(error)));
}
