// The people around the table: the scoreboard (each side's total against the target) and every
// other seat, clockwise from this one's left (two-player Gin: the opponent opposite), with its
// name, connection, cards held, the cards it was seen taking, its role this hand (dealer, sitting
// out, partner) and its turn clock.
import { cardBack, cardElement } from "../cards.js";
import { formatNumber, t, tn } from "../i18n.js";
import { guestMark } from "../names.js";
import { ruleNotes } from "../rules.js";
import { h } from "../ui.js";

/** The ids of the opponent's parts at a two-player table (the bigger tables' seats have none). */
const OPPONENT_IDS = {
  name: "opponent-name",
  guest: "opponent-guest",
  bot: "opponent-bot",
  offline: "opponent-offline",
  autoplay: "opponent-autoplay",
  grace: "opponent-grace",
  count: "opponent-count",
  known: "opponent-known",
};

export class SeatsView {
  constructor(state) {
    this.state = state;
  }

  render() {
    this.renderScoreboard();
    if (this.state.twoPlayer) this.renderOpponent();
    else this.renderOthers();
  }

  renderScoreboard() {
    const { state } = this;
    const m = state.match;
    const v = state.view;
    const scores = (state.result && state.result.scores) || (v ? v.scores : state.sides().map(() => 0));
    const goal = state.target();
    const mine = state.sideOf(state.seat);
    // Two players: this seat's total first; the bigger tables: the sides in order.
    const order = state.twoPlayer ? [mine, 1 - mine] : state.sides().map((_, side) => side);
    const rows = order.map((side) =>
      h(
        "div",
        { class: `score ${side === mine ? "mine" : "theirs"}`, dataset: state.twoPlayer ? { seat: side } : { side } },
        // A team's two names wrap onto two lines rather than being cut.
        h("span", { class: state.sides()[side].length > 1 ? "score-name team" : "score-name" }, state.sideName(side)),
        h("span", { class: "score-value" }, formatNumber(scores[side] ?? 0)),
        h(
          "span",
          { class: "score-bar", "aria-hidden": "true" },
          h("span", { style: `width:${Math.max(0, Math.min(100, (100 * (scores[side] ?? 0)) / goal))}%` }),
        ),
      ),
    );
    const info = [];
    if (v) {
      const n = v.hand_number;
      info.push(state.game === "gin4_teams" ? t("tables.round_number", { n }) : t("table.hand_number", { n }));
    }
    info.push(t("table.target", { n: goal }));
    if (!state.twoPlayer) info.push(t(`rules.${state.game}`));
    else if (m.rules && m.rules.preset) info.push(t(`rules.${m.rules.preset}`));
    if (state.twoPlayer && v && v.knock_limit !== undefined) info.push(t("table.knock_limit", { n: v.knock_limit }));
    // Every rule that differs from the book, so nobody sits down to a game they did not expect.
    const notes = ruleNotes(m.rule_changes);
    document
      .getElementById("scoreboard")
      .replaceChildren(
        ...rows,
        h("div", { class: "score-info" }, info.join(" · ")),
        ...(notes.length ? [h("div", { class: "rules-line", id: "rules-line" }, t("table.rules_line", { rules: notes.join(" · ") }))] : []),
      );
  }

  /** The other seats in the order they play after this one. */
  order() {
    const { state } = this;
    return Array.from({ length: state.seats - 1 }, (_, k) => (state.seat + 1 + k) % state.seats);
  }

  /** What `seat` does this hand: deals and sits out (three-player Gin), deals (Rummy), or nothing. */
  role(seat) {
    const { state } = this;
    const v = state.view;
    if (!v) return null;
    if (state.game === "gin3" && v.dealer === seat) return t("tables.sits_out");
    if (state.rummy && v.dealer === seat) return t("tables.dealer");
    return null;
  }

  /** The turn badge of `seat`: in team Gin, at which of the two hands played at once. */
  turnText(seat) {
    const { state } = this;
    if (state.game !== "gin4_teams") return t("table.their_turn");
    const here = state.mine();
    return here && here.players.includes(seat) ? t("tables.turn_your_hand") : t("tables.turn_other_hand");
  }

  /**
   * The opponent's turn clock at a two-player table, when the match has one; none when a robot
   * will step in for that seat first (its player left): then the grace countdown is what counts.
   */
  opponentClock(seat) {
    const { state } = this;
    const m = state.match;
    const v = state.view;
    if (!m.turn_deadline || m.status !== "playing" || state.myTurn() || !v || v.phase === "over") return null;
    const p = state.player(seat);
    if (p.autoplay || (p.autoplay_at && p.autoplay_at < m.turn_deadline)) return null;
    return h("span", { class: "clock", id: "their-clock", "aria-label": t("table.clock"), dataset: { deadline: m.turn_deadline } });
  }

