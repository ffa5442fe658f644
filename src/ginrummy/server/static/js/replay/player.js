// Playing a replay back, whatever the game: the position (deal and step), the buttons, the
// selects (deal, perspective), autoplay and keys, and the address of the position (#h2s14).
// What a position looks like is the game's own: `draw(deal, frame, perspective)` puts it on the
// board and returns the step's text; `side(deal)` fills the list of deals beside it.
import { t } from "../i18n.js";
import { h } from "../ui.js";

const ICONS = {
  first: "M4 5h2v14H4zM13 5v14L6 12zM21 5v14l-7-7z",
  back: "M16 5v14L7 12z",
  play: "M8 5v14l11-7z",
  pause: "M7 5h4v14H7zM13 5h4v14h-4z",
  step: "M6 5v14l9-7zM16 5h2v14h-2z",
  last: "M3 5v14l7-7zM11 5v14l7-7zM18 5h2v14h-2z",
};

function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

export class ReplayPlayer {
  /**
   * `deals`: [{frames: [...]}, ...]; `perspectives`: [{value, label}] ("all" first);
   * `draw(deal, frame, perspective)` → the step's text; `side(deal)` fills #replay-side.
   */
  constructor({ deals, perspectives, draw, side, onPerspective = () => {} }) {
    this.deals = deals;
    this.perspectives = perspectives;
    this.draw = draw;
    this.side = side;
    this.onPerspective = onPerspective;
    this.deal = 0;
    this.frame = 0;
    this.perspective = "all";
    this.timer = null;
    this.sideDeal = -1;
  }

  start() {
    this.controls();
    const fromHash = () => {
      const m = /^#h(\d+)s(\d+)$/.exec(location.hash);
      if (m) this.go(Number(m[1]) - 1, Number(m[2]));
      return Boolean(m);
    };
    if (!fromHash()) this.go(0, 0);
    // A link to a position (#h2s14) opened on this page goes there.
    window.addEventListener("hashchange", fromHash);
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  /** Show the position again (`side`: the list beside it too, e.g. when what it shows changed). */
  render({ side = false } = {}) {
    const deal = this.deals[this.deal];
    const frames = deal.frames;
    document.getElementById("replay-step").textContent = this.draw(deal, frames[this.frame], this.perspective);
    document.getElementById("replay-position").textContent = t("replay.position", {
      hand: this.deal + 1,
      hands: this.deals.length,
      step: this.frame,
      steps: frames.length - 1,
    });
    document.getElementById("hand-select").value = String(this.deal);
    const last = this.deals.length - 1;
    for (const [id, disabled] of [
      ["prev-hand", this.deal === 0 && this.frame === 0],
      ["prev-step", this.deal === 0 && this.frame === 0],
      ["next-step", this.deal === last && this.frame === frames.length - 1],
      ["next-hand", this.deal === last],
    ]) {
      document.getElementById(id).disabled = disabled;
    }
    if (side || this.sideDeal !== this.deal || !document.getElementById("replay-side").childElementCount) {
      this.sideDeal = this.deal;
      this.side(this.deal);
    }
    history.replaceState(null, "", `#h${this.deal + 1}s${this.frame}`);
  }

  go(deal, frame) {
    this.deal = Math.max(0, Math.min(this.deals.length - 1, deal));
    const count = this.deals[this.deal].frames.length;
    this.frame = frame < 0 ? count - 1 : Math.min(frame, count - 1);
    this.render();
  }

  stepBy(delta) {
    const frames = this.deals[this.deal].frames;
    const next = this.frame + delta;
    if (next >= frames.length) {
      if (this.deal < this.deals.length - 1) this.go(this.deal + 1, 0);
      else this.stopPlay();
    } else if (next < 0) {
      if (this.deal > 0) this.go(this.deal - 1, -1);
    } else this.go(this.deal, next);
  }

  stopPlay() {
    clearInterval(this.timer);
    this.timer = null;
    const b = document.getElementById("play");
    if (b) {
      b.replaceChildren(icon("play"));
      b.setAttribute("aria-label", t("replay.play"));
      b.setAttribute("aria-pressed", "false");
    }
  }

  togglePlay() {
    if (this.timer) return this.stopPlay();
    this.timer = setInterval(() => this.stepBy(1), 900);
    const b = document.getElementById("play");
    b.replaceChildren(icon("pause"));
    b.setAttribute("aria-label", t("replay.pause"));
    b.setAttribute("aria-pressed", "true");
  }

  controls() {
    const button = (id, label, text, onclick) =>
      h("button", { type: "button", id, "aria-label": label, title: label, onclick }, text);
    const dealSelect = h(
      "select",
      { id: "hand-select", "aria-label": t("replay.choose_hand") },
      this.deals.map((_, k) => h("option", { value: k }, t("replay.hand_title", { n: k + 1 }))),
    );
    dealSelect.addEventListener("change", () => this.go(Number(dealSelect.value), 0));
    const perspective = h(
      "select",
      { id: "perspective", "aria-label": t("replay.perspective") },
      this.perspectives.map((p) => h("option", { value: p.value }, p.label)),
    );
    perspective.addEventListener("change", () => {
      this.perspective = perspective.value;
      this.onPerspective(perspective.value);
      this.render();
    });
    document.getElementById("replay-controls").replaceChildren(
      h(
        "div",
        { class: "buttons" },
        button("prev-hand", t("replay.prev_hand"), icon("first"), () => (this.frame > 0 ? this.go(this.deal, 0) : this.go(this.deal - 1, 0))),
        button("prev-step", t("replay.prev_step"), icon("back"), () => this.stepBy(-1)),
        button("play", t("replay.play"), icon("play"), () => this.togglePlay()),
        button("next-step", t("replay.next_step"), icon("step"), () => this.stepBy(1)),
        button("next-hand", t("replay.next_hand"), icon("last"), () => this.go(this.deal + 1, 0)),
      ),
      h("div", { class: "selects" }, dealSelect, perspective),
      h("p", { class: "step-text", id: "replay-step", "aria-live": "polite" }),
      h("p", { class: "position", id: "replay-position" }),
      h("p", { class: "keys-help" }, t("replay.keys_help")),
    );
  }

  onKey(event) {
    if (event.target.closest("input, select, textarea")) return;
    const keys = {
      ArrowRight: () => this.stepBy(1),
      ArrowLeft: () => this.stepBy(-1),
      ArrowDown: () => this.go(this.deal + 1, 0),
      PageDown: () => this.go(this.deal + 1, 0),
      ArrowUp: () => this.go(this.deal - 1, 0),
      PageUp: () => this.go(this.deal - 1, 0),
      Home: () => this.go(this.deal, 0),
      End: () => this.go(this.deal, -1),
    };
    if (keys[event.key]) {
      event.preventDefault();
      this.stopPlay();
      keys[event.key]();
    }
  }
}
