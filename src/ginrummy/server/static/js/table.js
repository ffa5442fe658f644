// The table: live match over a WebSocket, your hand arranged into melds, drawing, discarding, knocking.
import { api, describeError, parseJson } from "./api.js";
import { byRank, bySuit, cardBack, cardElement, cardIndex, cardText, pointsOf } from "./cards.js";
import { formatNumber, hasText, t } from "./i18n.js";
import { arrange, minDeadwood } from "./melds.js";
import { showdownPanel } from "./showdown.js";
import { ask, copyText, h, startPage, toast } from "./ui.js";

const SHOWDOWN_SECONDS = 8;
const HOLD_KEY = "gr-showdown-hold"; // "1": showdowns stay open until Continue is pressed
const SORT_MODES = ["melds", "suit", "rank"];

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const store = {
  get: (key, fallback) => {
    try {
      const v = sessionStorage.getItem(`gr-${key}-${matchId}`);
      return v === null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  set: (key, value) => sessionStorage.setItem(`gr-${key}-${matchId}`, JSON.stringify(value)),
};

const ui = {
  state: null, // the latest "state" message
  sortMode: localStorage.getItem("gr-sort") || "melds",
  custom: store.get("order", []), // card codes in the player's own order
  selected: null,
  pending: false,
  pendingTimer: null,
  handKey: null, // hand_number of the hand shown, to spot a new deal
  previousHand: [],
  newCard: null,
  showdown: null, // {hand_number, timer, deadline}
  seenShowdown: store.get("seen", 0),
  commitments: store.get("commitments", {}),
  ws: null,
  attempts: 0,
  reconnectTimer: null,
  fatal: false,
  drag: null,
  suppressClick: false,
};

// --- helpers over the state ---------------------------------------------------------------

const view = () => ui.state && ui.state.view;
const match = () => ui.state && ui.state.match;
const mySeat = () => (match() ? match().seat : 0);
const legal = () => (view() && view().legal) || [];
const canDraw = (source) => legal().some((a) => a.type === "draw" && a.source === source);
const canPass = () => legal().some((a) => a.type === "pass");
const canDiscard = (card) => legal().some((a) => a.type === "discard" && a.card === card);
const knockCards = () => legal().filter((a) => a.type === "knock").map((a) => a.card);
const canBigGin = () => legal().some((a) => a.type === "big_gin");
const myTurn = () => legal().length > 0;

function player(seat) {
  const players = (match() && match().players) || [];
  const found = players.find((p) => p.seat === seat);
  if (found && found.name) return found;
  return { ...(found || { seat, kind: null, connected: false }), name: t("table.empty_seat") };
}

/** Display names by seat: "You" for this seat (`inText`: the form used inside a sentence). */
function names(inText = false) {
  const seat = mySeat();
  const out = [player(0).name, player(1).name];
  out[seat] = inText ? t("table.you_in_text") : t("table.you");
  return out;
}

function opponentName() {
  return player(1 - mySeat()).name;
}

function target() {
  const m = match();
  return (m && m.rules && m.rules.target) || (view() && view().rules && view().rules.target) || 100;
}

/** The card taken from the discard pile this turn (it may not be discarded until a later turn). */
function takenCard() {
  const v = view();
  if (!v || v.phase !== "discard" || !myTurn()) return null;
  const last = v.history[v.history.length - 1];
  if (last && last.seat === mySeat() && last.action.type === "draw" && last.action.source === "discard") {
    return last.card || null;
  }
  return null;
}

// --- connection -----------------------------------------------------------------------------

function connect() {
  clearTimeout(ui.reconnectTimer);
  if (ui.fatal) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(matchId)}`);
  ui.ws = ws;
  ws.addEventListener("open", () => {
    ui.attempts = 0;
    setConnection(null);
    if (ui.state && !ui.showdown) renderControls();
  });
  ws.addEventListener("message", (event) => {
    let message;
    try {
      message = parseJson(event.data);
    } catch {
      return;
    }
    onMessage(message);
  });
  ws.addEventListener("close", (event) => {
    if (ui.ws !== ws) return;
    ui.ws = null;
    setPending(false);
    if (ui.state && !ui.showdown) renderControls();
    if (event.code === 4403 || event.code === 4404) {
      ui.fatal = true;
      showFatal(event.code === 4404 ? t("table.not_found") : t("table.forbidden"));
      return;
    }
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  if (ui.fatal) return;
  // Back off 0.5 s, 1 s, 2 s … up to 8 s, with jitter so many tables do not reconnect at once.
  const delay = Math.min(8000, 500 * 2 ** ui.attempts) * (0.75 + Math.random() * 0.5);
  ui.attempts += 1;
  setConnection(t("table.reconnecting", { s: Math.max(1, Math.round(delay / 1000)) }));
  ui.reconnectTimer = setTimeout(connect, delay);
}

function reconnectNow() {
  if (!ui.ws && !ui.fatal) {
    ui.attempts = 0;
    connect();
  }
}

function setConnection(text) {
  const el = document.getElementById("conn");
  el.hidden = !text;
  el.textContent = text || "";
  document.getElementById("table").classList.toggle("offline", Boolean(text));
}

function send(action) {
  if (!ui.ws || ui.ws.readyState !== WebSocket.OPEN) {
    toast(t("table.offline"), "error");
    return;
  }
  ui.ws.send(JSON.stringify({ type: "action", action, version: ui.state ? ui.state.version : undefined }));
  setPending(true);
}

function setPending(on) {
  ui.pending = on;
  clearTimeout(ui.pendingTimer);
  if (on) ui.pendingTimer = setTimeout(() => setPending(false), 8000);
  document.getElementById("table").classList.toggle("pending", on);
  if (!on && ui.state && !ui.showdown) renderControls();
}

function onMessage(message) {
  if (message.type === "state") {
    onState(message);
  } else if (message.type === "error") {
    setPending(false);
    const key = `ws.${message.code}`;
    const local = hasText(key) ? t(key) : t("ws.generic");
    const text = message.message ? `${local} ${message.message}` : local;
    toast(text, "error", 6000);
    setStatusNote(text);
    if (message.code === "forbidden") {
      ui.fatal = true;
      showFatal(text);
    }
  }
}

// --- state and showdowns --------------------------------------------------------------------

function onState(message) {
  ui.state = message;
  setPending(false);
  const v = message.view;
  const m = message.match;
  if (v && m && m.commitment && v.phase !== "over" && !ui.commitments[v.hand_number]) {
    ui.commitments[v.hand_number] = m.commitment;
    store.set("commitments", ui.commitments);
  }
  trackHand(v);
  const finished = v && v.phase === "over" && v.showdown ? v : message.last_hand;
  if (!ui.showdown && finished && finished.showdown && finished.hand_number > ui.seenShowdown) {
    openShowdown(finished);
    return;
  }
  if (!ui.showdown) render();
}

/** Remember the previous hand to mark the card just drawn, and reset per-deal choices. */
function trackHand(v) {
  if (!v) return;
  const cards = v.hand;
  if (ui.handKey !== v.hand_number) {
    ui.handKey = v.hand_number;
    ui.selected = null;
    ui.newCard = null;
    ui.previousHand = cards;
    if (ui.sortMode === "custom") ui.custom = [];
    return;
  }
  if (cards.length > ui.previousHand.length) {
    const added = cards.filter((c) => !ui.previousHand.includes(c));
    ui.newCard = added.length === 1 ? added[0] : null;
  } else if (cards.length < ui.previousHand.length) {
    ui.newCard = null;
  }
  if (ui.selected && !cards.includes(ui.selected)) ui.selected = null;
  ui.previousHand = cards;
}

function openShowdown(finished) {
  const sd = finished.showdown;
  const overlay = document.createElement("div");
  overlay.className = "overlay showdown-overlay";
  overlay.setAttribute("role", "dialog");
  overlay.setAttribute("aria-modal", "true");
  overlay.setAttribute("aria-labelledby", "showdown-title");
  overlay.id = "showdown";
  const over = match() && match().status === "over";
  const panel = showdownPanel(sd, {
    names: names(),
    textNames: names(true),
    published: ui.commitments[finished.hand_number],
    targetScore: target(),
  });
  const countdown = h("span", { class: "countdown", id: "showdown-countdown" });
  const button = h(
    "button",
    { class: "primary big", id: "showdown-continue", type: "button" },
    over ? t("showdown.see_result") : t("showdown.next_deal"),
  );
  const hold = h("input", { type: "checkbox", id: "showdown-hold", checked: localStorage.getItem(HOLD_KEY) === "1" });
  const holdLabel = h("label", { class: "hold-option" }, hold, h("span", {}, t("showdown.hold")));
  const box = h(
    "div",
    { class: "overlay-box" },
    panel,
    h("div", { class: "overlay-actions" }, over ? null : holdLabel, countdown, button),
  );
  overlay.append(box);
  document.getElementById("table").append(overlay);
  let deadline = Date.now() + SHOWDOWN_SECONDS * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    if (hold.checked) {
      countdown.textContent = over ? "" : t("showdown.held");
      return;
    }
    countdown.textContent = over ? "" : t("showdown.countdown", { s: left });
    // Someone reading the deal verification keeps the showdown open until they press the button.
    if (left <= 0 && !overlay.querySelector("details[open]")) closeShowdown();
  };
  hold.addEventListener("change", () => {
    localStorage.setItem(HOLD_KEY, hold.checked ? "1" : "0");
    if (!hold.checked) deadline = Date.now() + SHOWDOWN_SECONDS * 1000; // a fresh count after unticking
    tick();
  });
  ui.showdown = { hand_number: finished.hand_number, timer: setInterval(tick, 250) };
  tick();
  button.addEventListener("click", closeShowdown);
  overlay.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeShowdown();
  });
  button.focus();
}

function closeShowdown() {
  if (!ui.showdown) return;
  clearInterval(ui.showdown.timer);
  ui.seenShowdown = Math.max(ui.seenShowdown, ui.showdown.hand_number);
  store.set("seen", ui.seenShowdown);
  ui.showdown = null;
  document.getElementById("showdown")?.remove();
  // A newer hand may have finished while this one was shown.
  if (ui.state) onState(ui.state);
}

// --- rendering ------------------------------------------------------------------------------

function render() {
  const m = match();
  const v = view();
  const table = document.getElementById("table");
  if (!m) return;
  const focused = document.activeElement;
  const focusKey = focused && (focused.dataset.card ? `card:${focused.dataset.card}` : focused.id ? `id:${focused.id}` : null);
  table.dataset.phase = v ? v.phase : "none";
  table.dataset.status = m.status;
  table.dataset.version = String(ui.state.version);
  table.dataset.hand = v ? String(v.hand_number) : "";
  table.classList.toggle("my-turn", myTurn());
  renderScoreboard();
  renderOpponent();
  renderPiles();
  renderHand();
  renderControls();
  renderStatus();
  renderWaiting();
  renderEnd();
  if (focusKey) {
    const [kind, key] = [focusKey.slice(0, focusKey.indexOf(":")), focusKey.slice(focusKey.indexOf(":") + 1)];
    const again = kind === "card" ? document.querySelector(`#hand [data-card="${key}"]`) : document.getElementById(key);
    if (again && again !== document.activeElement) again.focus();
  }
}

