// Replay of a finished match: every hand move by move, all cards face up or from one seat, with showdowns,
// and the computer analysis of each person's decisions beside their moves (analysis.js; two-player Gin).
import { Analysis } from "./analysis.js";
import { api, describeError } from "./api.js";
import { cardBack, cardElement, cardText } from "./cards.js";
import { formatNumber, t, tn } from "./i18n.js";
import { arrange } from "./melds.js";
import { outcomeText, showdownPanel, verifyBlock } from "./showdown.js";
import { playerName } from "./names.js";
import { h, startPage } from "./ui.js";
import { ReplayPlayer } from "./replay/player.js";
import { startTableReplay } from "./replay/tables.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const state = { data: null, hands: [], hand: 0, perspective: "all", bottom: 0 };
const analysis = new Analysis(matchId, {
  names: () => names(),
  go: (hand, frame) => player.go(hand, frame),
  changed: () => player.render({ side: true }),
});

/** Every position of one hand: the deal, then the table after each step, then the showdown. */
function framesOf(hand) {
  const cards = [new Set(hand.initial_hands[0]), new Set(hand.initial_hands[1])];
  const known = [new Set(), new Set()];
  const pile = [hand.upcard];
  let stock = 31;
  let knockCard = null;
  const snapshot = (step, moved) => ({
    hands: [[...cards[0]], [...cards[1]]],
    known: [[...known[0]], [...known[1]]],
    pile: [...pile],
    stock,
    step,
    moved,
    knockCard,
  });
  const frames = [snapshot(null, null)];
  for (const step of hand.steps) {
    const seat = step.seat;
    const a = step.action;
    let moved = null;
    if (a.type === "draw") {
      if (a.source === "discard") {
        moved = pile.pop();
        known[seat].add(moved);
      } else {
        moved = step.card || null;
        stock -= 1;
      }
      if (moved) cards[seat].add(moved);
    } else if (a.type === "discard") {
      moved = a.card;
      cards[seat].delete(moved);
      known[seat].delete(moved);
      pile.push(moved);
    } else if (a.type === "knock") {
      moved = a.card;
      cards[seat].delete(moved);
      known[seat].delete(moved);
      knockCard = moved;
    }
    frames.push(snapshot(step, moved));
  }
  if (hand.showdown) frames.push({ ...frames[frames.length - 1], showdown: hand.showdown });
  return frames;
}

function names() {
  const players = (state.data && state.data.players) || [];
  return [0, 1].map((s) => {
    const p = players.find((x) => x.seat === s) || players[s];
    if (p && p.bot) return t("bots.name_mark", { name: p.name });
    return (p && playerName(p)) || t("replay.seat", { n: s + 1 });
  });
}

function describe(step, perspective) {
  const n = names();
  const who = n[step.seat];
  const a = step.action;
  const hidden = perspective !== "all" && Number(perspective) !== step.seat;
  switch (a.type) {
    case "pass":
      return t("move.pass", { who });
    case "draw":
      if (a.source === "discard") return t("move.take", { who, card: cardText(step.card) });
      return step.card && !hidden ? t("move.draw_seen", { who, card: cardText(step.card) }) : t("move.draw", { who });
    case "discard":
      return t("move.discard", { who, card: cardText(a.card) });
    case "knock":
      return hidden ? t("move.knock", { who }) : t("move.knock_card", { who, card: cardText(a.card) });
    case "big_gin":
      return t("move.big_gin", { who });
    default:
      return a.type;
  }
}

