// What covers a table of any game for a while: the end of a deal (end.js draws it), the wait for
// the friends of a room, the end of the match, and the page shown when the table cannot be opened.
import { t, tn } from "../i18n.js";
import { copyText, h, toast } from "../ui.js";
import { dealEnd, endShape, matchEnd } from "./end.js";

const SHOWDOWN_SECONDS = 8;
const HOLD_KEY = "gr-showdown-hold"; // "1": showdowns stay open until Continue is pressed

/**
 * The end of a hand over the table (`panel`), until Continue is pressed or its countdown ends (a
 * player may hold it open; one reading the deal's verification keeps it open too). `onClose`
 * runs once when it goes; returns {close}.
 */
function openTimed(table, panel, { over, onClose }) {
  const overlay = h("div", {
    class: "overlay showdown-overlay",
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": "showdown-title",
    id: "showdown",
  });
  const countdown = h("span", { class: "countdown", id: "showdown-countdown" });
  const button = h(
    "button",
    { class: "primary big", id: "showdown-continue", type: "button" },
    over ? t("showdown.see_result") : t("showdown.next_deal"),
  );
  const hold = h("input", { type: "checkbox", id: "showdown-hold", checked: localStorage.getItem(HOLD_KEY) === "1" });
  const holdLabel = h("label", { class: "hold-option" }, hold, h("span", {}, t("showdown.hold")));
  overlay.append(
    h("div", { class: "overlay-box" }, panel, h("div", { class: "overlay-actions" }, over ? null : holdLabel, countdown, button)),
  );
  table.append(overlay);
  let deadline = Date.now() + SHOWDOWN_SECONDS * 1000;
  let timer = null;
  const close = () => {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    overlay.remove();
    onClose();
  };
  const tick = () => {
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    if (hold.checked) {
      countdown.textContent = over ? "" : t("showdown.held");
      return;
    }
    countdown.textContent = over ? "" : t("showdown.countdown", { s: left });
    // Someone reading the deal verification keeps the showdown open until they press the button.
    if (left <= 0 && !overlay.querySelector("details[open]")) close();
  };
  hold.addEventListener("change", () => {
    localStorage.setItem(HOLD_KEY, hold.checked ? "1" : "0");
    if (!hold.checked) deadline = Date.now() + SHOWDOWN_SECONDS * 1000; // a fresh count after unticking
    tick();
  });
  timer = setInterval(tick, 250);
  tick();
  button.addEventListener("click", close);
  overlay.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  button.focus();
  return { close };
}

export class Overlays {
  /** `state`: TableState; `onEndClosed()` runs when the end of a deal goes away. */
  constructor(state, onEndClosed) {
    this.state = state;
    this.onEndClosed = onEndClosed;
    this.table = document.getElementById("table");
    this.shown = null; // {close} while the end of a deal is shown
  }

  get showingEnd() {
    return this.shown !== null;
  }

  /** The end of deal `finished` (a view of it) until Continue or its countdown. */
  openEnd(finished) {
    const { state } = this;
    const number = finished.hand_number;
    this.shown = openTimed(this.table, dealEnd(state, finished), {
      over: state.match && state.match.status === "over",
      onClose: () => {
        state.markEndSeen(number);
        this.shown = null;
        this.onEndClosed();
      },
    });
  }

  /** The end of the match: the result, each player's rating change, rematch, replay. */
  renderEnd() {
    const { state } = this;
    const m = state.match;
    const existing = document.getElementById("end");
    if (m.status !== "over" || !state.result) {
      existing?.remove();
      return;
    }
    // Drawn again when a rematch is asked for, or when the rating changes arrive.
    if (existing && existing.dataset.shape === endShape(state)) return;
    existing?.remove();
    const { overlay, focus } = matchEnd(state);
    this.table.append(overlay);
    focus.focus();
  }