function renderScoreboard() {
  const v = view();
  const m = match();
  const seat = mySeat();
  const scores = (ui.state.result && ui.state.result.scores) || (v ? v.scores : [0, 0]);
  const goal = target();
  const row = (s, label) =>
    h(
      "div",
      { class: `score ${s === seat ? "mine" : "theirs"}`, dataset: { seat: s } },
      h("span", { class: "score-name" }, label),
      h("span", { class: "score-value" }, formatNumber(scores[s])),
      h(
        "span",
        { class: "score-bar", "aria-hidden": "true" },
        h("span", { style: `width:${Math.min(100, (100 * scores[s]) / goal)}%` }),
      ),
    );
  const info = [];
  if (v) info.push(t("table.hand_number", { n: v.hand_number }));
  info.push(t("table.target", { n: goal }));
  const preset = m.rules && m.rules.preset;
  if (preset) info.push(t(`rules.${preset}`));
  if (v && v.knock_limit !== undefined) info.push(t("table.knock_limit", { n: v.knock_limit }));
  document.getElementById("scoreboard").replaceChildren(
    row(seat, t("table.you")),
    row(1 - seat, opponentName()),
    h("div", { class: "score-info" }, info.join(" · ")),
  );
}

function clockElement(seat) {
  const m = match();
  if (!m || !m.turn_deadline || m.status !== "playing") return null;
  const v = view();
  const turnIsMine = myTurn();
  if ((seat === mySeat()) !== turnIsMine || !v || v.phase === "over") return null;
  return h("span", { class: "clock", id: seat === mySeat() ? "my-clock" : "their-clock", "aria-label": t("table.clock") });
}

