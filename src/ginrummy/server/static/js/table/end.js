// What the table shows when something ends: a deal (two-player Gin's showdown; each Gin hand's
// showdown at the bigger tables, or who went out in Rummy and what every player pays) and the
// match (the result, each player's rating change, rematch and replay).
import { api, describeError } from "../api.js";
import { cardIndex, pointsOf } from "../cards.js";
import { formatNumber, t, tn } from "../i18n.js";
import { ratingChange } from "../compete.js";
import { cardRow, showdownPanel, verifyBlock } from "../showdown.js";
import { h, toast } from "../ui.js";

// --- the end of a deal ---------------------------------------------------------------------------

/** The end of deal `finished` (a view of it) as a panel. */
export function dealEnd(state, finished) {
  if (state.twoPlayer) {
    return showdownPanel(finished.showdown, {
      names: state.names(),
      textNames: state.names(true),
      published: state.commitments[finished.hand_number],
      targetScore: state.target(),
    });
  }
  const panel = h("div", { class: "deal-end", dataset: { game: state.game } });
  panel.append(...(state.rummy ? rummyEnd(state, finished) : ginEnd(state, finished)));
  panel.append(totals(state, finished.scores), ...proofs(state, finished.deal, finished.hand_number));
  return panel;
}

/** A Gin hand's showdown with the table's two players as seats 0 and 1 (as showdownPanel reads it). */
function innerShowdown(showdown, players) {
  const inner = (seat) => (seat === null || seat === undefined ? seat : players.indexOf(seat));
  return { ...showdown, scorer: inner(showdown.scorer), knocker: inner(showdown.knocker) };
}

function rummyEnd(state, finished) {
  const r = finished.result;
  const winner = r.winner;
  const who = { name: winner === null ? "" : state.nameOf(winner, true), n: formatNumber(r.points ?? r.payments[winner] ?? 0) };
  const title =
    r.outcome === "void" ? t("tables.void") : r.outcome === "rummy" ? t("tables.went_rummy", who) : t("tables.went_out", who);
  const rows = r.payments.map((payment, seat) => {
    const left = r.left[seat];
    const points = left.reduce((sum, c) => sum + pointsOf(cardIndex(c)), 0);
    return h(
      "tr",
      { class: seat === winner ? "winner" : "", dataset: { seat } },
      h("th", { scope: "row" }, state.nameOf(seat)),
      h("td", { class: "left-cards" }, left.length ? cardRow(left, "small-row") : "—"),
      h("td", { class: "num" }, formatNumber(points)),
      h("td", { class: `num payment ${payment > 0 ? "plus" : payment < 0 ? "minus" : ""}` }, payment > 0 ? `+${formatNumber(payment)}` : formatNumber(payment)),
    );
  });
  return [
    h("h2", { class: "sd-title", id: "showdown-title" }, title.charAt(0).toLocaleUpperCase() + title.slice(1)),
    r.multiplier > 1 && r.outcome === "rummy" ? h("p", { class: "sd-note" }, t("tables.rummy_pays", { n: r.multiplier })) : null,
    h(
      "table",
      { class: "payments", id: "payments" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, ""), h("th", {}, t("tables.cards_left")), h("th", { class: "num" }, t("tables.points")), h("th", { class: "num" }, t("tables.pays"))),
      ),
      h("tbody", {}, rows),
    ),
  ].filter(Boolean);
}

function ginEnd(state, finished) {
  const parts = [];
  if (finished.round) {
    const r = finished.round;
    const title =
      r.scorer === null
        ? t("tables.round_level", { n: finished.hand_number })
        : t("tables.round_scored", { n: finished.hand_number, team: state.sideName(r.scorer), points: r.points });
    parts.push(
      h("h2", { class: "sd-title", id: "showdown-title" }, title),
      h(
        "p",
        { class: "sd-note", id: "round-points" },
        t("tables.round_points", { a: state.sideName(0), x: r.team_points[0], b: state.sideName(1), y: r.team_points[1] }),
      ),
    );
  }
  for (const table of finished.tables) {
    if (!table.showdown) continue;
    const names = table.players.map((s) => state.nameOf(s));
    const inText = table.players.map((s) => state.nameOf(s, true));
    const panel = showdownPanel(innerShowdown(table.showdown, table.players), { names, textNames: inText });
    if (finished.round) panel.querySelector(".sd-title")?.removeAttribute("id");
    panel.classList.add("table-showdown");
    parts.push(panel);
  }
  if (state.game === "gin3" && finished.dealer !== undefined) {
    parts.push(h("p", { class: "sd-note" }, t("tables.sat_out", { name: state.nameOf(finished.dealer, true) })));
  }
  return parts;
}

