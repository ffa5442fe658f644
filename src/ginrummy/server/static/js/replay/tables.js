// The replay of three-player Gin, team Gin and Rummy: every deal rebuilt step by step from its
// tables (the cards dealt, the upcard) and its steps, every hand face up or from one seat (hiding
// what that seat could not see), each deal's end (showdowns, payments) and its verification.
import { cardBack, cardCode, cardElement, cardIndex, pointsOf } from "../cards.js";
import { formatNumber, t, tn } from "../i18n.js";
import { arrange } from "../melds.js";
import { describeMove } from "../moves.js";
import { playerName } from "../names.js";
import { cardRow, showdownPanel, verifyBlock } from "../showdown.js";
import { h } from "../ui.js";
import { ReplayPlayer } from "./player.js";

/** Every position of one deal: the deal, then the table after each step, then its end. */
function framesOf(deal, seats, rummy) {
  const hands = Array.from({ length: seats }, () => new Set());
  const known = Array.from({ length: seats }, () => new Set());
  const tables = deal.tables.map((table) => {
    table.players.forEach((seat, k) => table.initial_hands[k].forEach((c) => hands[seat].add(c)));
    const dealt = table.initial_hands.reduce((n, cards) => n + cards.length, 0);
    return { players: table.players, pile: [table.upcard], stock: 52 - dealt - 1, melds: [] };
  });
  const snapshot = (step, moved) => ({
    hands: hands.map((x) => [...x]),
    known: known.map((x) => [...x]),
    tables: tables.map((x) => ({ ...x, pile: [...x.pile], melds: x.melds.map((m) => ({ ...m, cards: [...m.cards] })) })),
    step,
    moved,
  });
  const frames = [snapshot(null, null)];
  for (const step of deal.steps) {
    const table = tables[step.table];
    const seat = step.seat;
    const a = step.action;
    let moved = a.card || null;
    if (a.type === "draw") {
      if (a.source === "discard") {
        moved = table.pile.pop();
        known[seat].add(moved);
      } else {
        if (step.turnover) {
          table.stock = table.pile.length;
          table.pile = [];
        }
        moved = step.card;
        table.stock -= 1;
      }
      hands[seat].add(moved);
    } else if (a.type === "discard" || a.type === "knock") {
      hands[seat].delete(a.card);
      known[seat].delete(a.card);
      if (a.type === "discard") table.pile.push(a.card);
    } else if (a.type === "meld") {
      for (const c of a.cards) {
        hands[seat].delete(c);
        known[seat].delete(c);
      }
      table.melds.push({ cards: [...a.cards], owner: seat });
    } else if (a.type === "layoff") {
      hands[seat].delete(a.card);
      known[seat].delete(a.card);
      table.melds[a.meld].cards.push(a.card);
    }
    frames.push(snapshot(step, moved));
  }
  frames.push({ ...frames[frames.length - 1], end: true, rummy });
  return frames;
}