function updateClocks() {
  const m = match();
  for (const el of document.querySelectorAll(".clock")) {
    if (!m || !m.turn_deadline) continue;
    const left = Math.max(0, Math.ceil(m.turn_deadline - Date.now() / 1000));
    const mm = Math.floor(left / 60);
    const ss = String(left % 60).padStart(2, "0");
    el.textContent = `${mm}:${ss}`;
    el.classList.toggle("low", left <= 10);
  }
}

function renderOpponent() {
  const v = view();
  const seat = 1 - mySeat();
  const p = player(seat);
  const known = v ? v.opponent_known : [];
  let count = 10;
  if (v && v.phase === "discard" && !myTurn()) count = 11;
  if (!v || v.phase === "over") count = 0;
  const backs = Math.max(0, count - known.length);
  const turn = v && !myTurn() && v.phase !== "over" && match().status === "playing";
  // Robots are named after their level by the server; say the level only when the name does not.
  const level = p.kind === "robot" && p.level ? t(`level.${p.level}`) : null;
  const kind = level && !String(p.name).toLowerCase().includes(String(p.level)) ? t("table.robot_level", { level }) : null;
  const section = document.getElementById("opponent");
  section.classList.toggle("to-act", Boolean(turn));
  section.setAttribute("aria-label", t("table.opponent_area", { name: p.name }));
  section.replaceChildren(
    h(
      "div",
      { class: "seat-head" },
      h("span", { class: `presence ${p.connected ? "online" : "offline"}`, title: p.connected ? t("table.connected") : t("table.disconnected") }),
      h("strong", { class: "seat-name", id: "opponent-name" }, p.name),
      kind ? h("span", { class: "seat-kind" }, kind) : null,
      p.connected || p.kind !== "human" ? null : h("span", { class: "badge warn", id: "opponent-offline" }, t("table.disconnected")),
      p.autoplay ? h("span", { class: "badge", id: "opponent-autoplay" }, t("table.autoplay")) : null,
      turn ? h("span", { class: "badge turn" }, t("table.their_turn")) : null,
      clockElement(seat),
    ),
    h(
      "div",
      { class: "opp-cards", "aria-label": t("table.opponent_count", { n: count }) },
      h("div", { class: "fan", id: "opponent-count", dataset: { count } }, Array.from({ length: backs }, () => cardBack({ classes: ["small"] }))),
      known.length
        ? h(
            "div",
            { class: "known", id: "opponent-known" },
            h("span", { class: "known-label" }, t("table.seen_taking")),
            h("div", { class: "group" }, known.map((c) => cardElement(c, { classes: ["small"] }))),
          )
        : null,
    ),
  );
}

