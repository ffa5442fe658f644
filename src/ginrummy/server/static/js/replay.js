// Replay of a finished match: every hand move by move, all cards face up or from one seat, with showdowns,
// and the computer analysis of each person's decisions beside their moves (analysis.js).
import { Analysis } from "./analysis.js";
import { api, describeError } from "./api.js";
import { cardBack, cardElement, cardText } from "./cards.js";
import { formatNumber, t, tn } from "./i18n.js";
import { arrange } from "./melds.js";
import { outcomeText, showdownPanel, verifyBlock } from "./showdown.js";
import { playerName } from "./names.js";
import { h, startPage } from "./ui.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const state = { data: null, hands: [], hand: 0, frame: 0, perspective: "all", bottom: 0, timer: null };
const analysis = new Analysis(matchId, { names: () => names(), go: (hand, frame) => go(hand, frame), changed: () => render() });

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

function render() {
  const hand = state.hands[state.hand];
  const frames = hand.frames;
  const frame = frames[state.frame];
  const n = names();
  const board = document.getElementById("replay-board");
  const moved = frame.step ? frame.moved : null;
  const stepText = frame.showdown
    ? outcomeText(frame.showdown, n)
    : frame.step
      ? describe(frame.step, state.perspective)
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
  document.getElementById("replay-step").textContent = stepText;
  document.getElementById("replay-position").textContent = t("replay.position", {
    hand: state.hand + 1,
    hands: state.hands.length,
    step: state.frame,
    steps: frames.length - 1,
  });
  const select = document.getElementById("hand-select");
  select.value = String(state.hand);
  for (const [id, disabled] of [
    ["prev-hand", state.hand === 0 && state.frame === 0],
    ["prev-step", state.hand === 0 && state.frame === 0],
    ["next-step", state.hand === state.hands.length - 1 && state.frame === frames.length - 1],
    ["next-hand", state.hand === state.hands.length - 1],
  ]) {
    document.getElementById(id).disabled = disabled;
  }
  renderSide();
  analysis.renderNote(state.hand + 1, frame.showdown ? null : frame.step ? state.frame - 1 : null, upcardBefore(frames, state.frame));
  history.replaceState(null, "", `#h${state.hand + 1}s${state.frame}`);
}

