// Rendering the table from the match state: scores, the opponent's side, the piles, your hand,
// the action buttons, the status line and the clocks. It reads the state and never changes it;
// buttons carry a data-action that the input module handles.
import { cardBack, cardElement, cardText } from "../cards.js";
import { formatNumber, t, tn } from "../i18n.js";
import { minDeadwood } from "../melds.js";
import { reasonText } from "../reasons.js";
import { ruleNotes } from "../rules.js";
import { describeMove } from "../moves.js";
import { guestMark } from "../names.js";
import { h, tickDeadlines } from "../ui.js";
import { SORT_MODES } from "./choices.js";

export class Board {
  /** `state`: TableState; `choices`: HandChoices; `socket`: MatchSocket (for `busy`). */
  constructor(state, choices, socket) {
    this.state = state;
    this.choices = choices;
    this.socket = socket;
    this.table = document.getElementById("table");
    this.noteTimer = null;
    this.stopped = false;
  }

  /** The table was closed for good: nothing is drawn into it any more. */
  stop() {
    this.stopped = true;
    clearTimeout(this.noteTimer);
  }

  /** Draw everything from the latest state, keeping the keyboard focus where it was. */
  render() {
    const { state } = this;
    const m = state.match;
    const v = state.view;
    if (!m || this.stopped) return;
    const focused = document.activeElement;
    const focusKey =
      focused && (focused.dataset.card ? `card:${focused.dataset.card}` : focused.id ? `id:${focused.id}` : null);
    const table = this.table;
    table.dataset.phase = v ? v.phase : "none";
    table.dataset.status = m.status;
    table.dataset.version = String(state.version);
    table.dataset.hand = v ? String(v.hand_number) : "";
    table.classList.toggle("my-turn", state.myTurn());
    this.renderScoreboard();
    this.renderOpponent();
    this.renderPiles();
    this.renderHand();
    this.renderControls();
    this.renderCoach();
    this.renderStatus();
    if (focusKey) {
      const cut = focusKey.indexOf(":");
      const [kind, key] = [focusKey.slice(0, cut), focusKey.slice(cut + 1)];
      const again =
        kind === "card" ? document.querySelector(`#hand [data-card="${key}"]`) : document.getElementById(key);
      if (again && again !== document.activeElement) again.focus();
    }
  }

  renderScoreboard() {
    const { state } = this;
    const v = state.view;
    const m = state.match;
    const seat = state.seat;
    const scores = (state.result && state.result.scores) || (v ? v.scores : [0, 0]);
    const goal = state.target();
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
    // Every rule that differs from classic, so nobody sits down to a game they did not expect.
    const notes = ruleNotes(m.rule_changes);
    const rulesLine = notes.length
      ? [h("div", { class: "rules-line", id: "rules-line" }, t("table.rules_line", { rules: notes.join(" · ") }))]
      : [];
    document
      .getElementById("scoreboard")
      .replaceChildren(
        row(seat, t("table.you")),
        row(1 - seat, state.opponentName()),
        h("div", { class: "score-info" }, info.join(" · ")),
        ...rulesLine,
      );
  }

  /**
   * The turn clock beside the seat to act, when the match has one; none when a robot will step in
   * for that seat first (its player left): then the grace countdown is what counts.
   */
  clockElement(seat) {
    const { state } = this;
    const m = state.match;
    if (!m || !m.turn_deadline || m.status !== "playing") return null;
    const v = state.view;
    if ((seat === state.seat) !== state.myTurn() || !v || v.phase === "over") return null;
    const p = state.player(seat);
    if (p.autoplay || (p.autoplay_at && p.autoplay_at < m.turn_deadline)) return null;
    return h("span", {
      class: "clock",
      id: seat === state.seat ? "my-clock" : "their-clock",
      "aria-label": t("table.clock"),
      dataset: { deadline: m.turn_deadline },
    });
  }

  /** Count the clocks down (called a few times a second): every element with a data-deadline. */
  updateClocks() {
    tickDeadlines(this.table);
  }