function renderPiles() {
  const v = view();
  const stock = document.getElementById("stock");
  const discard = document.getElementById("discard");
  const stockCount = v ? v.stock_count : 0;
  stock.replaceChildren(...(stockCount > 0 ? [cardBack(), cardBack()] : []));
  stock.classList.toggle("empty", stockCount === 0);
  stock.classList.toggle("playable", canDraw("stock"));
  stock.setAttribute("aria-label", t("table.stock_label", { n: stockCount }));
  stock.setAttribute("aria-disabled", String(!canDraw("stock")));
  document.getElementById("stock-count").textContent = t("table.stock_count", { n: stockCount });

  const pile = v ? v.discard_pile : [];
  const top = pile[pile.length - 1];
  const under = pile[pile.length - 2];
  const takeable = canDraw("discard");
  const dropTarget = v && v.phase === "discard" && myTurn();
  discard.replaceChildren(
    ...(under ? [cardElement(under, { classes: ["under"] })] : []),
    ...(top ? [cardElement(top, { classes: ["top"] })] : []),
  );
  discard.classList.toggle("playable", takeable);
  discard.classList.toggle("drop-target", Boolean(dropTarget));
  discard.classList.toggle("empty", !top);
  discard.setAttribute(
    "aria-label",
    top ? t("table.discard_label", { card: cardText(top), n: pile.length }) : t("table.discard_empty"),
  );
  discard.setAttribute("aria-disabled", String(!(takeable || dropTarget)));
  document.getElementById("discard-label").textContent = t("table.discard_count", { n: pile.length });
}

/** The hand as groups of codes: [{kind: "run"|"set"|"deadwood"|"all", cards: [...]}]. */
function handGroups(cards) {
  const arrangement = arrange(cards);
  const dead = new Set(arrangement.deadwood);
  if (ui.sortMode === "melds") {
    const groups = arrangement.melds.map((m) => ({
      kind: m.every((i) => i % 13 === m[0] % 13) ? "set" : "run",
      cards: m,
    }));
    if (arrangement.deadwood.length) groups.push({ kind: "deadwood", cards: arrangement.deadwood });
    return { groups, arrangement, dead };
  }
  let order = cards.map(cardIndex);
  if (ui.sortMode === "suit") order.sort(bySuit);
  else if (ui.sortMode === "rank") order.sort(byRank);
  else {
    const kept = ui.custom.map(cardIndex).filter((i) => order.includes(i));
    order = [...kept, ...order.filter((i) => !kept.includes(i))];
  }
  return { groups: [{ kind: "all", cards: order }], arrangement, dead };
}

function renderHand() {
  const v = view();
  const handEl = document.getElementById("hand");
  handEl.setAttribute("aria-label", t("table.your_hand"));
  if (!v || v.phase === "over") {
    handEl.replaceChildren();
    document.getElementById("deadwood").replaceChildren();
    return;
  }
  const cards = v.hand;
  const { groups, arrangement, dead } = handGroups(cards);
  const taken = takenCard();
  const discardPhase = v.phase === "discard" && myTurn();
  const els = groups.map((g) => {
    const label =
      g.kind === "deadwood"
        ? t("table.group_deadwood", { n: arrangement.count })
        : g.kind === "all"
          ? null
          : t(`table.group_${g.kind}`);
    return h(
      "div",
      { class: `group ${g.kind === "all" ? "loose" : g.kind === "deadwood" ? "deadwood" : `meld ${g.kind}`}` },
      label ? h("span", { class: "group-label" }, label) : null,
      g.cards.map((i) => {
        const el = cardElement(i, { tag: "button" });
        const c = el.dataset.card;
        el.type = "button";
        el.classList.add("in-hand");
        if (c === ui.selected) el.classList.add("selected");
        if (c === ui.newCard) el.classList.add("new");
        if (g.kind === "all" && dead.has(i)) el.classList.add("dead");
        if (c === taken) {
          el.classList.add("locked");
          el.title = t("table.taken_card");
        }
        if (discardPhase && canDiscard(c)) el.classList.add("discardable");
        el.setAttribute("aria-pressed", String(c === ui.selected));
        return el;
      }),
    );
  });
  handEl.replaceChildren(...els);
  handEl.dataset.sort = ui.sortMode;

  const count = h("span", { class: "count", id: "deadwood-value" }, formatNumber(arrangement.count));
  const parts = [h("span", {}, t("table.deadwood")), " ", count];
  // With eleven cards what matters is the deadwood left after the discard: colour the count by it.
  let judged = arrangement.count;
  if (cards.length === 11) {
    const bestAfter = Math.min(...cards.filter((c) => c !== taken).map((c) => minDeadwood(cards.filter((x) => x !== c))));
    parts.push(h("span", { class: "after", id: "deadwood-after" }, t("table.best_after_discard", { n: bestAfter })));
    judged = bestAfter;
  }
  if (ui.selected && cards.length === 11) {
    const after = minDeadwood(cards.filter((c) => c !== ui.selected));
    parts.push(h("span", { class: "after" }, t("table.after_selected", { card: cardText(ui.selected), n: after })));
  }
  const deadwoodEl = document.getElementById("deadwood");
  deadwoodEl.replaceChildren(...parts);
  deadwoodEl.classList.toggle("gin", judged === 0);
  deadwoodEl.classList.toggle("can-knock", judged <= (v.knock_limit ?? 10));
}

