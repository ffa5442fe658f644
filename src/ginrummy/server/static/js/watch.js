// Watching a match: the public view only (what both players see), pushed after every move.
import { parseJson } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { formatNumber, t } from "./i18n.js";
import { fill, h, startPage } from "./ui.js";

await startPage("watch");
const root = document.getElementById("watch");
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

function seat(message, s) {
  const p = message.match.players[s];
  const v = message.view;
  const known = new Set(v.known[s]);
  const cards = [...known].map((c) => cardElement(c));
  for (let i = cards.length; i < v.hand_sizes[s]; i += 1) cards.push(cardBack());
  return h(
    "div",
    { class: `watch-seat${v.to_act === s ? " to-act" : ""}`, dataset: { seat: s } },
    h("div", { class: "watch-name" }, p.name || "", " ", p.bot ? h("span", { class: "badge bot" }, t("bots.badge")) : null, " ", h("strong", {}, formatNumber(v.scores[s]))),
    h("div", { class: "watch-hand" }, cards),
  );
}

function render(message) {
  const v = message.view;
  const m = message.match;
  const top = v.discard_pile.slice(-6).map((c) => cardElement(c));
  const sd = v.showdown || message.last_showdown;
  const result = message.result;
  fill(
    root,
    h("h1", {}, t("watch.title")),
    h("p", { class: "hint" }, t("watch.hint"), " ", m.tournament_id ? h("a", { href: `/t/${encodeURIComponent(m.tournament_id)}` }, t("watch.back")) : null),
    seat(message, 1),
    h(
      "div",
      { class: "watch-center" },
      h("div", { class: "watch-stock" }, cardBack(), h("span", {}, t("watch.stock", { n: v.stock_count }))),
      h("div", { class: "watch-pile", id: "watch-pile" }, top),
    ),
    seat(message, 0),
    sd && sd.outcome ? h("p", { class: "watch-showdown" }, t("watch.last_hand", { outcome: t(`showdown.${sd.outcome}`), points: sd.points || 0 })) : null,
    result ? h("p", { class: "winner", id: "watch-result" }, result.ended === "aborted" ? t("end.aborted") : result.winner === null || result.winner === undefined ? t("end.draw") : t("watch.won", { name: m.players[result.winner].name })) : null,
  );
  root.dataset.version = String(message.version);
}

/** A bigger table (three-player Gin, team Gin, Rummy): its players, the face-up cards, the totals. */
function renderTable(message) {
  const v = message.view;
  const m = message.match;
  const result = message.result;
  const name = (s) => m.players[s].name || "";
  const hands = v.tables || [v]; // Gin: its hands being played; Rummy: the one table
  root.replaceChildren(
    h("h1", {}, t("watch.title"), " · ", t(`rules.${m.game}`)),
    h("p", { class: "hint" }, t("watch.hint_table")),
    h("p", { class: "watch-scores" }, (v.scores || []).map((n, side) => `${side + 1}: ${formatNumber(n)}`).join(" · ")),
    ...hands.map((hand) =>
      h(
        "div",
        { class: "watch-center" },
        h("div", { class: "watch-name" }, (hand.players && Array.isArray(hand.players) ? hand.players : m.players.map((p) => p.seat)).map(name).join(" · ")),
        (hand.table || []).map((meld) => h("div", { class: "group" }, meld.cards.map((c) => cardElement(c, { classes: ["small"] })))),
        h("div", { class: "watch-stock" }, cardBack(), h("span", {}, t("watch.stock", { n: hand.stock_count ?? 0 }))),
        h("div", { class: "watch-pile" }, (hand.discard_pile || []).slice(-6).map((c) => cardElement(c))),
      ),
    ),
    result ? h("p", { class: "winner", id: "watch-result" }, result.winner === null || result.winner === undefined ? t("end.draw") : t("watch.won_side", { n: result.winner + 1 })) : null,
  );
  root.dataset.version = String(message.version);
}

function connect(attempt = 0) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/watch/${encodeURIComponent(matchId)}`);
  ws.addEventListener("message", (event) => {
    const message = parseJson(event.data);
    if (message.type === "error") root.replaceChildren(h("p", { class: "error" }, message.message));
    if (message.type !== "spectate" || !message.view) return;
    if (message.match.game && message.match.game !== "gin") renderTable(message);
    else render(message);
  });
  ws.addEventListener("close", (event) => {
    if (event.code === 4404) return;
    setTimeout(() => connect(attempt + 1), Math.min(10000, 500 * 2 ** attempt));
  });
}

connect();