let sideHand = -1;
let sideVersion = -1;
function renderSide() {
  const side = document.getElementById("replay-side");
  if (sideHand === state.hand && sideVersion === analysis.version && side.childElementCount) return;
  sideHand = state.hand;
  sideVersion = analysis.version;
  const hand = state.hands[state.hand];
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
        { class: k === state.hand ? "current" : "" },
        h(
          "button",
          { type: "button", class: "link", onclick: () => go(k, 0) },
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
  side.replaceChildren(
    analysis.panel,
    h("h2", {}, t("replay.hand_title", { n: state.hand + 1 })),
    analysis.note,
    analysis.handList(state.hand + 1),
    verify || "",
    h("h2", {}, t("replay.hands")),
    list,
  );
}

/** The upcard before the move of frame `index` (the card a "take" took). */
function upcardBefore(frames, index) {
  const before = frames[Math.max(0, index - 1)];
  return before && before.pile.length ? before.pile[before.pile.length - 1] : null;
}

function go(hand, frame) {
  state.hand = Math.max(0, Math.min(state.hands.length - 1, hand));
  const count = state.hands[state.hand].frames.length;
  state.frame = frame < 0 ? count - 1 : Math.min(frame, count - 1);
  render();
}

function stepBy(delta) {
  const frames = state.hands[state.hand].frames;
  const next = state.frame + delta;
  if (next >= frames.length) {
    if (state.hand < state.hands.length - 1) go(state.hand + 1, 0);
    else stopPlay();
  } else if (next < 0) {
    if (state.hand > 0) go(state.hand - 1, -1);
  } else go(state.hand, next);
}

function stopPlay() {
  clearInterval(state.timer);
  state.timer = null;
  const b = document.getElementById("play");
  if (b) {
    b.replaceChildren(icon("play"));
    b.setAttribute("aria-label", t("replay.play"));
    b.setAttribute("aria-pressed", "false");
  }
}

function togglePlay() {
  if (state.timer) return stopPlay();
  state.timer = setInterval(() => stepBy(1), 900);
  const b = document.getElementById("play");
  b.replaceChildren(icon("pause"));
  b.setAttribute("aria-label", t("replay.pause"));
  b.setAttribute("aria-pressed", "true");
}

const ICONS = {
  first: "M4 5h2v14H4zM13 5v14L6 12zM21 5v14l-7-7z",
  back: "M16 5v14L7 12z",
  play: "M8 5v14l11-7z",
  pause: "M7 5h4v14H7zM13 5h4v14h-4z",
  step: "M6 5v14l9-7zM16 5h2v14h-2z",
  last: "M3 5v14l7-7zM11 5v14l7-7zM18 5h2v14h-2z",
};

function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

function controls() {
  const n = names();
  const button = (id, label, text, onclick) =>
    h("button", { type: "button", id, "aria-label": label, title: label, onclick }, text);
  const handSelect = h(
    "select",
    { id: "hand-select", "aria-label": t("replay.choose_hand") },
    state.hands.map((x, k) => h("option", { value: k }, t("replay.hand_title", { n: k + 1 }))),
  );
  handSelect.addEventListener("change", () => go(Number(handSelect.value), 0));
  const perspective = h(
    "select",
    { id: "perspective", "aria-label": t("replay.perspective") },
    h("option", { value: "all" }, t("replay.all_cards")),
    h("option", { value: "0" }, t("replay.from_seat", { name: n[0] })),
    h("option", { value: "1" }, t("replay.from_seat", { name: n[1] })),
  );
  perspective.addEventListener("change", () => {
    state.perspective = perspective.value;
    if (perspective.value !== "all") state.bottom = Number(perspective.value);
    render();
  });
  document.getElementById("replay-controls").replaceChildren(
    h(
      "div",
      { class: "buttons" },
      button("prev-hand", t("replay.prev_hand"), icon("first"), () => (state.frame > 0 ? go(state.hand, 0) : go(state.hand - 1, 0))),
      button("prev-step", t("replay.prev_step"), icon("back"), () => stepBy(-1)),
      button("play", t("replay.play"), icon("play"), togglePlay),
      button("next-step", t("replay.next_step"), icon("step"), () => stepBy(1)),
      button("next-hand", t("replay.next_hand"), icon("last"), () => go(state.hand + 1, 0)),
    ),
    h("div", { class: "selects" }, handSelect, perspective),
    h("p", { class: "step-text", id: "replay-step", "aria-live": "polite" }),
    h("p", { class: "position", id: "replay-position" }),
    h("p", { class: "keys-help" }, t("replay.keys_help")),
  );
}

function onKey(event) {
  if (event.target.closest("input, select, textarea")) return;
  const keys = {
    ArrowRight: () => stepBy(1),
    ArrowLeft: () => stepBy(-1),
    ArrowDown: () => go(state.hand + 1, 0),
    PageDown: () => go(state.hand + 1, 0),
    ArrowUp: () => go(state.hand - 1, 0),
    PageUp: () => go(state.hand - 1, 0),
    Home: () => go(state.hand, 0),
    End: () => go(state.hand, -1),
  };
  if (keys[event.key]) {
    event.preventDefault();
    stopPlay();
    keys[event.key]();
  }
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

await startPage("replay");
try {
  const data = await api("GET", `/api/matches/${encodeURIComponent(matchId)}/replay`);
  state.data = data;
  state.hands = data.hands.map((hand) => ({ ...hand, frames: framesOf(hand) }));
  state.bottom = await mySeat(data);
  const n = names();
  const result = data.result || {};
  const scores = result.scores || (data.hands.length ? data.hands[data.hands.length - 1].scores_after : [0, 0]) || [0, 0];
  const winner =
    result.winner === null || result.winner === undefined ? t("end.draw") : t("replay.winner", { name: n[result.winner] });
  const preset = data.rules && data.rules.preset;
  document.getElementById("replay-title").textContent = t("replay.title_match", { a: n[0], b: n[1] });
  document.getElementById("replay-summary").replaceChildren(
    h("span", { class: "badge" }, preset ? t(`rules.${preset}`) : ""),
    h("span", { id: "replay-result" }, `${winner} · ${formatNumber(scores[0])} – ${formatNumber(scores[1])}`),
    h("span", {}, tn("replay.hand_count", data.hands.length)),
  );
  if (!state.hands.length) throw new Error("empty");
  controls();
  const fromHash = () => {
    const m = /^#h(\d+)s(\d+)$/.exec(location.hash);
    if (m) go(Number(m[1]) - 1, Number(m[2]));
    return Boolean(m);
  };
  if (!fromHash()) go(0, 0);
  // A link to a position (#h2s14) opened on this page goes there.
  window.addEventListener("hashchange", fromHash);
  document.addEventListener("keydown", onKey);
  analysis.start();
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