function renderSort() {
  const el = document.getElementById("sort");
  el.setAttribute("aria-label", t("table.sort_by"));
  el.replaceChildren(
    h("span", { class: "sort-label" }, t("table.sort_by")),
    ...SORT_MODES.map((mode) =>
      h(
        "button",
        {
          type: "button",
          class: "chip",
          id: `sort-${mode}`,
          "aria-pressed": String(ui.sortMode === mode),
          onclick: () => setSort(mode),
        },
        t(`table.sort_${mode}`),
      ),
    ),
  );
}

function setSort(mode) {
  ui.sortMode = mode;
  localStorage.setItem("gr-sort", mode === "custom" ? "melds" : mode);
  renderSort();
  renderHand();
}

/** The knock choice: the selected card when it allows a knock, else the one leaving least deadwood. */
function knockChoice() {
  const v = view();
  const options = knockCards();
  if (!options.length || !v) return null;
  const after = options.map((card) => ({ card, deadwood: minDeadwood(v.hand.filter((c) => c !== card)) }));
  after.sort((a, b) => a.deadwood - b.deadwood || pointsOf(cardIndex(b.card)) - pointsOf(cardIndex(a.card)));
  const chosen = after.find((o) => o.card === ui.selected) || after[0];
  return { chosen, options: after };
}

function renderControls() {
  const v = view();
  const actions = document.getElementById("actions");
  if (!v || v.phase === "over" || (match() && match().status !== "playing")) {
    actions.replaceChildren();
    return;
  }
  const busy = ui.pending || !ui.ws || ui.ws.readyState !== WebSocket.OPEN;
  const buttons = [];
  if (v.phase === "offer" || canPass()) {
    buttons.push(
      h("button", { type: "button", id: "take-upcard", disabled: busy || !canDraw("discard"), onclick: () => doDraw("discard") }, t("table.take_upcard")),
      h("button", { type: "button", id: "pass", disabled: busy || !canPass(), onclick: () => doPass() }, t("table.pass")),
    );
  } else if (v.phase === "draw") {
    buttons.push(
      h("button", { type: "button", id: "draw-stock", disabled: busy || !canDraw("stock"), onclick: () => doDraw("stock") }, t("table.draw_stock")),
      h("button", { type: "button", id: "draw-discard", disabled: busy || !canDraw("discard"), onclick: () => doDraw("discard") }, t("table.draw_discard")),
    );
  }
  const discardEnabled = !busy && myTurn() && v.phase === "discard" && ui.selected && canDiscard(ui.selected);
  buttons.push(
    h(
      "button",
      { type: "button", id: "discard-button", disabled: !discardEnabled, onclick: () => doDiscard() },
      ui.selected && v.phase === "discard" ? t("table.discard_card", { card: cardText(ui.selected) }) : t("table.discard"),
    ),
  );
  const choice = knockChoice();
  const gin = choice && choice.chosen.deadwood === 0;
  const knock = h(
    "button",
    {
      type: "button",
      id: "knock-button",
      class: `knock ${choice ? "lit" : ""} ${gin ? "gin" : ""}`,
      disabled: busy || !choice,
      onclick: () => doKnock(),
      title: choice ? t("table.knock_hint", { card: cardText(choice.chosen.card), n: choice.chosen.deadwood }) : t("table.knock_unavailable"),
    },
    gin ? t("table.gin") : t("table.knock"),
  );
  buttons.push(knock);
  if (canBigGin()) {
    buttons.push(h("button", { type: "button", id: "big-gin-button", class: "knock lit gin", disabled: busy, onclick: () => doBigGin() }, t("table.big_gin")));
  }
  actions.replaceChildren(...buttons);
}

function renderStatus() {
  const v = view();
  const m = match();
  const status = document.getElementById("status");
  let text = "";
  if (m.status === "waiting") text = t("table.waiting");
  else if (m.status === "over") text = t("table.match_over");
  else if (!v) text = "";
  else if (myTurn()) {
    const top = v.discard_pile[v.discard_pile.length - 1];
    if (v.phase === "offer") text = t("table.your_offer", { card: cardText(top) });
    else if (v.phase === "draw") text = t("table.your_draw", { card: top ? cardText(top) : "—" });
    else if (v.phase === "discard") text = knockCards().length ? t("table.your_discard_knock") : t("table.your_discard");
  } else if (v.phase === "offer") text = t("table.their_offer", { name: opponentName() });
  else text = t("table.their_turn_named", { name: opponentName() });
  status.replaceChildren(...[h("span", { class: "status-text" }, text), clockElement(mySeat())].filter(Boolean));
  status.classList.toggle("mine", myTurn());
  updateClocks();
  renderLastMoves();
}

