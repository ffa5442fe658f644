// This seat's own side of the table: its cards (grouped into melds or in the chosen order), what
// they are worth, the buttons of the moves it may make now and (casual two-player matches) the
// Hint button. It reads the state and never changes it; buttons carry a data-action that the
// input module handles.
import { cardElement, cardIndex, cardText, pointsOf } from "../cards.js";
import { formatNumber, t } from "../i18n.js";
import { minDeadwood } from "../melds.js";
import { h } from "../ui.js";
import { SORT_MODES } from "./choices.js";

/** How many ready melds are offered as buttons of their own. */
const MELD_BUTTONS = 3;

export class HandView {
  /** `state`: TableState; `choices`: HandChoices (sort and order); `picks`: Picks; `socket`: MatchSocket. */
  constructor(state, choices, picks, socket) {
    this.state = state;
    this.choices = choices;
    this.picks = picks;
    this.socket = socket;
  }

  render() {
    this.renderHand();
    this.renderControls();
    this.renderCoach();
  }

  renderHand() {
    const { state, choices, picks } = this;
    const handEl = document.getElementById("hand");
    const bar = document.getElementById("deadwood");
    const sitting = document.getElementById("sitting-out");
    const cards = state.hand();
    if (sitting) {
      sitting.hidden = state.phase() !== "out";
      if (!sitting.hidden) sitting.textContent = t("tables.sitting_out_help");
    }
    handEl.setAttribute("aria-label", t("table.your_hand"));
    if (!cards.length || state.phase() === "over") {
      handEl.replaceChildren();
      bar.replaceChildren();
      return;
    }
    const { groups, arrangement, dead } = choices.groups(cards);
    const taken = state.takenCard();
    const playing = state.myTurn() && ["play", "discard"].includes(state.phase());
    const hintedCard = state.hintedCard();
    handEl.replaceChildren(
      ...groups.map((g) => {
        const label =
          g.kind === "deadwood" ? t("table.group_deadwood", { n: arrangement.count }) : g.kind === "all" ? null : t(`table.group_${g.kind}`);
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
            if (picks.has(c)) el.classList.add("selected");
            if (c === state.newCard) el.classList.add("new");
            if (c === hintedCard) el.classList.add("hinted");
            if (g.kind === "all" && dead.has(i)) el.classList.add("dead");
            if (c === taken) {
              el.classList.add("locked");
              el.title = t("table.taken_card");
            }
            if (playing && (state.canDiscard(c) || state.layoffsOf(c).length)) el.classList.add("discardable");
            el.setAttribute("aria-pressed", String(picks.has(c)));
            return el;
          }),
        );
      }),
    );
    handEl.dataset.sort = choices.sortMode;
    if (state.rummy) {
      // In Rummy what counts is what the hand would pay if someone went out now.
      const points = cards.reduce((sum, c) => sum + pointsOf(cardIndex(c)), 0);
      bar.replaceChildren(
        h("span", {}, t("tables.points_in_hand")),
        " ",
        h("span", { class: "count", id: "points-value" }, formatNumber(points)),
        h("span", { class: "after" }, t("tables.unmelded", { n: arrangement.count })),
      );
      bar.classList.toggle("gin", arrangement.count === 0);
      bar.classList.remove("can-knock");
    } else {
      let judged = arrangement.count;
      const parts = [h("span", {}, t("table.deadwood")), " ", h("span", { class: "count", id: "deadwood-value" }, formatNumber(judged))];
      if (cards.length === 11) {
        judged = Math.min(...cards.filter((c) => c !== taken).map((c) => minDeadwood(cards.filter((x) => x !== c))));
        parts.push(h("span", { class: "after", id: "deadwood-after" }, t("table.best_after_discard", { n: judged })));
      }
      const picked = picks.single();
      if (state.twoPlayer && picked && cards.length === 11) {
        const after = minDeadwood(cards.filter((c) => c !== picked));
        parts.push(h("span", { class: "after" }, t("table.after_selected", { card: cardText(picked), n: after })));
      }
      bar.replaceChildren(...parts);
      bar.classList.toggle("gin", judged === 0);
      bar.classList.toggle("can-knock", judged <= ((state.mine() && state.mine().knock_limit) ?? 10));
    }
  }

  renderSort() {
    const el = document.getElementById("sort");
    el.setAttribute("aria-label", t("table.sort_by"));
    el.replaceChildren(
      h("span", { class: "sort-label" }, t("table.sort_by")),
      ...SORT_MODES.map((mode) =>
        h(
          "button",
          { type: "button", class: "chip", id: `sort-${mode}`, "aria-pressed": String(this.choices.sortMode === mode), dataset: { sort: mode } },
          t(`table.sort_${mode}`),
        ),
      ),
    );
  }

  renderControls() {
    const { state, picks } = this;
    const actions = document.getElementById("actions");
    const phase = state.phase();
    if (!state.view || state.match.status !== "playing" || ["over", "out"].includes(phase)) {
      actions.replaceChildren();
      return;
    }
    const busy = this.socket.busy;
    const button = (id, action, disabled, label, extra = {}) =>
      h("button", { type: "button", id, disabled: disabled || busy, dataset: { action }, ...extra }, label);
    const buttons = [];
    const mine = state.myTurn();
    if (phase === "offer" || state.canPass()) {
      buttons.push(
        button("take-upcard", "take", !state.canDraw("discard"), t("table.take_upcard")),
        button("pass", "pass", !state.canPass(), t("table.pass")),
      );
    } else if (phase === "draw") {
      buttons.push(
        button("draw-stock", "stock", !state.canDraw("stock"), t("table.draw_stock")),
        button("draw-discard", "take", !state.canDraw("discard"), t("table.draw_discard")),
      );
    }
    const picked = picks.single();
    const playing = mine && ["play", "discard"].includes(phase);
    if (state.rummy && phase !== "draw") {
      const out = state.goingOut();
      if (out) buttons.push(button("go-out", "out", false, t("tables.go_out"), { class: "primary" }));
      const meld = state.meldOf(picks.cards);
      buttons.push(
        button("lay-meld", "meld", !meld, meld ? t("tables.lay_these", { cards: meld.cards.map(cardText).join(" ") }) : t("tables.lay_meld")),
      );
      for (const [k, ready] of state.melds().slice(0, MELD_BUTTONS).entries()) {
        if (meld && ready.cards.join() === meld.cards.join()) continue;
        buttons.push(
          button(`meld-ready-${k}`, "meld-ready", false, t("tables.lay_these", { cards: ready.cards.map(cardText).join(" ") }), {
            class: "chip ready",
            dataset: { action: "meld-ready", cards: ready.cards.join(" ") },
          }),
        );
      }
    }
    if (state.twoPlayer) buttons.push(...this.twoPlayerButtons(button, picked));
    else {
      if (phase !== "offer" && phase !== "draw") {
        buttons.push(
          button(
            "discard-button",
            "discard",
            !(playing && picked && state.canDiscard(picked)),
            picked ? t("table.discard_card", { card: cardText(picked) }) : t("table.discard"),
          ),
        );
      }
      if (!state.rummy && phase === "discard") {
        const choice = state.knockChoice(picked);
        const gin = choice && choice.chosen.deadwood === 0;
        buttons.push(
          button("knock-button", "knock", !choice, gin ? t("table.gin") : t("table.knock"), {
            class: `knock${choice ? " lit" : ""}${gin ? " gin" : ""}`,
          }),
        );
        if (state.canBigGin()) buttons.push(button("big-gin", "big-gin", false, t("table.big_gin"), { class: "primary" }));
      }
    }
    actions.replaceChildren(...buttons);
    this.markHint();
  }

  /** Two-player Gin's discard and knock buttons, there all turn long (lit when they may be used). */
  twoPlayerButtons(button, picked) {
    const { state } = this;
    const discarding = state.myTurn() && state.phase() === "discard";
    const choice = state.knockChoice(picked);
    const gin = choice && choice.chosen.deadwood === 0;
    const buttons = [
      button(
        "discard-button",
        "discard",
        !(discarding && picked && state.canDiscard(picked)),
        picked && state.phase() === "discard" ? t("table.discard_card", { card: cardText(picked) }) : t("table.discard"),
      ),
      button("knock-button", "knock", !choice, gin ? t("table.gin") : t("table.knock"), {
        class: `knock ${choice ? "lit" : ""} ${gin ? "gin" : ""}`,
        title: choice ? t("table.knock_hint", { card: cardText(choice.chosen.card), n: choice.chosen.deadwood }) : t("table.knock_unavailable"),
      }),
    ];
    if (state.canBigGin()) buttons.push(button("big-gin-button", "big-gin", false, t("table.big_gin"), { class: "knock lit gin" }));
    return buttons;
  }

  /** The button of the move a hint suggests. */
  markHint() {
    const hint = this.state.hint && this.state.hint.action;
    if (!hint) return;
    const offer = this.state.phase() === "offer";
    const id = {
      pass: "pass",
      stock: offer ? null : "draw-stock",
      take: offer ? "take-upcard" : "draw-discard",
      knock: "knock-button",
      big_gin: "big-gin-button",
    }[hint.type === "draw" ? (hint.source === "stock" ? "stock" : "take") : hint.type];
    if (id) document.getElementById(id)?.classList.add("hinted");
  }

  /** The Hint button, in casual matches only (the server refuses hints in rated and tournament ones). */
  renderCoach() {
    const { state } = this;
    const m = state.match;
    const slot = document.getElementById("coach");
    if (!slot) return;
    const shown = Boolean(m && m.hints && m.status === "playing");
    slot.hidden = !shown;
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
}
