// The middle of the table: the stock and the discard pile of this seat's hand, Rummy's melds on
// the table (each one a place to lay off), the other hand of a team Gin round seen from outside,
// whose turn it is, and the last moves in words (or the hint asked for, at a two-player table).
import { cardBack, cardElement, cardText } from "../cards.js";
import { formatNumber, t } from "../i18n.js";
import { describeMove } from "../moves.js";
import { reasonText } from "../reasons.js";
import { h } from "../ui.js";

export class CenterView {
  /** `state`: TableState; `picks`: the cards this player has picked (Picks). */
  constructor(state, picks) {
    this.state = state;
    this.picks = picks;
    this.noteTimer = null;
  }

  /** The hand the piles show: this seat's, or the one being played while it sits out. */
  pilesOf() {
    const { state } = this;
    return state.rummy ? state.view : state.mine() || state.tables()[0];
  }

  render() {
    this.renderPiles();
    this.renderMelds();
    this.renderOtherTable();
    this.renderStatus();
  }

  renderPiles() {
    const { state } = this;
    const hand = this.pilesOf();
    const stock = document.getElementById("stock");
    const discard = document.getElementById("discard");
    const mineToPlay = hand === state.mine();
    const stockCount = hand ? hand.stock_count : 0;
    stock.replaceChildren(...(stockCount > 0 ? [cardBack(), cardBack()] : []));
    stock.classList.toggle("empty", stockCount === 0);
    stock.classList.toggle("playable", mineToPlay && state.canDraw("stock"));
    const hinted = state.hint && state.hint.action;
    stock.classList.toggle("hinted", Boolean(hinted && hinted.type === "draw" && hinted.source === "stock"));
    stock.setAttribute("aria-label", t("table.stock_label", { n: stockCount }));
    stock.setAttribute("aria-disabled", String(!state.canDraw("stock")));
    const turnovers = state.rummy && state.view ? state.view.turnovers : 0;
    document.getElementById("stock-count").textContent =
      t("table.stock_count", { n: stockCount }) + (turnovers ? ` · ${t("tables.turned_over", { n: turnovers })}` : "");
    const pile = hand ? hand.discard_pile : [];
    const top = pile[pile.length - 1];
    const under = pile[pile.length - 2];
    const dropTarget = mineToPlay && state.myTurn() && state.legal.some((a) => a.type === "discard");
    discard.replaceChildren(
      ...(under ? [cardElement(under, { classes: ["under"] })] : []),
      ...(top ? [cardElement(top, { classes: ["top"] })] : []),
    );
    discard.classList.toggle("playable", state.canDraw("discard"));
    discard.classList.toggle("hinted", Boolean(hinted && hinted.type === "draw" && hinted.source === "discard"));
    discard.classList.toggle("drop-target", Boolean(dropTarget));
    discard.classList.toggle("empty", !top);
    discard.setAttribute(
      "aria-label",
      top ? t("table.discard_label", { card: cardText(top), n: pile.length }) : t("table.discard_empty"),
    );
    discard.setAttribute("aria-disabled", String(!(state.canDraw("discard") || dropTarget)));
    document.getElementById("discard-label").textContent = t("table.discard_count", { n: pile.length });
  }

  /** Rummy's melds on the table, in the order laid: each a button to lay the picked card off on. */
  renderMelds() {
    const { state } = this;
    const el = document.getElementById("melds");
    if (!el) return;
    if (!state.rummy || !state.view) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const card = this.picks.single();
    const fits = new Set(card ? state.layoffsOf(card) : []);
    const melds = state.view.table;
    el.setAttribute("aria-label", t("tables.melds"));
    el.replaceChildren(
      ...(melds.length
        ? melds.map((meld, k) => {
            const added = new Set(meld.added.map((x) => x.card));
            return h(
              "button",
              {
                type: "button",
                class: `meld-spot${fits.has(k) ? " can-lay" : ""}`,
                id: `meld-${k}`,
                dataset: { meld: k },
                disabled: !fits.has(k) && !state.legal.some((a) => a.type === "layoff" && a.meld === k),
                "aria-label": t("tables.meld_label", {
                  n: k + 1,
                  cards: meld.cards.map(cardText).join(" "),
                  name: state.nameOf(meld.owner, true),
                }),
              },
              h("span", { class: "meld-number" }, formatNumber(k + 1)),
              h(
                "span",
                { class: "group" },
                meld.cards.map((c) => cardElement(c, { classes: ["small", ...(added.has(c) ? ["added"] : [])] })),
              ),
            );
          })
        : [h("p", { class: "melds-empty" }, t("tables.no_melds"))]),
    );
  }