let noteTimer = null;
function setStatusNote(text) {
  const el = document.getElementById("last-move");
  el.textContent = text;
  el.classList.add("error");
  clearTimeout(noteTimer);
  noteTimer = setTimeout(() => {
    el.classList.remove("error");
    renderLastMoves();
  }, 6000);
}

function describeStep(entry) {
  const who = entry.seat === mySeat() ? t("table.you") : opponentName();
  const a = entry.action;
  const card = entry.card || a.card;
  switch (a.type) {
    case "pass":
      return t("move.pass", { who });
    case "draw":
      if (a.source === "discard") return t("move.take", { who, card: cardText(card) });
      return card ? t("move.draw_seen", { who, card: cardText(card) }) : t("move.draw", { who });
    case "discard":
      return t("move.discard", { who, card: cardText(card) });
    case "knock":
      return t("move.knock", { who });
    case "big_gin":
      return t("move.big_gin", { who });
    default:
      return a.type;
  }
}

function renderLastMoves() {
  const el = document.getElementById("last-move");
  if (el.classList.contains("error")) return;
  const v = view();
  if (!v || !v.history.length) {
    el.textContent = "";
    return;
  }
  el.textContent = v.history.slice(-3).map(describeStep).join(" · ");
}

function renderWaiting() {
  const m = match();
  const existing = document.getElementById("waiting");
  if (m.status !== "waiting") {
    existing?.remove();
    return;
  }
  if (existing) return;
  const link = m.room_code
    ? new URL(`/r/${encodeURIComponent(m.room_code)}`, location.origin).href
    : sessionStorage.getItem(`gr-room-${matchId}`);
  const input = h("input", { readonly: true, value: link || "", id: "waiting-link", "aria-label": t("home.share_link") });
  const box = h(
    "div",
    { class: "overlay", id: "waiting", role: "dialog", "aria-labelledby": "waiting-title" },
    h(
      "div",
      { class: "overlay-box small" },
      h("h2", { id: "waiting-title" }, t("table.waiting")),
      link
        ? h(
            "div",
            {},
            h("p", {}, t("home.share_link")),
            h(
              "div",
              { class: "row" },
              input,
              h("button", { type: "button", onclick: async () => toast((await copyText(link, input)) ? t("home.copied") : t("home.copy_failed")) }, t("home.copy")),
            ),
          )
        : h("p", {}, t("table.waiting_hint")),
      h("div", { class: "spinner", "aria-hidden": "true" }),
    ),
  );
  document.getElementById("table").append(box);
}

function renderEnd() {
  const m = match();
  const existing = document.getElementById("end");
  if (m.status !== "over" || !ui.state.result) {
    existing?.remove();
    return;
  }
  if (existing && existing.dataset.rematch === String(m.rematch_id || "")) return;
  existing?.remove();
  const r = ui.state.result;
  const seat = mySeat();
  const n = names(true);
  const title =
    r.winner === null || r.winner === undefined
      ? t("end.draw")
      : r.winner === seat
        ? t("end.you_win")
        : t("end.they_win", { name: opponentName() });
  const bonuses = [];
  for (const key of ["game_bonus", "box_bonus", "shutout_bonus"]) {
    for (const s of [0, 1]) {
      if (r[key] && r[key][s]) bonuses.push(t(`end.${key}`, { name: n[s], n: r[key][s] }));
    }
  }
  const rematch = h("button", { type: "button", class: "primary big", id: "rematch" }, t("end.rematch"));
  rematch.addEventListener("click", async () => {
    if (m.rematch_id) {
      location.assign(`/m/${encodeURIComponent(m.rematch_id)}`);
      return;
    }
    rematch.disabled = true;
    try {
      const made = await api("POST", `/api/matches/${encodeURIComponent(matchId)}/rematch`);
      location.assign(made.url || `/m/${made.match_id}`);
    } catch (error) {
      toast(describeError(error), "error");
      rematch.disabled = false;
    }
  });
  const box = h(
    "div",
    { class: "overlay end-overlay", id: "end", role: "dialog", "aria-labelledby": "end-title", dataset: { rematch: m.rematch_id || "" } },
    h(
      "div",
      { class: `overlay-box end ${r.winner === seat ? "won" : "lost"}` },
      h("div", { class: "trophy", "aria-hidden": "true" }, r.winner === seat ? "\u2605\u2605\u2605" : "\u2660\u2665\u2666\u2663"),
      h("h2", { id: "end-title" }, title),
      h(
        "p",
        { class: "final-score" },
        h("span", {}, `${names()[seat]} `),
        h("strong", { id: "final-mine" }, formatNumber(r.scores[seat])),
        " – ",
        h("strong", { id: "final-theirs" }, formatNumber(r.scores[1 - seat])),
        h("span", {}, ` ${names()[1 - seat]}`),
      ),
      h("p", {}, t("end.hands", { n: r.hands_played, mine: r.hands_won[seat], theirs: r.hands_won[1 - seat] })),
      bonuses.length ? h("ul", { class: "bonuses" }, bonuses.map((b) => h("li", {}, b))) : null,
      m.rematch_id && player(1 - seat).kind === "human" ? h("p", { class: "rematch-ready" }, t("end.rematch_ready", { name: opponentName() })) : null,
      h(
        "div",
        { class: "overlay-actions" },
        rematch,
        h("a", { class: "button", id: "open-replay", href: `/replay/${encodeURIComponent(matchId)}` }, t("end.replay")),
        h("a", { class: "button", href: "/" }, t("nav.home")),
      ),
    ),
  );
  document.getElementById("table").append(box);
  rematch.focus();
}

