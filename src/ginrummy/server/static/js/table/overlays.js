// What covers the table for a while: the showdown of a finished hand, the wait for a friend,
// the end of the match, and the page shown when the table cannot be opened at all.
import { api, describeError } from "../api.js";
import { formatNumber, t, tn } from "../i18n.js";
import { ratingChange } from "../compete.js";
import { showdownPanel } from "../showdown.js";
import { copyText, h, toast } from "../ui.js";

const SHOWDOWN_SECONDS = 8;
const HOLD_KEY = "gr-showdown-hold"; // "1": showdowns stay open until Continue is pressed

/**
 * The end of a hand over the table (`panel`), until Continue is pressed or its countdown ends (a
 * player may hold it open; one reading the deal's verification keeps it open too). `onClose`
 * runs once when it goes; returns {close}.
 */
export function openTimed(table, panel, { over, onClose }) {
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
  /** `state`: TableState; `onShowdownClosed()` runs when a showdown goes away. */
  constructor(state, onShowdownClosed) {
    this.state = state;
    this.onShowdownClosed = onShowdownClosed;
    this.table = document.getElementById("table");
    this.showdown = null; // {close} while a showdown is shown
  }

  get showingEnd() {
    return this.showdown !== null;
  }

  /** Show the showdown of `finished` (a hand view with its showdown) until Continue or its countdown. */
  openEnd(finished) {
    const { state } = this;
    const panel = showdownPanel(finished.showdown, {
      names: state.names(),
      textNames: state.names(true),
      published: state.commitments[finished.hand_number],
      targetScore: state.target(),
    });
    this.showdown = openTimed(this.table, panel, {
      over: state.match && state.match.status === "over",
      onClose: () => {
        this.state.markEndSeen(finished.hand_number);
        this.showdown = null;
        this.onShowdownClosed();
      },
    });
  }

  /** The wait for the friend of a new room, with the link to send them. */
  renderWaiting() {
    const m = this.state.match;
    const existing = document.getElementById("waiting");
    if (m.status !== "waiting") {
      existing?.remove();
      return;
    }
    if (existing) return;
    const invited = (m.players || []).find((p) => p.invited);
    if (invited) {
      // A rematch asked for: the friend's seat is kept until they accept.
      const name = this.state.player(invited.seat).invited;
      this.table.append(
        h(
          "div",
          { class: "overlay", id: "waiting", role: "dialog", "aria-labelledby": "waiting-title" },
          h(
            "div",
            { class: "overlay-box small" },
            h("h2", { id: "waiting-title" }, t("table.waiting_rematch", { name })),
            h("p", {}, t("table.waiting_rematch_hint", { name })),
            h("div", { class: "spinner", "aria-hidden": "true" }),
            h("div", { class: "overlay-actions" }, h("a", { class: "button", href: "/" }, t("nav.home"))),
          ),
        ),
      );
      return;
    }
    const link = m.room_code
      ? new URL(`/r/${encodeURIComponent(m.room_code)}`, location.origin).href
      : sessionStorage.getItem(`gr-room-${this.state.matchId}`);
    const input = h("input", { readonly: true, value: link || "", id: "waiting-link", "aria-label": t("home.share_link") });
    const copy = async () => toast((await copyText(link, input)) ? t("home.copied") : t("home.copy_failed"));
    this.table.append(
      h(
        "div",
        { class: "overlay", id: "waiting", role: "dialog", "aria-labelledby": "waiting-title" },
        h(
          "div",
          { class: "overlay-box small" },
          h("h2", { id: "waiting-title" }, t("table.waiting")),
          link
            ? h(
                "div",
                {},
                h("p", {}, t("home.share_link")),
                h("div", { class: "row" }, input, h("button", { type: "button", onclick: copy }, t("home.copy"))),
              )
            : h("p", {}, t("table.waiting_hint")),
          h("div", { class: "spinner", "aria-hidden": "true" }),
        ),
      ),
    );
  }

  /** The end of the match: the result, bonuses, each player's rating change, rematch, replay. */
  renderEnd() {
    const { state } = this;
    const m = state.match;
    const existing = document.getElementById("end");
    if (m.status !== "over" || !state.result) {
      existing?.remove();
      return;
    }
    // Drawn again when a rematch is asked for, or when the rating changes arrive.
    const shape = `${m.rematch_id || ""}|${m.ratings ? "rated" : ""}`;
    if (existing && existing.dataset.shape === shape) return;
    existing?.remove();
    const r = state.result;
    const seat = state.seat;
    const n = state.names(true);
    const title =
      r.ended === "aborted"
        ? t("end.aborted")
        : r.winner === null || r.winner === undefined
          ? t("end.draw")
          : r.winner === seat
            ? t("end.you_win")
            : t("end.they_win", { name: state.opponentName() });
    const bonuses = [];
    for (const key of ["game_bonus", "box_bonus", "shutout_bonus"]) {
      for (const s of [0, 1]) {
        if (r[key] && r[key][s]) bonuses.push(t(`end.${key}`, { name: n[s], n: r[key][s] }));
      }
    }
    const rematch = h("button", { type: "button", class: "primary big", id: "rematch" }, t("end.rematch"));
    rematch.addEventListener("click", async () => {
      // Asking and accepting are the same request: between two people the rematch starts when both did.
      rematch.disabled = true;
      try {
        const made = await api("POST", `/api/matches/${encodeURIComponent(state.matchId)}/rematch`);
        location.assign(made.url || `/m/${made.match_id}`);
      } catch (error) {
        toast(describeError(error), "error");
        rematch.disabled = false;
      }
    });
    // A tournament pairs the next match itself: the way back to it, never a rematch. A bot accepts
    // each match itself: it is challenged again from its profile.
    const opponent = state.player(1 - seat);
    let again = rematch;
    if (m.tournament_id) {
      again = h("a", { class: "button primary big", id: "back-tournament", href: `/t/${encodeURIComponent(m.tournament_id)}` }, t("forfeit.back_tournament"));
    } else if (opponent.bot) {
      again = h("a", { class: "button primary big", id: "challenge-again", href: `/@/${encodeURIComponent(opponent.name)}` }, t("bots.challenge_again"));
    }
    const shown = state.names();
    // Lichess's end of a rated game: each player's new rating, "?" while provisional, and the change.
    const ratings = m.ratings
      ? h(
          "div",
          { class: "end-ratings", id: "end-ratings", role: "group", "aria-label": t("end.ratings") },
          [seat, 1 - seat].map((s) =>
            m.ratings[s]
              ? h(
                  "p",
                  { class: "end-rating", dataset: { seat: s }, id: s === seat ? "end-rating-mine" : "end-rating-theirs" },
                  h("span", { class: "who" }, shown[s]),
                  " ",
                  ratingChange(m.ratings[s]),
                )
              : null,
          ),
        )
      : null;
    this.table.append(
      h(
        "div",
        {
          class: "overlay end-overlay",
          id: "end",
          role: "dialog",
          "aria-labelledby": "end-title",
          dataset: { shape },
        },
        h(
          "div",
          { class: `overlay-box end ${r.winner === seat ? "won" : "lost"}` },
          h(
            "div",
            { class: "trophy", "aria-hidden": "true" },
            r.winner === seat ? "\u2605\u2605\u2605" : "\u2660\u2665\u2666\u2663",
          ),
          h("h2", { id: "end-title" }, title),
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
          ratings,
          m.rematch_id && !m.tournament_id && state.player(1 - seat).kind === "human"
            ? h("p", { class: "rematch-ready", id: "rematch-asked" }, t("end.rematch_asked", { name: state.opponentName() }))
            : null,
          h(
            "div",
            { class: "overlay-actions" },
            again,
            h(
              "a",
              { class: "button", id: "open-replay", href: `/replay/${encodeURIComponent(state.matchId)}` },
              t("end.replay"),
            ),
            h("a", { class: "button", href: "/" }, t("nav.home")),
          ),
        ),
      ),
    );
    again.focus();
  }

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