  /** Team Gin: the other hand of the round, as this seat sees it (face-up cards only). */
  renderOtherTable() {
    const { state } = this;
    const el = document.getElementById("other-table");
    if (!el) return;
    const mine = state.myTable();
    const tables = state.tables();
    if (state.game !== "gin4_teams" || mine === null || tables.length < 2) {
      el.hidden = true;
      return;
    }
    const other = tables[1 - mine];
    const top = other.discard_pile[other.discard_pile.length - 1];
    const [a, b] = other.players;
    const status =
      other.phase === "over"
        ? t("tables.hand_over")
        : t("table.their_turn_named", { name: state.nameOf(other.to_act) });
    el.hidden = false;
    el.replaceChildren(
      h("div", { class: "other-head" }, h("strong", {}, t("tables.other_hand", { a: state.nameOf(a), b: state.nameOf(b) }))),
      h("p", { class: "other-note", id: "both-hands" }, t("tables.both_hands")),
      h(
        "div",
        { class: "other-body" },
        top ? cardElement(top, { classes: ["small"] }) : h("span", { class: "pile-label" }, t("table.discard_empty")),
        h("span", { class: "pile-label" }, t("table.stock_count", { n: other.stock_count })),
        h("span", { class: "other-status", id: "other-status" }, status),
      ),
    );
  }

  statusText() {
    const { state } = this;
    const m = state.match;
    const v = state.view;
    if (m.status === "waiting") return t("table.waiting");
    if (m.status === "over") return t("table.match_over");
    if (!v) return "";
    if (state.phase() === "out") return t("tables.you_sit_out");
    if (state.myTurn()) {
      const mine = state.mine();
      const top = mine.discard_pile[mine.discard_pile.length - 1];
      if (state.rummy) {
        if (mine.phase === "draw") return t("tables.your_draw", { card: top ? cardText(top) : "—" });
        return state.goingOut() ? t("tables.your_play_out") : t("tables.your_play");
      }
      if (mine.phase === "offer") return t("table.your_offer", { card: cardText(top) });
      if (mine.phase === "draw") return t("table.your_draw", { card: top ? cardText(top) : "—" });
      return state.knockCards().length ? t("table.your_discard_knock") : t("table.your_discard");
    }
    if (state.twoPlayer) {
      const name = state.opponentName();
      return v.phase === "offer" ? t("table.their_offer", { name }) : t("table.their_turn_named", { name });
    }
    // Team Gin plays both hands of a deal at once: the line speaks of this seat's hand (the other
    // hand has its own line), so one opponent's name, never a name from each hand joined.
    const here = state.game === "gin4_teams" && state.mine() ? state.mine().players : null;
    const acting = state.acting().filter((s) => s !== state.seat && (!here || here.includes(s)));
    if (!acting.length) return state.phase() === "over" ? t("tables.waiting_other_hand") : "";
    if (acting.length === 1) return t("table.their_turn_named", { name: state.nameOf(acting[0]) });
    return t("tables.they_play_named", { names: acting.map((s) => state.nameOf(s)).join(", ") });
  }

  renderStatus() {
    const { state } = this;
    const status = document.getElementById("status");
    const clock = this.myClock();
    if (state.match.status === "playing" && state.iAmAway()) {
      status.replaceChildren(
        h("span", { class: "status-text", id: "away-text" }, t("table.away")),
        h("button", { type: "button", class: "primary", id: "im-back", dataset: { action: "back" } }, t("table.im_back")),
      );
      status.classList.add("mine");
    } else {
      status.replaceChildren(h("span", { class: "status-text" }, this.statusText()), ...(clock ? [clock] : []));
      status.classList.toggle("mine", state.myTurn());
    }
    this.renderLastMoves();
  }

  /**
   * This seat's turn clock, when it has a move to make and the game has a clock (two players: none
   * when a robot steps in first).
   */
  myClock() {
    const { state } = this;
    const m = state.match;
    const p = state.player(state.seat);
    const deadline = state.twoPlayer ? m.turn_deadline : m.turn_deadlines && m.turn_deadlines[state.seat];
    if (!deadline || !state.myTurn() || p.autoplay) return null;
    if (state.twoPlayer && (m.status !== "playing" || !state.view || state.view.phase === "over" || (p.autoplay_at && p.autoplay_at < deadline))) return null;
    return h("span", { class: "clock", id: "my-clock", "aria-label": t("table.clock"), dataset: { deadline } });
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

  renderLastMoves() {
    const el = document.getElementById("last-move");
    if (!el || el.classList.contains("error")) return;
    const { state } = this;
    const hint = state.hint;
    el.classList.toggle("hint", Boolean(hint));
    if (hint) {
      // The hint stays where the last moves are until the table changes; its reason names the move.
      el.textContent = t("table.hint_text", { reason: reasonText(hint.why) });
      return;
    }
    if (state.hintAsked !== null && state.hintAsked === state.version) {
      el.textContent = t("table.hint_wait");
      return;
    }
    const history = state.history();
    el.textContent = history
      .slice(-3)
      .map((entry) => describeMove(entry, state.nameOf(entry.seat)))
      .join(" · ");
  }
}