function showFatal(text) {
  setConnection(null);
  const table = document.getElementById("table");
  table.replaceChildren(
    h("div", { class: "panel center-panel" }, h("h2", {}, t("table.cannot_open")), h("p", { id: "fatal" }, text), h("a", { class: "button", href: "/" }, t("nav.home"))),
  );
}

// --- actions --------------------------------------------------------------------------------

function notYourTurn() {
  const m = match();
  if (!m || m.status === "waiting") toast(t("table.waiting"), "error");
  else toast(t("table.not_your_turn", { name: opponentName() }), "error");
}

function doDraw(source) {
  if (ui.pending) return;
  if (!myTurn()) return notYourTurn();
  if (!canDraw(source)) {
    const v = view();
    toast(v && v.phase === "discard" ? t("table.already_drew") : t(source === "stock" ? "table.cannot_stock" : "table.cannot_take"), "error");
    return;
  }
  send({ type: "draw", source });
}

function doPass() {
  if (ui.pending) return;
  if (!myTurn()) return notYourTurn();
  if (!canPass()) return toast(t("table.cannot_pass"), "error");
  send({ type: "pass" });
}

function doDiscard(card = ui.selected) {
  if (ui.pending) return;
  const v = view();
  if (!myTurn()) return notYourTurn();
  if (!v || v.phase !== "discard") return toast(t("table.draw_first"), "error");
  if (!card) return toast(t("table.select_first"), "error");
  if (card === takenCard()) return toast(t("table.taken_card"), "error");
  if (!canDiscard(card)) return toast(t("table.cannot_discard", { card: cardText(card) }), "error");
  ui.selected = null;
  send({ type: "discard", card });
}

async function doKnock() {
  if (ui.pending) return;
  if (!myTurn()) return notYourTurn();
  const choice = knockChoice();
  if (!choice) {
    const v = view();
    const text = v && v.phase === "discard" ? t("table.knock_too_much", { n: v.knock_limit }) : t("table.draw_first");
    return toast(text, "error");
  }
  let card = choice.chosen.card;
  let select = null;
  const body = h("div", {});
  if (choice.options.length > 1) {
    select = h(
      "select",
      { id: "knock-card" },
      choice.options.map((o) =>
        h("option", { value: o.card, selected: o.card === card }, t("table.knock_option", { card: cardText(o.card), n: o.deadwood })),
      ),
    );
    body.append(h("label", { class: "field" }, h("span", {}, t("table.knock_which")), select));
  }
  const explain = h("p", { id: "knock-explain" });
  const update = () => {
    const picked = choice.options.find((o) => o.card === (select ? select.value : card));
    explain.textContent =
      picked.deadwood === 0
        ? t("table.confirm_gin_text", { card: cardText(picked.card) })
        : t("table.confirm_knock_text", { card: cardText(picked.card), n: picked.deadwood });
  };
  if (select) select.addEventListener("change", update);
  update();
  body.append(explain);
  const gin = choice.options.some((o) => o.deadwood === 0) && choice.chosen.deadwood === 0;
  const answer = await ask({
    title: gin ? t("table.confirm_gin") : t("table.confirm_knock"),
    body,
    className: "confirm-knock",
    buttons: [
      { label: t("table.cancel"), value: "cancel" },
      { label: gin ? t("table.gin") : t("table.knock"), value: "knock", class: "primary" },
    ],
  });
  if (answer !== "knock") return;
  if (select) card = select.value;
  ui.selected = null;
  send({ type: "knock", card });
}

async function doBigGin() {
  if (!canBigGin()) return;
  const answer = await ask({
    title: t("table.big_gin"),
    body: t("table.confirm_big_gin"),
    buttons: [
      { label: t("table.cancel"), value: "cancel" },
      { label: t("table.big_gin"), value: "go", class: "primary" },
    ],
  });
  if (answer === "go") send({ type: "big_gin" });
}

function toggleSelect(card) {
  ui.selected = ui.selected === card ? null : card;
  renderHand();
  renderControls();
}

// --- drag and drop (pointer events) and reordering -------------------------------------------

function currentOrder() {
  return [...document.querySelectorAll("#hand .card")].map((el) => el.dataset.card);
}

function moveCard(card, toIndex) {
  const order = currentOrder().filter((c) => c !== card);
  order.splice(Math.max(0, Math.min(order.length, toIndex)), 0, card);
  ui.custom = order;
  store.set("order", order);
  ui.sortMode = "custom";
  renderSort();
  renderHand();
}

function onPointerDown(event) {
  if (event.button !== 0 || ui.showdown) return;
  const cardEl = event.target.closest("#hand .card");
  const pileEl = event.target.closest("#stock, #discard");
  const source = cardEl || pileEl;
  if (!source) return;
  ui.drag = { source, x: event.clientX, y: event.clientY, ghost: null, id: event.pointerId };
}