  /** Two-player Gin: the opponent opposite. */
  renderOpponent() {
    const { state } = this;
    const seat = 1 - state.seat;
    const p = state.player(seat);
    const section = document.getElementById("opponent");
    section.classList.toggle("to-act", state.acting().includes(seat));
    section.setAttribute("aria-label", t("table.opponent_area", { name: p.name }));
    section.replaceChildren(...this.seatParts(seat, OPPONENT_IDS, this.opponentClock(seat)));
  }

  /** The bigger tables: every other seat. */
  renderOthers() {
    const { state } = this;
    const m = state.match;
    const acting = state.acting();
    const partner = state.partner();
    const section = document.getElementById("others");
    section.dataset.count = String(state.seats - 1);
    section.replaceChildren(
      ...this.order().map((seat) => {
        const p = state.player(seat);
        const turn = acting.includes(seat);
        const deadline = m.turn_deadlines && m.turn_deadlines[seat];
        const clock = turn && deadline && !p.autoplay ? h("span", { class: "clock", "aria-label": t("table.clock"), dataset: { deadline } }) : null;
        return h(
          "section",
          {
            class: `seat other${turn ? " to-act" : ""}${seat === partner ? " partner" : ""}`,
            id: `seat-${seat}`,
            dataset: { seat, count: state.handCount(seat) },
            "aria-label": t("table.opponent_area", { name: p.name }),
          },
          ...this.seatParts(seat, {}, clock),
        );
      }),
    );
  }

  /** The head of `seat` (name, badges, `clock`) and its cards; `ids`: the ids of its parts, if any. */
  seatParts(seat, ids, clock) {
    const { state } = this;
    const m = state.match;
    const p = state.player(seat);
    const count = state.handCount(seat);
    const known = state.knownOf(seat);
    const turn = state.acting().includes(seat);
    const two = state.twoPlayer;
    // Robots are named after their level by the server; say the level only when the name does not.
    const level = p.kind === "robot" && p.level ? t(`level.${p.level}`) : null;
    const kind = level && !String(p.name).toLowerCase().includes(String(level).toLowerCase()) ? t("table.robot_level", { level }) : null;
    const guest = two ? guestMark(p.name, p.guest) : null;
    const role = this.role(seat);
    const head = h(
      "div",
      { class: "seat-head" },
      h("span", { class: `presence ${p.connected ? "online" : "offline"}`, title: p.connected ? t("table.connected") : t("table.disconnected") }),
      h("strong", { class: "seat-name", id: ids.name }, p.name),
      kind ? h("span", { class: "seat-kind" }, kind) : null,
      guest ? h("span", { class: "seat-kind", id: ids.guest }, guest) : null,
      two && p.bot ? h("span", { class: "badge bot", id: ids.bot, title: t("bots.badge_hint") }, t("bots.badge")) : null,
      seat === state.partner() ? h("span", { class: "badge partner" }, t("tables.partner")) : null,
      role ? h("span", { class: "badge role" }, role) : null,
      p.connected || p.kind !== "human" ? null : h("span", { class: "badge warn", id: ids.offline }, t("table.disconnected")),
      p.autoplay ? h("span", { class: "badge", id: ids.autoplay }, t("table.autoplay")) : null,
      !p.autoplay && p.autoplay_at && m.status === "playing"
        ? h("span", { class: "badge grace", id: ids.grace, dataset: { deadline: p.autoplay_at } }, t("table.robot_in"), " ", h("span", { class: "time" }))
        : null,
      turn ? h("span", { class: "badge turn" }, this.turnText(seat)) : null,
      clock,
    );
    const cards = h(
      "div",
      { class: "opp-cards", "aria-label": tn("table.opponent_count", count) },
      h(
        "div",
        { class: "fan", id: ids.count, dataset: { count } },
        Array.from({ length: Math.max(0, Math.min(count, 11) - known.length) }, () => cardBack({ classes: ["small"] })),
      ),
      count && !two ? h("span", { class: "count-label" }, formatNumber(count)) : null,
      known.length
        ? h(
            "div",
            { class: "known", id: ids.known },
            h("span", { class: "known-label" }, t("table.seen_taking")),
            h("div", { class: "group" }, known.map((c) => cardElement(c, { classes: ["small"] }))),
          )
        : null,
    );
    return [head, cards];
  }
}