function seatView(frame, seat, moved) {
  const n = names();
  const hidden = state.perspective !== "all" && Number(state.perspective) !== seat;
  const cards = frame.hands[seat];
  const body = h("div", { class: "hand replay-hand", dataset: { seat } });
  if (hidden) {
    const known = frame.known[seat];
    body.append(
      h("div", { class: "fan" }, Array.from({ length: cards.length - known.length }, () => cardBack({ classes: ["small"] }))),
    );
    if (known.length) body.append(h("div", { class: "group known" }, known.map((c) => cardElement(c, { classes: ["small"] }))));
  } else {
    const arr = arrange(cards);
    const mark = (i) => {
      const el = cardElement(i);
      if (moved && el.dataset.card === moved) el.classList.add("new");
      return el;
    };
    // Element.append prints null as "null": only real children go in.
    body.append(...arr.melds.map((m) => h("div", { class: "group meld" }, m.map(mark))));
    if (arr.deadwood.length) {
      body.append(
        h("div", { class: "group deadwood" }, h("span", { class: "group-label" }, t("table.group_deadwood", { n: arr.count })), arr.deadwood.map(mark)),
      );
    }
  }
  const dealer = state.hands[state.hand].dealer === seat;
  return h(
    "div",
    { class: `seat ${seat === state.bottom ? "me" : "opponent"}`, dataset: { seat } },
    h(
      "div",
      { class: "seat-head" },
      h("strong", { class: "seat-name" }, n[seat]),
      dealer ? h("span", { class: "badge" }, t("replay.dealer")) : null,
      h("span", { class: "seat-kind" }, tn("table.opponent_count", cards.length)),
    ),
    body,
  );
}

/** Put position `frame` of `hand` on the board; returns the step's text. */
function draw(hand, frame, perspective) {
  state.hand = state.hands.indexOf(hand);
  state.perspective = perspective;
  const n = names();
  const board = document.getElementById("replay-board");
  const moved = frame.step ? frame.moved : null;
  const stepText = frame.showdown
    ? outcomeText(frame.showdown, n)
    : frame.step
      ? describe(frame.step, perspective)
      : t("replay.deal", { name: n[hand.dealer] });
  let centre;
  if (frame.showdown) {
    centre = h(
      "div",
      { class: "center replay-showdown" },
      showdownPanel({ ...frame.showdown, seed: undefined }, { names: n, targetScore: state.data.rules?.target }),
    );
  } else {
    const top = frame.pile[frame.pile.length - 1];
    centre = h(
      "div",
      { class: "center" },
      h(
        "div",
        { class: "piles" },
        h(
          "div",
          { class: "pile-wrap" },
          h("div", { class: "pile stock" }, frame.stock > 0 ? [cardBack(), cardBack()] : []),
          h("span", { class: "pile-label" }, t("table.stock_count", { n: frame.stock })),
        ),
        h(
          "div",
          { class: "pile-wrap" },
          h("div", { class: "pile discard" }, top ? cardElement(top, { classes: ["top"] }) : null),
          h("span", { class: "pile-label" }, t("table.discard_count", { n: frame.pile.length })),
        ),
      ),
    );
  }
  // At the showdown both hands are shown face up, arranged, inside the showdown itself.
  board.replaceChildren(
    ...(frame.showdown && frame.showdown.hands
      ? [centre]
      : [seatView(frame, 1 - state.bottom, moved), centre, seatView(frame, state.bottom, moved)]),
  );
  board.dataset.frame = frame.showdown ? "showdown" : frame.step ? "step" : "deal";
  const index = hand.frames.indexOf(frame);
  analysis.renderNote(state.hand + 1, frame.showdown ? null : frame.step ? index - 1 : null, upcardBefore(hand.frames, index));
  return stepText;
}

/** The upcard before the move of frame `index` (the card a "take" took). */
function upcardBefore(frames, index) {
  const before = frames[Math.max(0, index - 1)];
  return before && before.pile.length ? before.pile[before.pile.length - 1] : null;
}