/** Each side's total after the deal, against the target. */
function totals(state, scores) {
  return h(
    "p",
    { class: "sd-scores" },
    h(
      "span",
      { class: "sd-totals" },
      `${t("showdown.scores")} `,
      state.sides().map((_, side) =>
        h("span", { class: "sd-total" }, `${state.sideName(side)} `, h("b", { class: "sd-score", dataset: { side } }, formatNumber(scores[side]))),
      ),
      h("span", { class: "sd-target" }, t("showdown.target", { target: state.target() })),
    ),
  );
}

/** The deal's seeds checked against the commitments published before it (a void hand's seed
 * waits for the end of the game). */
function proofs(state, deal, number) {
  if (!deal) return [];
  const published = state.commitments[number] || [];
  return deal.seeds
    .map((seed, k) => (seed === null ? null : verifyBlock({ seed, commitment: deal.commitments[k], published: published[k] })))
    .filter(Boolean);
}

// --- the end of the match ------------------------------------------------------------------------

/** What makes the end of the match drawn again: a rematch asked for, rating changes arriving. */
export function endShape(state) {
  const m = state.match;
  return state.twoPlayer ? `${m.rematch_id || ""}|${m.ratings ? "rated" : ""}` : String(m.rematch_id || "");
}

/** The end of the match over the table; `focus` is the button to focus. */
export function matchEnd(state) {
  const m = state.match;
  const r = state.result;
  const seat = state.seat;
  const mine = state.sideOf(seat);
  const won = r.winner === mine;
  const them = state.twoPlayer ? state.opponentName() : r.winner === null || r.winner === undefined ? "" : state.sideName(r.winner);
  const title =
    r.ended === "aborted"
      ? t("end.aborted")
      : r.winner === null || r.winner === undefined
        ? t("end.draw")
        : won
          ? t("end.you_win")
          : t("end.they_win", { name: them });
  // The winners first (two players: this seat first).
  const order = state.twoPlayer ? [seat, 1 - seat] : state.sides().map((_, side) => side).sort((a, b) => r.scores[b] - r.scores[a]);
  const again = againButton(state);
  const body = state.twoPlayer ? twoPlayerResult(state) : [finalScores(state, order, mine)];
  const ratings = m.ratings
    ? h(
        "div",
        { class: "end-ratings", id: "end-ratings", role: "group", "aria-label": t("end.ratings") },
        // Lichess's end of a rated game: each player's new rating, "?" while provisional, and the change.
        order.flatMap((side) =>
          state.sides()[side].map((s) =>
            m.ratings[s]
              ? h(
                  "p",
                  { class: "end-rating", dataset: { seat: s }, id: s === seat ? "end-rating-mine" : state.twoPlayer ? "end-rating-theirs" : null },
                  h("span", { class: "who" }, state.nameOf(s)),
                  " ",
                  ratingChange(m.ratings[s]),
                )
              : null,
          ),
        ),
      )
    : null;
  const overlay = h(
    "div",
    { class: "overlay end-overlay", id: "end", role: "dialog", "aria-labelledby": "end-title", dataset: { shape: endShape(state) } },
    h(
      "div",
      { class: `overlay-box end ${won ? "won" : "lost"}` },
      h("div", { class: "trophy", "aria-hidden": "true" }, won ? "\u2605\u2605\u2605" : "\u2660\u2665\u2666\u2663"),
      h("h2", { id: "end-title" }, title),
      ...body,
      ratings,
      state.twoPlayer ? null : h("p", { id: "end-hands" }, tn("tables.deals_played", r.hands_played)),
      rematchAsked(state),
      h(
        "div",
        { class: "overlay-actions" },
        again,
        h("a", { class: "button", id: "open-replay", href: `/replay/${encodeURIComponent(state.matchId)}` }, t("end.replay")),
        h("a", { class: "button", href: "/" }, t("nav.home")),
      ),
    ),
  );
  return { overlay, focus: again };
}

