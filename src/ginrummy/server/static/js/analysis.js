// The computer analysis on the replay page: asked for once per match (the server stores it), its
// progress polled while it is being made, then each person's decisions marked beside their moves
// (inaccuracy ?!, mistake ?, blunder ??) with the expert's choice and the numbers behind the mark.
import { api, describeError } from "./api.js";
import { formatNumber, t, tn } from "./i18n.js";
import { moveText, reasonText } from "./reasons.js";
import { h } from "./ui.js";

const POLL_MS = 1000;
const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

/** A value in its unit, one decimal; points values carry their sign (a negative one is the opponent's). */
function amount(value, unit) {
  const text = formatNumber(Math.round(value * 10) / 10);
  return unit === "points" && value > 0 ? `+${text}` : text;
}

export class Analysis {
  /** `page.names()`: the players' names by seat; `page.go(hand, frame)`: show a position; `page.changed()`: redraw. */
  constructor(matchId, page) {
    this.matchId = matchId;
    this.page = page;
    this.status = null; // the server's last answer
    this.byStep = new Map(); // "hand:step" -> decision
    this.version = 0; // grows when the analysis result arrives (the side panel redraws then)
    this.timer = null;
    // Elements of their own, which the page places (and moves) where it wants them.
    this.panel = h("section", { class: "analysis", id: "analysis", "aria-live": "polite" });
    this.note = h("div", { class: "analysis-note", id: "analysis-note", hidden: true });
  }

  get path() {
    return `/api/matches/${encodeURIComponent(this.matchId)}/analysis`;
  }

  async start() {
    await this.refresh("GET");
  }

  async refresh(method) {
    clearTimeout(this.timer);
    try {
      this.take(await api(method, this.path));
    } catch (error) {
      this.renderPanel(describeError(error));
      return;
    }
    if (this.status.status === "queued" || this.status.status === "running") {
      this.timer = setTimeout(() => this.refresh("GET"), POLL_MS);
    }
  }

  take(status) {
    const arrived = status.status === "done" && (!this.status || this.status.status !== "done");
    this.status = status;
    if (arrived) {
      this.byStep = new Map(status.analysis.decisions.map((d) => [`${d.hand}:${d.step}`, d]));
      this.version += 1;
      this.page.changed();
    }
    this.renderPanel();
  }

  /** The panel under the controls: the button, the progress, or the summary per person. */
  renderPanel(problem) {
    const el = this.panel;
    const s = this.status;
    // Screen readers hear when the analysis starts, ends or fails, not every tick of its progress.
    el.setAttribute("aria-live", s && s.status === "running" ? "off" : "polite");
    const title = h("h2", {}, t("analysis.title"));
    if (problem || !s) {
      el.replaceChildren(title, h("p", { class: "analysis-error", id: "analysis-error" }, problem || ""));
      return;
    }
    if (s.status === "none" || s.status === "failed") {
      el.replaceChildren(
        title,
        // replaceChildren writes a null as the text "null": nothing is an empty string.
        s.status === "failed" ? h("p", { class: "analysis-error", id: "analysis-error" }, t("analysis.failed")) : "",
        h("p", { class: "analysis-about" }, t("analysis.about")),
        h(
          "button",
          { type: "button", class: "primary", id: "analyse", onclick: () => this.refresh("POST") },
          s.status === "failed" ? t("analysis.retry") : t("analysis.start"),
        ),
      );
      return;
    }
    if (s.status === "queued" || s.status === "running") {
      const { done, total } = s.progress || { done: 0, total: 0 };
      let text = t("analysis.running", { done, total: total || "…" });
      if (s.status === "queued") text = s.ahead ? tn("analysis.ahead", s.ahead) : t("analysis.starting");
      el.replaceChildren(
        title,
        h("progress", {
          id: "analysis-progress",
          max: total || 1,
          value: s.status === "queued" ? 0 : done,
          "aria-label": t("analysis.title"),
        }),
        h("p", { class: "analysis-status", id: "analysis-status" }, text),
      );
      return;
    }
    const a = s.analysis;
    const names = this.page.names();
    const lines = a.seats.map((seat) => {
      const sum = a.summary[String(seat)];
      const marks = [
        tn("analysis.count.inaccuracy", sum.inaccuracy),
        tn("analysis.count.mistake", sum.mistake),
        tn("analysis.count.blunder", sum.blunder),
      ].join(" · ");
      return h(
        "li",
        { dataset: { seat } },
        h("strong", {}, names[seat]),
        " ",
        t("analysis.agreed_count", { agreed: sum.agreed, decisions: sum.decisions }),
        h("br"),
        h("span", { class: "analysis-marks" }, marks),
        h("br"),
        h(
          "span",
          { class: "analysis-average" },
          t("analysis.average", {
            deadwood: amount(sum.average.deadwood.cost, "deadwood"),
            points: amount(sum.average.points.cost, "cost"),
          }),
        ),
      );
    });
    const [a1, a2, a3] = a.thresholds;
    el.replaceChildren(
      title,
      a.seats.length ? h("ul", { class: "analysis-summary", id: "analysis-summary" }, lines) : h("p", {}, t("analysis.nobody")),
      h("p", { class: "analysis-about" }, t("analysis.thresholds", { inaccuracy: a1, mistake: a2, blunder: a3 })),
    );
  }