  renderOpponent() {
    const { state } = this;
    const v = state.view;
    const seat = 1 - state.seat;
    const p = state.player(seat);
    const known = v ? v.opponent_known : [];
    let count = 10;
    if (v && v.phase === "discard" && !state.myTurn()) count = 11;
    if (!v || v.phase === "over") count = 0;
    const backs = Math.max(0, count - known.length);
    const turn = v && !state.myTurn() && v.phase !== "over" && state.match.status === "playing";
    // Robots are named after their level by the server; say the level only when the name does not.
    const level = p.kind === "robot" && p.level ? t(`level.${p.level}`) : null;
    const kind =
      level && !String(p.name).toLowerCase().includes(String(level).toLowerCase())
        ? t("table.robot_level", { level })
        : null;
    const section = document.getElementById("opponent");
    section.classList.toggle("to-act", Boolean(turn));
    section.setAttribute("aria-label", t("table.opponent_area", { name: p.name }));
    section.replaceChildren(
      h(
        "div",
        { class: "seat-head" },
        h("span", {
          class: `presence ${p.connected ? "online" : "offline"}`,
          title: p.connected ? t("table.connected") : t("table.disconnected"),
        }),
        h("strong", { class: "seat-name", id: "opponent-name" }, p.name),
        kind ? h("span", { class: "seat-kind" }, kind) : null,
        guestMark(p.name, p.guest) ? h("span", { class: "seat-kind", id: "opponent-guest" }, guestMark(p.name, p.guest)) : null,
        p.bot ? h("span", { class: "badge bot", id: "opponent-bot", title: t("bots.badge_hint") }, t("bots.badge")) : null,
        p.connected || p.kind !== "human"
          ? null
          : h("span", { class: "badge warn", id: "opponent-offline" }, t("table.disconnected")),
        p.autoplay ? h("span", { class: "badge", id: "opponent-autoplay" }, t("table.autoplay")) : null,
        !p.autoplay && p.autoplay_at && state.match.status === "playing"
          ? h(
              "span",
              { class: "badge grace", id: "opponent-grace", dataset: { deadline: p.autoplay_at } },
              t("table.robot_in"),
              " ",
              h("span", { class: "time" }),
            )
          : null,
        turn ? h("span", { class: "badge turn" }, t("table.their_turn")) : null,
        this.clockElement(seat),
      ),
      h(
        "div",
        { class: "opp-cards", "aria-label": tn("table.opponent_count", count) },
        h(
          "div",
          { class: "fan", id: "opponent-count", dataset: { count } },
          Array.from({ length: backs }, () => cardBack({ classes: ["small"] })),
        ),
        known.length
          ? h(
              "div",
              { class: "known", id: "opponent-known" },
              h("span", { class: "known-label" }, t("table.seen_taking")),
              h(
                "div",
                { class: "group" },
                known.map((c) => cardElement(c, { classes: ["small"] })),
              ),
            )
          : null,
      ),
    );
  }

  renderPiles() {
    const { state } = this;
    const v = state.view;
    const stock = document.getElementById("stock");
    const discard = document.getElementById("discard");
    const stockCount = v ? v.stock_count : 0;
    stock.replaceChildren(...(stockCount > 0 ? [cardBack(), cardBack()] : []));
    stock.classList.toggle("empty", stockCount === 0);
    stock.classList.toggle("playable", state.canDraw("stock"));
    const hinted = state.hint && state.hint.action;
    stock.classList.toggle("hinted", Boolean(hinted && hinted.type === "draw" && hinted.source === "stock"));
    stock.setAttribute("aria-label", t("table.stock_label", { n: stockCount }));
    stock.setAttribute("aria-disabled", String(!state.canDraw("stock")));
    document.getElementById("stock-count").textContent = t("table.stock_count", { n: stockCount });

    const pile = v ? v.discard_pile : [];
    const top = pile[pile.length - 1];
    const under = pile[pile.length - 2];
    const takeable = state.canDraw("discard");
    const dropTarget = v && v.phase === "discard" && state.myTurn();
    discard.replaceChildren(
      ...(under ? [cardElement(under, { classes: ["under"] })] : []),
      ...(top ? [cardElement(top, { classes: ["top"] })] : []),
    );
    discard.classList.toggle("playable", takeable);
    discard.classList.toggle("hinted", Boolean(hinted && hinted.type === "draw" && hinted.source === "discard"));
    discard.classList.toggle("drop-target", Boolean(dropTarget));
    discard.classList.toggle("empty", !top);
    discard.setAttribute(
      "aria-label",
      top ? t("table.discard_label", { card: cardText(top), n: pile.length }) : t("table.discard_empty"),
    );
    discard.setAttribute("aria-disabled", String(!(takeable || dropTarget)));
    document.getElementById("discard-label").textContent = t("table.discard_count", { n: pile.length });
  }

