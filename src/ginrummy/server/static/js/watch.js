// Watching a match: the public view only (what is face up at the table), pushed after every move,
// with whose turn it is, each seat's clock, the last move highlighted, the score and the spectators.
import { parseJson } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { formatNumber, t, tn } from "./i18n.js";
import { describeMove } from "./moves.js";
import { guestMark, playerName } from "./names.js";
import { fill, h, startPage, tickDeadlines } from "./ui.js";

await startPage("watch");
const root = document.getElementById("watch");
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

const mmss = (seconds) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;

/** A seat's clock: counting down while the seat has a move to make, the turn's full time otherwise. */
function clock(message, s) {
  const m = message.match;
  const deadline = (m.turn_deadlines || [])[s];
  if (deadline && !message.result) {
    return h("span", { class: "watch-clock running", dataset: { deadline: String(deadline), seat: s } }, h("span", { class: "time" }, ""));
  }
  if (!m.turn_seconds) return h("span", { class: "watch-clock none", dataset: { seat: s } }, t("watch.no_clock"));
  return h("span", { class: "watch-clock", dataset: { seat: s } }, mmss(m.turn_seconds));
}

/** The last entry of a history (the hand being played), or null. */
const lastStep = (history) => (history && history.length ? history[history.length - 1] : null);

function header(message, extra) {
  const m = message.match;
  return [
    h("h1", {}, t("watch.title"), " · ", t(`game.${m.game || "gin"}`), m.rated ? h("span", { class: "badge rated" }, t("online.rated")) : null),
    h(
      "p",
      { class: "hint" },
      t("watch.hint"),
      " ",
      h("span", { id: "watch-spectators" }, tn("watch.spectators", m.spectators || 1)),
      m.tournament_id ? [" · ", h("a", { href: `/t/${encodeURIComponent(m.tournament_id)}` }, t("watch.back"))] : null,
      " · ",
      h("a", { href: "/watch" }, t("watch.more")),
    ),
    extra,
  ];
}

/** Whose turn it is, or how the match ended. */
function turnLine(message, toAct) {
  const m = message.match;
  const result = message.result;
  let text;
  if (result) {
    const winner = result.winner;
    if (result.ended === "aborted") text = t("end.aborted");
    else if (winner === null || winner === undefined) text = t("end.draw");
    else if (m.game === "gin4_teams") text = t("watch.won_side", { n: winner + 1 });
    else text = t("watch.won", { name: playerName(m.players[winner]) });
  } else if (toAct.length) {
    text = toAct.map((s) => t("watch.to_play", { name: playerName(m.players[s]) })).join(" · ");
  } else {
    text = t("watch.between_hands");
  }
  return h("p", { class: result ? "winner" : "watch-turn", id: result ? "watch-result" : "watch-turn" }, text);
}

function seat(message, s, last) {
  const p = message.match.players[s];
  const v = message.view;
  const known = v.known[s];
  const took = last && last.seat === s && last.action.type === "draw" && last.action.source === "discard" ? last.card : null;
  const cards = known.map((c) => cardElement(c, { classes: c === took ? ["just-moved"] : [] }));
  for (let i = cards.length; i < v.hand_sizes[s]; i += 1) cards.push(cardBack());
  return h(
    "div",
    { class: `watch-seat${v.to_act === s ? " to-act" : ""}`, dataset: { seat: s } },
    h(
      "div",
      { class: "watch-name" },
      h("span", { class: "who" }, playerName(p)),
      // A guest without an account is marked as one, as everywhere a name is shown.
      guestMark(p.name, p.guest) ? h("span", { class: "guest-mark" }, ` ${guestMark(p.name, p.guest)}`) : null,
      p.bot ? h("span", { class: "badge bot" }, t("bots.badge")) : null,
      clock(message, s),
    ),
    h("div", { class: "watch-hand" }, cards),
  );
}