/** The list of hands beside the board, and the verification of hand `index`. */
function renderSide(index) {
  const hand = state.hands[index];
  const n = names();
  const verify = verifyBlock({
    seed: hand.seed,
    commitment: hand.commitment,
    deal: { dealer: hand.dealer, hands: hand.initial_hands, upcard: hand.upcard },
  });
  if (verify) verify.open = true;
  const list = h(
    "ol",
    { class: "hand-list" },
    state.hands.map((x, k) =>
      h(
        "li",
        { class: k === index ? "current" : "" },
        h(
          "button",
          { type: "button", class: "link", onclick: () => player.go(k, 0) },
          t("replay.hand_line", {
            n: k + 1,
            outcome: outcomeText(x.showdown, n),
          }),
        ),
        x.scores_after ? h("span", { class: "after" }, ` ${formatNumber(x.scores_after[0])} – ${formatNumber(x.scores_after[1])}`) : null,
      ),
    ),
  );
  // The analysis panel and the note on the move shown are the analysis's own elements, moved here.
  document.getElementById("replay-side").replaceChildren(
    analysis.panel,
    h("h2", {}, t("replay.hand_title", { n: index + 1 })),
    analysis.note,
    analysis.handList(index + 1),
    verify || "",
    h("h2", {}, t("replay.hands")),
    list,
  );
}

async function mySeat(data) {
  if (Number.isInteger(data.seat)) return data.seat;
  try {
    const mine = await api("GET", "/api/matches");
    const entry = (mine.matches || []).find((m) => m.id === data.id || m.id === matchId);
    if (entry && Number.isInteger(entry.seat)) return entry.seat;
  } catch {
    // Not one of mine (or offline): show seat 1 at the bottom.
  }
  return 0;
}

/** The replay of two-player Gin. */
function startGinReplay(data, bottom) {
  state.data = data;
  state.hands = data.hands.map((hand) => ({ ...hand, frames: framesOf(hand) }));
  state.bottom = bottom;
  const n = names();
  const result = data.result || {};
  const scores = result.scores || (data.hands.length ? data.hands[data.hands.length - 1].scores_after : [0, 0]) || [0, 0];
  const winner =
    result.ended === "aborted" ? t("end.aborted") : result.winner === null || result.winner === undefined ? t("end.draw") : t("replay.winner", { name: n[result.winner] });
  const preset = data.rules && data.rules.preset;
  document.getElementById("replay-title").textContent = t("replay.title_match", { a: n[0], b: n[1] });
  document.getElementById("replay-summary").replaceChildren(
    h("span", { class: "badge" }, preset ? t(`rules.${preset}`) : ""),
    h("span", { id: "replay-result" }, `${winner} · ${formatNumber(scores[0])} – ${formatNumber(scores[1])}`),
    h("span", {}, tn("replay.hand_count", data.hands.length)),
  );
  if (!state.hands.length) throw new Error("empty");
  player = new ReplayPlayer({
    deals: state.hands,
    perspectives: [
      { value: "all", label: t("replay.all_cards") },
      { value: "0", label: t("replay.from_seat", { name: n[0] }) },
      { value: "1", label: t("replay.from_seat", { name: n[1] }) },
    ],
    draw,
    side: renderSide,
    onPerspective: (value) => {
      if (value !== "all") state.bottom = Number(value);
    },
  });
  player.start();
  analysis.start();
}

let player = null;

await startPage("replay");
try {
  const data = await api("GET", `/api/matches/${encodeURIComponent(matchId)}/replay`);
  if (data.game && data.game !== "gin") {
    if (!data.hands.length) throw new Error("empty");
    startTableReplay(data, await mySeat(data));
  } else {
    startGinReplay(data, await mySeat(data));
  }
} catch (error) {
  const known = { not_finished: "replay.not_finished", not_found: "replay.not_found" };
  const text = known[error.code]
    ? t(known[error.code])
    : error.message === "empty"
      ? t("replay.empty")
      : describeError(error);
  document.getElementById("replay-board").replaceChildren(
    h(
      "div",
      { class: "panel center-panel" },
      h("p", { id: "replay-error" }, text),
      error.code === "not_finished" ? h("a", { class: "button primary", href: `/m/${encodeURIComponent(matchId)}` }, t("matches.continue")) : null,
    ),
  );
}
