// The showdown panel (both hands face up, melds, layoffs, points) and the deal verification block.
import { cardElement, cardIndex, cardText, pointsOf } from "./cards.js";
import { formatNumber, t } from "./i18n.js";
import { arrange } from "./melds.js";
import { h } from "./ui.js";
import { checkCommitment, dealFromSeed } from "./verify.js";

/** A row of face-up cards, optionally with extra classes per card. */
export function cardRow(codes, className = "", classesFor = () => []) {
  return h(
    "div",
    { class: `group ${className}` },
    codes.map((c) => cardElement(c, { classes: classesFor(c) })),
  );
}

/** One-line headline of a finished hand ("Alice knocks with 4 — Alice scores 12"). */
export function outcomeText(sd, names) {
  if (!sd || sd.outcome === "void") return t("showdown.void");
  const knocker = sd.knocker;
  const params = {
    knocker: names[knocker],
    defender: names[1 - knocker],
    scorer: sd.scorer === null || sd.scorer === undefined ? "" : names[sd.scorer],
    points: sd.points,
    kd: sd.deadwood ? sd.deadwood[knocker] : 0,
    dd: sd.deadwood ? sd.deadwood[1 - knocker] : 0,
  };
  const text = t(`showdown.${sd.outcome}`, params);
  // The sentence may open with "you" ("bạn gõ …"): start it with a capital letter.
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** What the player did: knocked, went Gin or Big Gin, or defended. */
function roleOf(sd, role) {
  if (role === "knocker" && (sd.outcome === "gin" || sd.outcome === "big_gin")) return sd.outcome;
  return role;
}

/**
 * Each part of the hand's points, as the scorer earned them: "20 + Gin 25", "8 − 3 + undercut 25",
 * "(12 − 4) × 2". Empty when nobody scored.
 */
export function pointsBreakdown(sd) {
  if (!sd || sd.scorer === null || sd.scorer === undefined || !sd.points || !sd.deadwood) return "";
  const knocker = sd.knocker;
  const kd = sd.deadwood[knocker];
  const dd = sd.deadwood[1 - knocker];
  const bonus = sd.bonus || 0;
  let text;
  if (sd.outcome === "gin" || sd.outcome === "big_gin") {
    text = `${formatNumber(dd)} + ${t(`showdown.bonus.${sd.outcome}`, { n: bonus })}`;
  } else if (sd.outcome === "undercut") {
    text = `${formatNumber(kd)} − ${formatNumber(dd)} + ${t("showdown.bonus.undercut", { n: bonus })}`;
  } else {
    text = `${formatNumber(dd)} − ${formatNumber(kd)}`;
  }
  if (sd.multiplier && sd.multiplier > 1) text = `(${text}) ${t("showdown.times", { n: sd.multiplier })}`;
  return text;
}

function seatBlock(sd, seat, names, inText, role) {
  const melds = (sd.melds && sd.melds[seat]) || [];
  const dead = (sd.deadwood_cards && sd.deadwood_cards[seat]) || [];
  const layoffs = sd.layoffs || [];
  const laidOn = (k) => layoffs.filter((l) => l.meld === k).map((l) => l.card);
  const laidOff = new Set(layoffs.map((l) => l.card));
  const groups = melds.map((meld, k) => {
    const extra = seat === sd.knocker ? laidOn(k) : [];
    const all = [...meld, ...extra].sort((a, b) => cardIndex(a) - cardIndex(b));
    const row = cardRow(all, "meld", (c) => (laidOff.has(c) ? ["laid-off"] : []));
    for (const el of row.querySelectorAll(".laid-off")) {
      el.title = t("showdown.laid_off_by", { name: inText[1 - sd.knocker] });
      el.setAttribute("aria-label", `${el.getAttribute("aria-label")}, ${el.title}`);
    }
    return row;
  });
  const deadPoints = dead.reduce((s, c) => s + pointsOf(cardIndex(c)), 0);
  const block = h(
    "div",
    { class: `sd-seat ${role}`, dataset: { seat } },
    h(
      "div",
      { class: "sd-name" },
      h("strong", {}, names[seat]),
      h("span", { class: "sd-role" }, t(`showdown.role.${roleOf(sd, role)}`)),
      h("span", { class: "sd-deadwood" }, t("showdown.deadwood", { n: sd.deadwood ? sd.deadwood[seat] : deadPoints })),
    ),
    h(
      "div",
      { class: "hand sd-hand" },
      groups,
      dead.length ? cardRow(dead, "deadwood") : null,
    ),
  );
  if (seat !== sd.knocker && layoffs.length) {
    block.append(
      h("p", { class: "sd-note" }, t("showdown.layoffs", { cards: layoffs.map((l) => cardText(l.card)).join(" ") })),
    );
  }
  if (seat === sd.knocker && sd.knock_card) {
    block.append(h("p", { class: "sd-note" }, t("showdown.knock_card", { card: cardText(sd.knock_card) })));
  }
  return block;
}

/**
 * The deal verification block: the seed, its commitment, SHA-256 checked here, and when
 * given, the commitment seen before the deal and the cards the seed must have dealt.
 */
export function verifyBlock({ seed, commitment, published, deal }) {
  if (seed === undefined || seed === null) return null;
  const lines = h("ul", { class: "checks" });
  const addCheck = (key, ok) =>
    lines.append(
      h("li", { class: ok ? "ok" : "bad" }, h("span", { class: "mark", "aria-hidden": "true" }, ok ? "\u2713" : "\u2717"), t(key)),
    );
  const pending = h("li", { class: "pending" }, t("verify.checking"));
  lines.append(pending);
  const block = h(
    "details",
    { class: "verify" },
    h("summary", {}, t("verify.title"), " ", h("span", { class: "verify-state" }, "…")),
    h(
      "dl",
      {},
      h("dt", {}, t("verify.seed")),
      h("dd", {}, h("code", { class: "seed" }, String(seed))),
      h("dt", {}, t("verify.commitment")),
      h("dd", {}, h("code", { class: "commitment" }, String(commitment || ""))),
    ),
    lines,
    h("p", { class: "hint" }, t("verify.how"), deal ? ` ${t("verify.how_deal")}` : ""),
  );
  (async () => {
    const hashOk = await checkCommitment(seed, commitment);
    pending.remove();
    addCheck(hashOk ? "verify.hash_ok" : "verify.hash_bad", hashOk);
    let allOk = hashOk;
    if (published) {
      const same = published === commitment;
      addCheck(same ? "verify.published_ok" : "verify.published_bad", same);
      allOk = allOk && same;
    }
    if (deal) {
      let same = false;
      try {
        const made = dealFromSeed(String(seed), deal.dealer);
        const key = (cards) => cards.map((c) => (typeof c === "number" ? c : cardIndex(c))).sort((a, b) => a - b).join();
        same =
          key(made.hands[0]) === key(deal.hands[0]) &&
          key(made.hands[1]) === key(deal.hands[1]) &&
          made.upcard === cardIndex(deal.upcard);
      } catch {
        same = false;
      }
      addCheck(same ? "verify.deal_ok" : "verify.deal_bad", same);
      allOk = allOk && same;
    }
    block.classList.add(allOk ? "ok" : "bad");
    block.querySelector(".verify-state").textContent = allOk ? "\u2713" : "\u2717";
  })();
  return block;
}

/**
 * The whole showdown: headline, both hands (knocker first), points and scores, verification.
 * `names[seat]` are display names; `published` is the commitment seen at the start of the hand.
 */
export function showdownPanel(sd, { names, textNames, published, deal, targetScore }) {
  const inText = textNames || names;
  const panel = h("div", { class: "showdown", dataset: { outcome: sd ? sd.outcome : "void" } });
  panel.append(h("h2", { class: "sd-title", id: "showdown-title" }, outcomeText(sd, inText)));
  if (sd && sd.knocker !== null && sd.knocker !== undefined && sd.hands) {
    panel.append(
      seatBlock(sd, sd.knocker, names, inText, "knocker"),
      seatBlock(sd, 1 - sd.knocker, names, inText, "defender"),
    );
  } else if (sd && sd.hands) {
    // A void hand with cards shown: arrange each for information.
    for (const seat of [0, 1]) {
      const arr = arrange(sd.hands[seat]);
      panel.append(
        h("div", { class: "sd-seat" }, h("div", { class: "sd-name" }, h("strong", {}, names[seat])), h("div", { class: "hand sd-hand" }, arr.melds.map((m) => cardRow(m, "meld")), cardRow(arr.deadwood, "deadwood"))),
      );
    }
  }
  if (sd && sd.scores) {
    const breakdown = pointsBreakdown(sd);
    panel.append(
      h(
        "p",
        { class: "sd-scores" },
        sd.scorer !== null && sd.scorer !== undefined && sd.points
          ? h("span", { class: "sd-points" }, t("showdown.points", { name: inText[sd.scorer], points: sd.points }))
          : null,
        breakdown ? h("span", { class: "sd-breakdown", id: "sd-breakdown" }, `= ${breakdown}`) : null,
        h(
          "span",
          { class: "sd-totals" },
          `${t("showdown.scores")} `,
          [0, 1].map((s) =>
            h("span", { class: "sd-total" }, `${names[s]} `, h("b", { class: "sd-score", dataset: { seat: s } }, formatNumber(sd.scores[s]))),
          ),
          h("span", { class: "sd-target" }, t("showdown.target", { target: targetScore ?? 100 })),
        ),
      ),
    );
  }
  const verify = sd ? verifyBlock({ seed: sd.seed, commitment: sd.commitment, published, deal }) : null;
  if (verify) panel.append(verify);
  return panel;
}