  /** The wait for the friends of a new room, with the link to send them. */
  renderWaiting() {
    const m = this.state.match;
    const existing = document.getElementById("waiting");
    if (m.status !== "waiting") {
      existing?.remove();
      return;
    }
    const key = this.state.twoPlayer ? "" : m.players.map((p) => `${p.kind}:${p.name}`).join();
    if (existing && existing.dataset.key === key) return;
    existing?.remove();
    const box = this.state.twoPlayer ? this.waitingForFriend() : this.waitingForSeats();
    this.table.append(h("div", { class: "overlay", id: "waiting", role: "dialog", "aria-labelledby": "waiting-title", dataset: { key } }, box));
  }

  /** Two-player Gin: the friend to come (the room's link), or the rematch asked for. */
  waitingForFriend() {
    const { state } = this;
    const m = state.match;
    const invited = (m.players || []).find((p) => p.invited);
    if (invited) {
      // A rematch asked for: the friend's seat is kept until they accept.
      const name = state.player(invited.seat).invited;
      return h(
        "div",
        { class: "overlay-box small" },
        h("h2", { id: "waiting-title" }, t("table.waiting_rematch", { name })),
        h("p", {}, t("table.waiting_rematch_hint", { name })),
        h("div", { class: "spinner", "aria-hidden": "true" }),
        h("div", { class: "overlay-actions" }, h("a", { class: "button", href: "/" }, t("nav.home"))),
      );
    }
    const link = m.room_code ? roomLink(m.room_code) : sessionStorage.getItem(`gr-room-${state.matchId}`);
    return h(
      "div",
      { class: "overlay-box small" },
      h("h2", { id: "waiting-title" }, t("table.waiting")),
      link ? h("div", {}, h("p", {}, t("home.share_link")), linkRow(link)) : h("p", {}, t("table.waiting_hint")),
      h("div", { class: "spinner", "aria-hidden": "true" }),
    );
  }

  /** The bigger tables: every seat, taken or free, and the room's link for the friends. */
  waitingForSeats() {
    const { state } = this;
    const m = state.match;
    const free = m.players.filter((p) => p.kind === null);
    const link = m.room_code ? roomLink(m.room_code) : null;
    const invited = m.players.filter((p) => p.invited);
    return h(
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
      link && !invited.length ? h("div", {}, h("p", {}, t("tables.share_link")), linkRow(link)) : null,
      h("div", { class: "spinner", "aria-hidden": "true" }),
      h("div", { class: "overlay-actions" }, h("a", { class: "button", href: "/" }, t("nav.home"))),
    );
  }
}

function roomLink(code) {
  return new URL(`/r/${encodeURIComponent(code)}`, location.origin).href;
}

/** The room's link to copy. */
function linkRow(link) {
  const input = h("input", { readonly: true, value: link || "", id: "waiting-link", "aria-label": t("home.share_link") });
  const copy = async () => toast((await copyText(link, input)) ? t("home.copied") : t("home.copy_failed"));
  return h("div", { class: "row" }, input, h("button", { type: "button", onclick: copy }, t("home.copy")));
}

/**
 * Why a table cannot be opened (by the refusal's code), and the way in: the room's link when it
 * still has a free seat, else home or My matches.
 */
export function fatalPanel(code, joinUrl) {
  const known = ["no_guest", "not_seated", "not_found"].includes(code) ? code : "forbidden";
  const title = joinUrl ? t("table.join_title") : t(`table.fatal.${known}.title`);
  const text = joinUrl ? t("table.join_text") : t(`table.fatal.${known}`);
  const actions = [];
  if (joinUrl) {
    actions.push(h("a", { class: "button primary big", id: "fatal-join", href: joinUrl }, t("table.join")));
  }
  if (known === "not_found") {
    actions.push(h("a", { class: "button", id: "fatal-matches", href: "/matches" }, t("nav.matches")));
  }
  actions.push(
    h("a", { class: joinUrl ? "button" : "button primary", id: "fatal-home", href: "/" }, t("table.fatal.home")),
  );
  return h(
    "div",
    { class: "panel center-panel fatal", dataset: { code: known } },
    h("h2", { id: "fatal-title" }, title),
    h("p", { id: "fatal" }, text),
    h("div", { class: "overlay-actions centered" }, actions),
  );
}