  renderHand() {
    const { state, choices } = this;
    const v = state.view;
    const handEl = document.getElementById("hand");
    handEl.setAttribute("aria-label", t("table.your_hand"));
    if (!v || v.phase === "over") {
      handEl.replaceChildren();
      document.getElementById("deadwood").replaceChildren();
      return;
    }
    const cards = v.hand;
    const { groups, arrangement, dead } = choices.groups(cards);
    const taken = state.takenCard();
    const discardPhase = v.phase === "discard" && state.myTurn();
    const hintedCard = state.hintedCard();
    const els = groups.map((g) => {
      const label =
        g.kind === "deadwood"
          ? t("table.group_deadwood", { n: arrangement.count })
          : g.kind === "all"
            ? null
            : t(`table.group_${g.kind}`);
      const kindClass = g.kind === "all" ? "loose" : g.kind === "deadwood" ? "deadwood" : `meld ${g.kind}`;
      return h(
        "div",
        { class: `group ${kindClass}` },
        label ? h("span", { class: "group-label" }, label) : null,
        g.cards.map((i) => {
          const el = cardElement(i, { tag: "button" });
          const c = el.dataset.card;
          el.type = "button";
          el.classList.add("in-hand");
          if (c === choices.selected) el.classList.add("selected");
          if (c === state.newCard) el.classList.add("new");
          if (c === hintedCard) el.classList.add("hinted");
          if (g.kind === "all" && dead.has(i)) el.classList.add("dead");
          if (c === taken) {
            el.classList.add("locked");
            el.title = t("table.taken_card");
          }
          if (discardPhase && state.canDiscard(c)) el.classList.add("discardable");
          el.setAttribute("aria-pressed", String(c === choices.selected));
          return el;
        }),
      );
    });
    handEl.replaceChildren(...els);
    handEl.dataset.sort = choices.sortMode;

    const count = h("span", { class: "count", id: "deadwood-value" }, formatNumber(arrangement.count));
    const parts = [h("span", {}, t("table.deadwood")), " ", count];
    // With eleven cards what matters is the deadwood left after the discard: colour the count by it.
    let judged = arrangement.count;
    if (cards.length === 11) {
      const bestAfter = Math.min(
        ...cards.filter((c) => c !== taken).map((c) => minDeadwood(cards.filter((x) => x !== c))),
      );
      parts.push(
        h("span", { class: "after", id: "deadwood-after" }, t("table.best_after_discard", { n: bestAfter })),
      );
      judged = bestAfter;
    }
    if (choices.selected && cards.length === 11) {
      const after = minDeadwood(cards.filter((c) => c !== choices.selected));
      parts.push(
        h("span", { class: "after" }, t("table.after_selected", { card: cardText(choices.selected), n: after })),
      );
    }
    const deadwoodEl = document.getElementById("deadwood");
    deadwoodEl.replaceChildren(...parts);
    deadwoodEl.classList.toggle("gin", judged === 0);
    deadwoodEl.classList.toggle("can-knock", judged <= (v.knock_limit ?? 10));
  }