function onPointerMove(event) {
  const drag = ui.drag;
  if (!drag || drag.id !== event.pointerId) return;
  if (!drag.ghost) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
    const from = drag.source;
    let ghost;
    if (from.id === "stock") ghost = cardBack();
    else if (from.id === "discard") {
      const top = from.querySelector(".top");
      if (!top) return;
      ghost = top.cloneNode(true);
    } else ghost = from.cloneNode(true);
    ghost.classList.add("ghost");
    ghost.removeAttribute("id");
    document.body.append(ghost);
    drag.ghost = ghost;
    from.classList.add("dragging");
    document.body.classList.add("is-dragging");
  }
  drag.ghost.style.left = `${event.clientX}px`;
  drag.ghost.style.top = `${event.clientY}px`;
  event.preventDefault();
}

function onPointerUp(event) {
  const drag = ui.drag;
  if (!drag || drag.id !== event.pointerId) return;
  ui.drag = null;
  if (!drag.ghost) return; // a plain click; the click handler does the work
  drag.ghost.remove();
  drag.source.classList.remove("dragging");
  document.body.classList.remove("is-dragging");
  ui.suppressClick = true;
  setTimeout(() => {
    ui.suppressClick = false;
  }, 0);
  const target = document.elementFromPoint(event.clientX, event.clientY);
  const overHand = target && target.closest("#me");
  const overDiscard = target && target.closest("#discard");
  if (drag.source.id === "stock" || drag.source.id === "discard") {
    if (overHand) doDraw(drag.source.id === "stock" ? "stock" : "discard");
    return;
  }
  const card = drag.source.dataset.card;
  if (overDiscard) {
    doDiscard(card);
    return;
  }
  if (target && target.closest("#hand")) {
    const others = [...document.querySelectorAll("#hand .card")].filter((el) => el.dataset.card !== card);
    let best = null;
    for (const [k, el] of others.entries()) {
      const r = el.getBoundingClientRect();
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      const d = Math.hypot(event.clientX - cx, (event.clientY - cy) * 2);
      if (!best || d < best.d) best = { d, index: event.clientX > cx ? k + 1 : k };
    }
    moveCard(card, best ? best.index : 0);
  }
}

function onHandClick(event) {
  if (ui.suppressClick) return;
  const el = event.target.closest(".card");
  if (!el) return;
  toggleSelect(el.dataset.card);
}

function onHandKey(event) {
  const el = event.target.closest(".card");
  if (!el) return;
  const cards = [...document.querySelectorAll("#hand .card")];
  const index = cards.indexOf(el);
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    event.preventDefault();
    const step = event.key === "ArrowLeft" ? -1 : 1;
    if (event.shiftKey || event.altKey) {
      moveCard(el.dataset.card, index + step);
      document.querySelector(`#hand [data-card="${el.dataset.card}"]`)?.focus();
    } else cards[(index + step + cards.length) % cards.length].focus();
  } else if (event.key === "Home" || event.key === "End") {
    event.preventDefault();
    cards[event.key === "Home" ? 0 : cards.length - 1].focus();
  }
}

function onPileClick(event) {
  if (ui.suppressClick) return;
  const id = event.currentTarget.id;
  const v = view();
  if (id === "stock") return doDraw("stock");
  if (v && v.phase === "discard" && myTurn()) return doDiscard();
  return doDraw("discard");
}

function onPileKey(event) {
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    onPileClick(event);
  }
}

function onShortcut(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || ui.showdown) return;
  if (event.target.closest("input, select, textarea, dialog")) return;
  const key = event.key.toLowerCase();
  const v = view();
  if (!v) return;
  if (key === "s") doDraw("stock");
  else if (key === "u") doDraw("discard");
  else if (key === "p" && canPass()) doPass();
  else if (key === "d") doDiscard();
  else if (key === "k") doKnock();
  else return;
  event.preventDefault();
}

// --- start ------------------------------------------------------------------------------------

await startPage("table");
document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
document.getElementById("keys-help").textContent = t("table.keys_help");
renderSort();
const handEl = document.getElementById("hand");
handEl.addEventListener("click", onHandClick);
handEl.addEventListener("keydown", onHandKey);
for (const id of ["stock", "discard"]) {
  const el = document.getElementById(id);
  el.addEventListener("click", onPileClick);
  el.addEventListener("keydown", onPileKey);
}
document.addEventListener("pointerdown", onPointerDown);
document.addEventListener("pointermove", onPointerMove, { passive: false });
document.addEventListener("pointerup", onPointerUp);
document.addEventListener("pointercancel", () => {
  if (ui.drag && ui.drag.ghost) {
    ui.drag.ghost.remove();
    ui.drag.source.classList.remove("dragging");
    document.body.classList.remove("is-dragging");
  }
  ui.drag = null;
});
document.addEventListener("keydown", onShortcut);
window.addEventListener("online", reconnectNow);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") reconnectNow();
});
setInterval(updateClocks, 250);
setInterval(() => {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) ui.ws.send(JSON.stringify({ type: "ping" }));
}, 25000);
document.getElementById("status").textContent = t("table.connecting");
connect();