function render(message) {
  const v = message.view;
  const m = message.match;
  const last = lastStep(v.history);
  const pile = v.discard_pile.slice(-6);
  const top = pile.map((c, i) => cardElement(c, { classes: i === pile.length - 1 && last && last.action.type === "discard" ? ["just-moved"] : [] }));
  const fromStock = last && last.action.type === "draw" && last.action.source === "stock";
  const sd = v.showdown || message.last_showdown;
  const toAct = message.result || v.to_act === null || v.to_act === undefined ? [] : [v.to_act];
  const names = m.players.map(playerName);
  fill(
    root,
    ...header(
      message,
      h(
        "p",
        { class: "watch-score", id: "watch-score" },
        `${names[0]} ${formatNumber(v.scores[0])} – ${formatNumber(v.scores[1])} ${names[1]}`,
        h("span", { class: "hint" }, " · ", t("watch.target", { n: m.target }), " · ", t("watch.hand", { n: v.hand_number })),
      ),
    ),
    turnLine(message, toAct),
    seat(message, 1, last),
    h(
      "div",
      { class: "watch-center" },
      h("div", { class: `watch-stock${fromStock ? " just-moved" : ""}` }, cardBack(), h("span", {}, t("watch.stock", { n: v.stock_count }))),
      h("div", { class: "watch-pile", id: "watch-pile" }, top),
    ),
    seat(message, 0, last),
    h("p", { class: "watch-last", id: "watch-last" }, last ? describeMove(last, names[last.seat]) : ""),
    sd && sd.outcome ? h("p", { class: "watch-showdown" }, t("watch.last_hand", { outcome: t(`showdown.${sd.outcome}`), points: sd.points || 0 })) : null,
  );
  root.dataset.version = String(message.version);
  tickDeadlines(root);
}

/** The sides' names: team Gin's two teams, each player alone at the other games. */
function sideNames(m) {
  const names = m.players.map(playerName);
  if (m.game === "gin4_teams") return [`${names[0]} & ${names[2]}`, `${names[1]} & ${names[3]}`];
  return names;
}

/** A bigger table (three-player Gin, team Gin, Rummy): its players, the face-up cards, the totals. */
function renderTable(message) {
  const v = message.view;
  const m = message.match;
  const names = m.players.map(playerName);
  const hands = v.tables || [v]; // Gin: its hands being played; Rummy: the one table
  const sides = sideNames(m);
  const toAct = message.result ? [] : hands.map((hand) => hand.to_act).filter((s) => s !== null && s !== undefined);
  fill(
    root,
    ...header(
      message,
      h(
        "p",
        { class: "watch-score", id: "watch-score" },
        (v.scores || []).map((n, side) => `${sides[side]} ${formatNumber(n)}`).join(" · "),
        h("span", { class: "hint" }, " · ", t("watch.target", { n: m.target }), " · ", t("watch.hand", { n: v.hand_number })),
      ),
    ),
    turnLine(message, toAct),
    h(
      "ul",
      { class: "watch-clocks" },
      m.players.map((p, s) => h("li", { class: toAct.includes(s) ? "to-act" : null, dataset: { seat: s } }, h("span", { class: "who" }, names[s]), guestMark(p.name, p.guest) ? ` ${guestMark(p.name, p.guest)}` : "", " ", clock(message, s))),
    ),
    ...hands.map((hand) => {
      const last = lastStep(hand.history);
      const pile = (hand.discard_pile || []).slice(-6);
      const players = hand.players && Array.isArray(hand.players) ? hand.players : m.players.map((p) => p.seat);
      return h(
        "div",
        { class: "watch-center" },
        h("div", { class: "watch-name" }, players.map((s) => names[s]).join(" · ")),
        (hand.table || []).map((meld) => h("div", { class: "group" }, meld.cards.map((c) => cardElement(c, { classes: ["small"] })))),
        h("div", { class: `watch-stock${last && last.action.type === "draw" && last.action.source === "stock" ? " just-moved" : ""}` }, cardBack(), h("span", {}, t("watch.stock", { n: hand.stock_count ?? 0 }))),
        h("div", { class: "watch-pile" }, pile.map((c, i) => cardElement(c, { classes: i === pile.length - 1 && last && last.action.type === "discard" ? ["just-moved"] : [] }))),
        h("p", { class: "watch-last" }, last ? describeMove(last, names[last.seat]) : ""),
      );
    }),
  );
  root.dataset.version = String(message.version);
  tickDeadlines(root);
}

setInterval(() => tickDeadlines(root), 250);

let shownVersion = -1; // the version on the page: an older copy (after a server failover) is not shown

function connect(attempt = 0) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/watch/${encodeURIComponent(matchId)}`);
  ws.addEventListener("open", () => {
    attempt = 0; // the next reconnect starts from the shortest pause again
  });
  ws.addEventListener("message", (event) => {
    const message = parseJson(event.data);
    if (message.type === "error") root.replaceChildren(h("p", { class: "error" }, message.message));
    if (message.type !== "spectate" || !message.view) return;
    if (message.version < shownVersion) return;
    shownVersion = message.version;
    if (message.match.game && message.match.game !== "gin") renderTable(message);
    else render(message);
  });
  ws.addEventListener("close", (event) => {
    if (event.code === 4404) return;
    setTimeout(() => connect(attempt + 1), Math.min(10000, 500 * 2 ** attempt));
  });
}

connect();