  renderSort() {
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
            "aria-pressed": String(this.choices.sortMode === mode),
            dataset: { sort: mode },
          },
          t(`table.sort_${mode}`),
        ),
      ),
    );
  }

  renderControls() {
    const { state, choices } = this;
    const v = state.view;
    const actions = document.getElementById("actions");
    if (!v || v.phase === "over" || (state.match && state.match.status !== "playing")) {
      actions.replaceChildren();
      return;
    }
    const busy = this.socket.busy;
    const button = (id, action, disabled, label, extra = {}) =>
      h("button", { type: "button", id, disabled, dataset: { action }, ...extra }, label);
    const buttons = [];
    if (v.phase === "offer" || state.canPass()) {
      buttons.push(
        button("take-upcard", "take", busy || !state.canDraw("discard"), t("table.take_upcard")),
        button("pass", "pass", busy || !state.canPass(), t("table.pass")),
      );
    } else if (v.phase === "draw") {
      buttons.push(
        button("draw-stock", "stock", busy || !state.canDraw("stock"), t("table.draw_stock")),
        button("draw-discard", "take", busy || !state.canDraw("discard"), t("table.draw_discard")),
      );
    }
    const selected = choices.selected;
    const discardEnabled =
      !busy && state.myTurn() && v.phase === "discard" && selected && state.canDiscard(selected);
    buttons.push(
      button(
        "discard-button",
        "discard",
        !discardEnabled,
        selected && v.phase === "discard" ? t("table.discard_card", { card: cardText(selected) }) : t("table.discard"),
      ),
    );
    const choice = state.knockChoice(selected);
    const gin = choice && choice.chosen.deadwood === 0;
    buttons.push(
      button("knock-button", "knock", busy || !choice, gin ? t("table.gin") : t("table.knock"), {
        class: `knock ${choice ? "lit" : ""} ${gin ? "gin" : ""}`,
        title: choice
          ? t("table.knock_hint", { card: cardText(choice.chosen.card), n: choice.chosen.deadwood })
          : t("table.knock_unavailable"),
      }),
    );
    if (state.canBigGin()) {
      buttons.push(button("big-gin-button", "big-gin", busy, t("table.big_gin"), { class: "knock lit gin" }));
    }
    actions.replaceChildren(...buttons);
    const hint = state.hint && state.hint.action;
    if (hint) {
      const id = {
        pass: "pass",
        stock: v.phase === "offer" ? null : "draw-stock",
        take: v.phase === "offer" ? "take-upcard" : "draw-discard",
        knock: "knock-button",
        big_gin: "big-gin-button",
      }[hint.type === "draw" ? (hint.source === "stock" ? "stock" : "take") : hint.type];
      if (id) document.getElementById(id)?.classList.add("hinted");
    }
  }

  /** The Hint button, in casual matches only (the server refuses hints in rated and tournament ones). */
  renderCoach() {
    const { state } = this;
    const m = state.match;
    const slot = document.getElementById("coach");
    const shown = Boolean(m && m.hints && m.status === "playing");
    slot.hidden = !shown;
    const keys = t("table.keys_help");
    document.getElementById("keys-help").textContent = m && m.hints ? `${keys} · ${t("table.keys_hint")}` : keys;
    if (!shown) {
      slot.replaceChildren();
      return;
    }
    const waiting = state.hintAsked !== null && state.hintAsked === state.version;
    slot.replaceChildren(
      h(
        "button",
        {
          type: "button",
          class: "chip hint-button",
          id: "hint-button",
          dataset: { action: "hint" },
          disabled: !state.canAskHint() || this.socket.busy || waiting,
          title: t("table.hint_title"),
          "aria-keyshortcuts": "H",
        },
        h("span", { "aria-hidden": "true" }, "\u{1F4A1} "),
        t("table.hint"),
      ),
    );
  }

  renderStatus() {
    const { state } = this;
    const v = state.view;
    const m = state.match;
    const status = document.getElementById("status");
    let text = "";
    if (m.status === "waiting") text = t("table.waiting");
    else if (m.status === "over") text = t("table.match_over");
    else if (!v) text = "";
    else if (state.myTurn()) {
      const top = v.discard_pile[v.discard_pile.length - 1];
      if (v.phase === "offer") text = t("table.your_offer", { card: cardText(top) });
      else if (v.phase === "draw") text = t("table.your_draw", { card: top ? cardText(top) : "—" });
      else if (v.phase === "discard")
        text = state.knockCards().length ? t("table.your_discard_knock") : t("table.your_discard");
    } else if (v.phase === "offer") text = t("table.their_offer", { name: state.opponentName() });
    else text = t("table.their_turn_named", { name: state.opponentName() });
    if (m.status === "playing" && state.iAmAway()) {
      // The clock ran out on this player again and again: a robot plays until they say they are back.
      status.replaceChildren(
        h("span", { class: "status-text", id: "away-text" }, t("table.away")),
        h("button", { type: "button", class: "primary", id: "im-back", dataset: { action: "back" } }, t("table.im_back")),
      );
      status.classList.add("mine");
      this.renderLastMoves();
      return;
    }
    status.replaceChildren(
      ...[h("span", { class: "status-text" }, text), this.clockElement(state.seat)].filter(Boolean),
    );
    status.classList.toggle("mine", state.myTurn());
    this.updateClocks();
    this.renderLastMoves();
  }

  /** A refused move, shown for a few seconds where the last moves are. */
  setNote(text) {
    const el = document.getElementById("last-move");
    el.textContent = text;
    el.classList.add("error");
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => {
      el.classList.remove("error");
      this.renderLastMoves();
    }, 6000);
  }

  describeStep(entry) {
    const { state } = this;
    return describeMove(entry, entry.seat === state.seat ? t("table.you") : state.opponentName());
  }

  renderLastMoves() {
    const el = document.getElementById("last-move");
    if (!el || el.classList.contains("error")) return;
    const v = this.state.view;
    const hint = this.state.hint;
    el.classList.toggle("hint", Boolean(hint));
    if (hint) {
      // The hint stays where the last moves are until the table changes; its reason names the move.
      el.textContent = t("table.hint_text", { reason: reasonText(hint.why) });
      return;
    }
    if (this.state.hintAsked !== null && this.state.hintAsked === this.state.version) {
      el.textContent = t("table.hint_wait");
      return;
    }
    if (!v || !v.history.length) {
      el.textContent = "";
      return;
    }
    el.textContent = v.history
      .slice(-3)
      .map((entry) => this.describeStep(entry))
      .join(" · ");
  }
}