  /** The note beside the move of `step` (0-based) of `hand`; `upcard` is the card a take took. */
  renderNote(hand, step, upcard) {
    const el = this.note;
    const d = step === null ? null : this.byStep.get(`${hand}:${step}`);
    el.hidden = !d;
    if (!d) {
      el.replaceChildren();
      return;
    }
    el.dataset.mark = d.mark || "";
    el.className = `analysis-note ${d.mark || "agreed"}`;
    const same = JSON.stringify(d.choice) === JSON.stringify(d.action);
    const parts = [];
    if (d.mark) parts.push(h("span", { class: "mark", id: "analysis-mark" }, `${SYMBOLS[d.mark]} ${t(`analysis.mark.${d.mark}`)}`));
    if (same) parts.push(h("span", {}, t("analysis.same")));
    else {
      parts.push(h("span", { class: "analysis-choice" }, t("analysis.expert", { move: moveText(d.choice, upcard) })));
      parts.push(h("span", { class: "analysis-cost", id: "analysis-cost" }, this.costText(d)));
    }
    el.replaceChildren(
      h("p", {}, ...parts.flatMap((p, i) => (i ? [" · ", p] : [p]))),
      d.why && d.why.length ? h("p", { class: "why" }, t("analysis.why", { reason: reasonText(d.why) })) : "",
    );
  }

  costText(d) {
    if (d.cost === null || d.cost === undefined) return t("analysis.no_measure");
    if (!d.cost) return t("analysis.no_worse");
    const params = {
      cost: formatNumber(Math.round(d.cost * 10) / 10),
      yours: amount(d.action_value, d.unit),
      best: amount(d.choice_value, d.unit),
    };
    return d.unit === "points" ? t("analysis.cost_points", params) : t("analysis.cost_deadwood", params);
  }

  /** The marked decisions of `hand` as links to their moves (empty until the analysis is there). */
  handList(hand) {
    if (!this.status || this.status.status !== "done") return "";
    const names = this.page.names();
    const marked = this.status.analysis.decisions.filter((d) => d.hand === hand && d.mark);
    if (!marked.length) return h("p", { class: "analysis-clean" }, t("analysis.hand_clean"));
    return h(
      "ol",
      { class: "analysis-list", id: "analysis-list" },
      marked.map((d) =>
        h(
          "li",
          { class: d.mark },
          h(
            "button",
            { type: "button", class: "link", onclick: () => this.page.go(hand - 1, d.step + 1) },
            t("analysis.list_item", {
              mark: `${SYMBOLS[d.mark]} ${t(`analysis.mark.${d.mark}`)}`,
              name: names[d.seat],
              move: moveText(d.action),
              cost: formatNumber(Math.round(d.cost * 10) / 10),
            }),
          ),
        ),
      ),
    );
  }
}
