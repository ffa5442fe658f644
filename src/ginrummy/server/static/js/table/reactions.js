// Quick reactions: a fixed set of emotes (no free text, so nothing to moderate) sent to the other
// players and shown beside the sender's seat for a few seconds. The other player's reactions can be
// muted; the choice is kept in this browser. The server limits how often they may be sent.
import { t } from "../i18n.js";
import { sounds } from "../sound.js";
import { h, toast } from "../ui.js";

export const EMOTES = {
  hello: "\u{1F44B}",
  good_luck: "\u{1F340}",
  nice: "\u{1F44D}",
  wow: "\u{1F62E}",
  oops: "\u{1F605}",
  thinking: "\u{1F914}",
  thanks: "\u{1F64F}",
  gg: "\u{1F91D}",
};
const MUTE_KEY = "gr-mute-reactions";
const SHOWN_MS = 4000;

export class Reactions {
  constructor(state, socket) {
    this.state = state;
    this.socket = socket;
    this.timers = {};
  }

  get muted() {
    return localStorage.getItem(MUTE_KEY) === "1";
  }

  /** Reactions are for a table with another person (a robot does not read them). */
  get available() {
    const m = this.state.match;
    const others = (m && m.players) || [];
    return Boolean(m && m.status !== "waiting" && others.some((p) => p.seat !== this.state.seat && p.kind === "human"));
  }

  attach() {
    const slot = document.getElementById("reactions");
    slot.addEventListener("click", (event) => {
      const emote = event.target.closest("[data-emote]");
      if (emote) {
        this.send(emote.dataset.emote);
        this.close();
        return;
      }
      if (event.target.closest("#reactions-toggle")) this.toggle();
    });
    slot.addEventListener("change", (event) => {
      if (event.target.id === "mute-reactions") {
        localStorage.setItem(MUTE_KEY, event.target.checked ? "1" : "0");
        if (event.target.checked) document.getElementById("bubble-theirs")?.remove();
      }
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.close();
    });
  }

  /** Draw the reactions button (and keep an open menu open). */
  render() {
    const slot = document.getElementById("reactions");
    slot.hidden = !this.available;
    if (!this.available || slot.childElementCount) return;
    const menu = h(
      "div",
      { class: "reactions-menu", id: "reactions-menu", role: "menu", hidden: true },
      h(
        "div",
        { class: "emotes" },
        Object.entries(EMOTES).map(([code, emoji]) =>
          h(
            "button",
            { type: "button", class: "emote", role: "menuitem", dataset: { emote: code }, title: t(`reaction.${code}`) },
            h("span", { class: "emoji", "aria-hidden": "true" }, emoji),
            h("span", { class: "emote-label" }, t(`reaction.${code}`)),
          ),
        ),
      ),
      h(
        "label",
        { class: "mute" },
        h("input", { type: "checkbox", id: "mute-reactions", checked: this.muted }),
        h("span", {}, t("reaction.mute", { name: this.state.opponentName() })),
      ),
    );
    slot.replaceChildren(
      h(
        "button",
        {
          type: "button",
          class: "chip reactions-toggle",
          id: "reactions-toggle",
          "aria-haspopup": "menu",
          "aria-expanded": "false",
          "aria-controls": "reactions-menu",
          title: t("reaction.title"),
        },
        h("span", { "aria-hidden": "true" }, "\u{1F642}"),
        h("span", { class: "sr-only" }, t("reaction.title")),
      ),
      menu,
    );
  }

  toggle() {
    const menu = document.getElementById("reactions-menu");
    if (!menu) return;
    menu.hidden = !menu.hidden;
    document.getElementById("reactions-toggle").setAttribute("aria-expanded", String(!menu.hidden));
    if (!menu.hidden) menu.querySelector("[data-emote]").focus();
  }

  close() {
    const menu = document.getElementById("reactions-menu");
    if (menu && !menu.hidden) this.toggle();
  }

  send(code) {
    if (!this.socket.sendMessage({ type: "react", emote: code })) toast(t("table.offline"), "error");
  }

  /** A reaction arrived (the player's own comes back too): show it by the sender's seat. */
  show({ seat, emote }) {
    if (!(emote in EMOTES)) return;
    const mine = seat === this.state.seat;
    if (!mine && this.muted) return;
    const id = mine ? "bubble-mine" : "bubble-theirs";
    document.getElementById(id)?.remove();
    const bubble = h(
      "div",
      { class: `bubble ${mine ? "mine" : "theirs"}`, id, role: "status", dataset: { emote } },
      h("span", { class: "emoji", "aria-hidden": "true" }, EMOTES[emote]),
      h("span", {}, mine ? t(`reaction.${emote}`) : t("reaction.from", { name: this.state.player(seat).name, text: t(`reaction.${emote}`) })),
    );
    document.getElementById("table").append(bubble);
    if (!mine) sounds.play("reaction");
    clearTimeout(this.timers[id]);
    this.timers[id] = setTimeout(() => bubble.remove(), SHOWN_MS);
  }
}
