// What covers a table of any game for a while: the end of a deal (each Gin hand's showdown, or who
// went out in Rummy and what every player pays), the wait for the friends of a room, the end of
// the game, and the page shown when the table cannot be opened.
import { api, describeError } from "../api.js";
import { cardIndex, pointsOf } from "../cards.js";
import { formatNumber, t, tn } from "../i18n.js";
import { ratingChange } from "../compete.js";
import { cardRow, showdownPanel, verifyBlock } from "../showdown.js";
import { openTimed } from "./overlays.js";
import { copyText, h, toast } from "../ui.js";

/** A Gin hand's showdown with the table's two players as seats 0 and 1 (as showdownPanel reads it). */
function innerShowdown(showdown, players) {
  const inner = (seat) => (seat === null || seat === undefined ? seat : players.indexOf(seat));
  return { ...showdown, scorer: inner(showdown.scorer), knocker: inner(showdown.knocker) };
}

export class TableOverlays {
  constructor(state, onEndClosed) {
    this.state = state;
    this.onEndClosed = onEndClosed;
    this.table = document.getElementById("table");
    this.shown = null; // {close} while the end of a deal is shown
  }

  get showingEnd() {
    return this.shown !== null;
  }

  /** The end of deal `finished` (a view of it, with its `deal` proof) until Continue or its countdown. */
  openEnd(finished) {
    const { state } = this;
    const panel = h("div", { class: "deal-end", dataset: { game: state.game } });
    const number = finished.hand_number;
    if (state.rummy) panel.append(...this.rummyEnd(finished));
    else panel.append(...this.ginEnd(finished));
    panel.append(this.totals(finished.scores), ...this.proofs(finished.deal, number));
    this.shown = openTimed(this.table, panel, {
      over: state.match.status === "over",
      onClose: () => {
        state.markEndSeen(number);
        this.shown = null;
        this.onEndClosed();
      },
    });
  }

  rummyEnd(finished) {
    const { state } = this;
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

  ginEnd(finished) {
    const { state } = this;
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
  totals(scores) {
    const { state } = this;
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
  proofs(deal, number) {
    if (!deal) return [];
    const published = this.state.commitments[number] || [];
    return deal.seeds
      .map((seed, k) => (seed === null ? null : verifyBlock({ seed, commitment: deal.commitments[k], published: published[k] })))
      .filter(Boolean);
  }

  /** The wait for every seat of a new room to be taken, with the link to send the friends. */
  renderWaiting() {
    const { state } = this;
    const m = state.match;
    const existing = document.getElementById("waiting");
    if (m.status !== "waiting") {
      existing?.remove();
      return;
    }
    const free = m.players.filter((p) => p.kind === null);
    const key = m.players.map((p) => `${p.kind}:${p.name}`).join();
    if (existing && existing.dataset.key === key) return;
    existing?.remove();
    const link = m.room_code ? new URL(`/r/${encodeURIComponent(m.room_code)}`, location.origin).href : null;
    const input = h("input", { readonly: true, value: link || "", id: "waiting-link", "aria-label": t("home.share_link") });
    const copy = async () => toast((await copyText(link, input)) ? t("home.copied") : t("home.copy_failed"));
    const invited = m.players.filter((p) => p.invited);
    this.table.append(
      h(
        "div",
        { class: "overlay", id: "waiting", role: "dialog", "aria-labelledby": "waiting-title", dataset: { key } },
        h(
          "div",
          { class: "overlay-box small" },
          h("h2", { id: "waiting-title" }, invited.length ? t("tables.waiting_rematch") : tn("tables.waiting_for", free.length)),
          h(
            "ul",
            { class: "seat-list", id: "seat-list" },
            m.players.map((p) =>
              h(
                "li",
                { class: p.kind ? "taken" : "free", dataset: { seat: p.seat } },
                p.kind ? state.nameOf(p.seat) : p.invited ? t("tables.seat_invited", { name: p.invited }) : t("tables.seat_free"),
              ),
            ),
          ),
          link && !invited.length
            ? h("div", {}, h("p", {}, t("tables.share_link")), h("div", { class: "row" }, input, h("button", { type: "button", onclick: copy }, t("home.copy"))))
            : null,
          h("div", { class: "spinner", "aria-hidden": "true" }),
          h("div", { class: "overlay-actions" }, h("a", { class: "button", href: "/" }, t("nav.home"))),
        ),
      ),
    );
  }

  /** The end of the game: every side's final total, the winner, rematch and replay. */
  renderEnd() {
    const { state } = this;
    const m = state.match;
    const existing = document.getElementById("end");
    if (m.status !== "over" || !state.result) {
      existing?.remove();
      return;
    }
    if (existing && existing.dataset.rematch === String(m.rematch_id || "")) return;
    existing?.remove();
    const r = state.result;
    const mine = state.sideOf(state.seat);
    const won = r.winner === mine;
    const title =
      r.winner === null || r.winner === undefined
        ? t("end.draw")
        : won
          ? t("end.you_win")
          : t("end.they_win", { name: state.sideName(r.winner) });
    const order = state.sides().map((_, side) => side).sort((a, b) => r.scores[b] - r.scores[a]);
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
    // A rated table's end, as two-player Gin's: each seat's new rating ("?" while provisional) and
    // its change, the winners first.
    const rated = m.ratings
      ? h(
          "div",
          { class: "end-ratings", id: "end-ratings", role: "group", "aria-label": t("end.ratings") },
          order.flatMap((side) =>
            state.sides()[side].map((s) =>
              m.ratings[s]
                ? h(
                    "p",
                    { class: "end-rating", dataset: { seat: s }, id: s === state.seat ? "end-rating-mine" : null },
                    h("span", { class: "who" }, state.nameOf(s)),
                    " ",
                    ratingChange(m.ratings[s]),
                  )
                : null,
            ),
          ),
        )
      : null;
    this.table.append(
      h(
        "div",
        { class: "overlay end-overlay", id: "end", role: "dialog", "aria-labelledby": "end-title", dataset: { rematch: m.rematch_id || "" } },
        h(
          "div",
          { class: `overlay-box end ${won ? "won" : "lost"}` },
          h("div", { class: "trophy", "aria-hidden": "true" }, won ? "\u2605\u2605\u2605" : "\u2660\u2665\u2666\u2663"),
          h("h2", { id: "end-title" }, title),
          h(
            "ol",
            { class: "final-scores", id: "final-scores" },
            order.map((side) =>
              h(
                "li",
                { class: side === mine ? "mine" : "", dataset: { side } },
                h("span", {}, state.sideName(side)),
                h("strong", {}, formatNumber(r.scores[side])),
              ),
            ),
          ),
          rated,
          h("p", { id: "end-hands" }, tn("tables.deals_played", r.hands_played)),
          m.rematch_id ? h("p", { class: "rematch-ready", id: "rematch-asked" }, t("tables.rematch_asked")) : null,
          h(
            "div",
            { class: "overlay-actions" },
            rematch,
            h("a", { class: "button", id: "open-replay", href: `/replay/${encodeURIComponent(state.matchId)}` }, t("end.replay")),
            h("a", { class: "button", href: "/" }, t("nav.home")),
          ),
        ),
      ),
    );
    rematch.focus();
  }
}