export function startTableReplay(data, mySeat) {
  const rummy = data.game === "rummy";
  const seats = data.players.length;
  const given = data.players.map((p, s) => (p && playerName(p)) || t("replay.seat", { n: s + 1 }));
  // Two players who would read alike (robots of one level) are told apart by their seat's number.
  const names = given.map((name, s) => (given.some((x, k) => k !== s && x === name) ? t("tables.seat_name", { name, n: s + 1 }) : name));
  const deals = data.hands.map((deal) => ({ ...deal, frames: framesOf(deal, seats, rummy) }));
  let bottom = mySeat;
  const teams = data.game === "gin4_teams";
  const sideName = (team) => (teams ? [team, team + 2].map((s) => names[s]).join(" & ") : names[team]);
  const sides = teams ? [0, 1] : names.map((_, s) => s);

  /** May `perspective` see the cards of `seat`? (All cards, its own, or a showdown's.) */
  const sees = (perspective, seat) => perspective === "all" || Number(perspective) === seat;

  function seatBlock(frame, seat, perspective, deal) {
    const cards = frame.hands[seat];
    const shown = sees(perspective, seat);
    const body = h("div", { class: "hand replay-hand", dataset: { seat } });
    if (!shown) {
      const known = frame.known[seat];
      body.append(h("div", { class: "fan" }, Array.from({ length: cards.length - known.length }, () => cardBack({ classes: ["small"] }))));
      if (known.length) body.append(h("div", { class: "group known" }, known.map((c) => cardElement(c, { classes: ["small"] }))));
    } else {
      const arr = arrange(cards);
      const mark = (i) => cardElement(i, { classes: ["small", ...(frame.moved === cardCode(i) ? ["new"] : [])] });
      body.append(...arr.melds.map((m) => h("div", { class: "group meld" }, m.map(mark))));
      if (arr.deadwood.length) body.append(h("div", { class: "group deadwood" }, arr.deadwood.map(mark)));
    }
    const sitting = data.game === "gin3" && deal.dealer === seat;
    return h(
      "div",
      { class: `seat replay-seat${seat === bottom ? " me" : ""}`, dataset: { seat } },
      h(
        "div",
        { class: "seat-head" },
        h("strong", { class: "seat-name" }, names[seat]),
        sitting ? h("span", { class: "badge" }, t("tables.sits_out")) : null,
        rummy && deal.dealer === seat ? h("span", { class: "badge" }, t("replay.dealer")) : null,
        h("span", { class: "seat-kind" }, tn("table.opponent_count", cards.length)),
      ),
      body,
    );
  }

  function tableBlock(table, k) {
    const top = table.pile[table.pile.length - 1];
    return h(
      "div",
      { class: "center replay-center", dataset: { table: k } },
      rummy
        ? h(
            "div",
            { class: "melds" },
            table.melds.length
              ? table.melds.map((m, n) =>
                  h("span", { class: "meld-spot" }, h("span", { class: "meld-number" }, formatNumber(n + 1)), h("span", { class: "group" }, m.cards.map((c) => cardElement(c, { classes: ["small"] })))),
                )
              : h("p", { class: "melds-empty" }, t("tables.no_melds")),
          )
        : h("strong", { class: "replay-table-name" }, t("tables.other_hand", { a: names[table.players[0]], b: names[table.players[1]] })),
      h(
        "div",
        { class: "piles" },
        h("div", { class: "pile-wrap" }, h("div", { class: "pile stock" }, table.stock > 0 ? [cardBack(), cardBack()] : []), h("span", { class: "pile-label" }, t("table.stock_count", { n: table.stock }))),
        h("div", { class: "pile-wrap" }, h("div", { class: "pile discard" }, top ? cardElement(top, { classes: ["top"] }) : null), h("span", { class: "pile-label" }, t("table.discard_count", { n: table.pile.length }))),
      ),
    );
  }

  function endBlock(deal) {
    const parts = [];
    if (rummy) {
      const r = deal.ends[0];
      parts.push(
        h(
          "table",
          { class: "payments" },
          h("tbody", {}, r.payments.map((pay, s) =>
            h(
              "tr",
              { class: s === r.winner ? "winner" : "" },
              h("th", {}, names[s]),
              h("td", { class: "left-cards" }, r.left[s].length ? cardRow(r.left[s]) : "—"),
              h("td", { class: "num" }, formatNumber(r.left[s].reduce((n, c) => n + pointsOf(cardIndex(c)), 0))),
              h("td", { class: `num payment ${pay > 0 ? "plus" : pay < 0 ? "minus" : ""}` }, pay > 0 ? `+${formatNumber(pay)}` : formatNumber(pay)),
            ),
          )),
        ),
      );
    } else {
      deal.tables.forEach((table, k) => {
        const sd = deal.ends[k];
        if (!sd) return;
        const inner = (seat) => (seat === null || seat === undefined ? seat : table.players.indexOf(seat));
        parts.push(
          showdownPanel({ ...sd, scorer: inner(sd.scorer), knocker: inner(sd.knocker) }, { names: table.players.map((s) => names[s]) }),
        );
      });
    }
    return h("div", { class: "center replay-showdown deal-end" }, parts);
  }

  function endText(deal) {
    if (rummy) {
      const r = deal.ends[0];
      if (r.outcome === "void") return t("tables.void");
      const who = { name: names[r.winner], n: formatNumber(r.payments[r.winner]) };
      return r.outcome === "rummy" ? t("tables.went_rummy", who) : t("tables.went_out", who);
    }
    if (deal.round) {
      const r = deal.round;
      return r.scorer === null
        ? t("tables.round_level", { n: deal.number })
        : t("tables.round_scored", { n: deal.number, team: sideName(r.scorer), points: r.points });
    }
    return deal.ends[0] && deal.ends[0].outcome !== "void" ? t("replay.hand_over") : t("showdown.void");
  }

  function draw(deal, frame, perspective) {
    const board = document.getElementById("replay-board");
    board.dataset.frame = frame.end ? "end" : frame.step ? "step" : "deal";
    board.dataset.game = data.game;
    if (frame.end) {
      board.replaceChildren(endBlock(deal));
      return endText(deal);
    }
    const order = Array.from({ length: seats }, (_, k) => (bottom + 1 + k) % seats);
    board.replaceChildren(
      h("div", { class: "others" }, order.slice(0, -1).map((s) => seatBlock(frame, s, perspective, deal))),
      ...frame.tables.map((table, k) => tableBlock(table, k)),
      seatBlock(frame, bottom, perspective, deal),
    );
    if (!frame.step) return t("replay.deal", { name: teams ? sideName(deal.dealer) : names[deal.dealer] });
    const step = frame.step;
    // A stock draw names its card only to those who saw it.
    const seen = sees(perspective, step.seat) ? step : { ...step, card: step.action.source === "stock" ? null : step.card };
    return describeMove(seen, names[step.seat]);
  }

  function side(index) {
    const deal = deals[index];
    const verify = deal.seeds.map((seed, k) => verifyBlock({ seed, commitment: deal.commitments[k] }));
    const list = h(
      "ol",
      { class: "hand-list" },
      deals.map((x, k) =>
        h(
          "li",
          { class: k === index ? "current" : "" },
          h("button", { type: "button", class: "link", onclick: () => player.go(k, 0) }, t("replay.hand_line", { n: k + 1, outcome: endText(x) })),
          x.scores_after ? h("span", { class: "after" }, ` ${x.scores_after.map(formatNumber).join(" – ")}`) : null,
        ),
      ),
    );
    document.getElementById("replay-side").replaceChildren(h("h2", {}, t("replay.hand_title", { n: index + 1 })), ...verify, h("h2", {}, t("replay.hands")), list);
  }

  const result = data.result || {};
  const winner = result.winner === null || result.winner === undefined ? t("end.draw") : t("replay.winner", { name: sideName(result.winner) });
  document.getElementById("replay-title").textContent = t(`rules.${data.game}`);
  document.getElementById("replay-summary").replaceChildren(
    h("span", { class: "badge" }, t(`rules.${data.game}`)),
    h("span", { id: "replay-result" }, `${winner} · ${sides.map((s) => `${sideName(s)} ${formatNumber((result.scores || [])[s] ?? 0)}`).join(" · ")}`),
    h("span", {}, tn("replay.hand_count", data.hands.length)),
  );
  const player = new ReplayPlayer({
    deals,
    perspectives: [{ value: "all", label: t("replay.all_cards") }, ...names.map((name, s) => ({ value: String(s), label: t("replay.from_seat", { name }) }))],
    draw,
    side,
    onPerspective: (value) => {
      if (value !== "all") bottom = Number(value);
    },
  });
  player.start();
}