/** Two-player Gin's result: the final score, the hands played and won, the bonuses. */
function twoPlayerResult(state) {
  const r = state.result;
  const seat = state.seat;
  const shown = state.names();
  const n = state.names(true);
  const bonuses = [];
  for (const key of ["game_bonus", "box_bonus", "shutout_bonus"]) {
    for (const s of [0, 1]) {
      if (r[key] && r[key][s]) bonuses.push(t(`end.${key}`, { name: n[s], n: r[key][s] }));
    }
  }
  return [
    h(
      "p",
      { class: "final-score" },
      h("span", {}, `${shown[seat]} `),
      h("strong", { id: "final-mine" }, formatNumber(r.scores[seat])),
      " – ",
      h("strong", { id: "final-theirs" }, formatNumber(r.scores[1 - seat])),
      h("span", {}, ` ${shown[1 - seat]}`),
    ),
    // An aborted match was never played out: no count of hands played and won.
    r.ended === "aborted"
      ? null
      : h(
          "p",
          { id: "end-hands" },
          tn("end.hands_played", r.hands_played),
          " ",
          t("end.hands_won", { mine: r.hands_won[seat], theirs: r.hands_won[1 - seat] }),
        ),
    bonuses.length ? h("ul", { class: "bonuses" }, bonuses.map((b) => h("li", {}, b))) : null,
  ];
}

/** Every side's final total, the winners first. */
function finalScores(state, order, mine) {
  const r = state.result;
  return h(
    "ol",
    { class: "final-scores", id: "final-scores" },
    order.map((side) =>
      h("li", { class: side === mine ? "mine" : "", dataset: { side } }, h("span", {}, state.sideName(side)), h("strong", {}, formatNumber(r.scores[side]))),
    ),
  );
}

/** "Ann asked for a rematch", when someone did. */
function rematchAsked(state) {
  const m = state.match;
  if (!m.rematch_id) return null;
  if (!state.twoPlayer) return h("p", { class: "rematch-ready", id: "rematch-asked" }, t("tables.rematch_asked"));
  if (m.tournament_id || state.player(1 - state.seat).kind !== "human") return null;
  return h("p", { class: "rematch-ready", id: "rematch-asked" }, t("end.rematch_asked", { name: state.opponentName() }));
}

/**
 * The way to play again: a rematch (asking and accepting are the same request; between people it
 * starts when all did). A tournament pairs the next match itself: the way back to it. A bot
 * accepts each match itself: it is challenged again from its profile.
 */
function againButton(state) {
  const m = state.match;
  if (state.twoPlayer && m.tournament_id) {
    return h("a", { class: "button primary big", id: "back-tournament", href: `/t/${encodeURIComponent(m.tournament_id)}` }, t("forfeit.back_tournament"));
  }
  const opponent = state.twoPlayer ? state.player(1 - state.seat) : null;
  if (opponent && opponent.bot) {
    return h("a", { class: "button primary big", id: "challenge-again", href: `/@/${encodeURIComponent(opponent.name)}` }, t("bots.challenge_again"));
  }
  const rematch = h("button", { type: "button", class: "primary big", id: "rematch" }, t("end.rematch"));
  rematch.addEventListener("click", async () => {
    rematch.disabled = true;
    try {
      const made = await api("POST", `/api/matches/${encodeURIComponent(state.matchId)}/rematch`);
      location.assign(made.url || `/m/${made.match_id}`);
    } catch (error) {
      toast(describeError(error), "error");
      rematch.disabled = false;
    }
  });
  return rematch;
}
