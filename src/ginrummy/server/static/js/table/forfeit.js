// Leaving a match with a stranger: Abort (free until both have moved) or Resign (loses the match),
// and the reason on the end screen when a match ended that way.
import { t } from "../i18n.js";
import { ask, h } from "../ui.js";

export class Forfeit {
  constructor(state, socket) {
    this.state = state;
    this.socket = socket;
  }

  /** The Abort / Resign button under the table while the server allows one. */
  render() {
    const m = this.state.match;
    let bar = document.getElementById("forfeit");
    if (!m || !(m.abortable || m.resignable)) {
      bar?.remove();
      return;
    }
    const kind = m.abortable ? "abort" : "resign";
    if (bar && bar.dataset.kind === kind) return;
    bar?.remove();
    const button = h("button", { type: "button", id: `${kind}-match`, class: kind === "resign" ? "danger" : "" }, t(`forfeit.${kind}`));
    button.addEventListener("click", async () => {
      const sure = await ask({
        title: t(`forfeit.${kind}_title`),
        body: t(`forfeit.${kind}_body`),
        buttons: [
          { label: t("forfeit.cancel"), value: "no" },
          { label: t(`forfeit.${kind}`), value: "yes", class: "primary" },
        ],
      });
      if (sure === "yes") this.socket.sendMessage({ type: kind });
    });
    bar = h("div", { id: "forfeit", class: "forfeit-bar", dataset: { kind } }, m.rated ? h("span", { class: "rated-mark" }, t("forfeit.rated")) : null, button);
    document.getElementById("table").append(bar);
  }

  /** "Ann resigned" / "aborted" / "Ann left the match" on the end screen. */
  decorateEnd() {
    const r = this.state.result;
    const end = document.querySelector("#end .overlay-box");
    if (!end || !r || !r.ended || end.querySelector(".ended-reason")) return;
    const name = this.state.names(true)[r.by] ?? "";
    const text = r.by === this.state.seat ? t(`forfeit.you_${r.ended}`) : t(`forfeit.they_${r.ended}`, { name });
    const notes = [h("p", { class: "ended-reason" }, text)];
    // A rated match aborted (a resignation before both players had moved, too) changes no rating.
    if (r.ended === "aborted" && this.state.match?.rated) notes.push(h("p", { class: "ended-reason", id: "ended-unrated" }, t("forfeit.aborted_unrated")));
    end.querySelector("h2")?.after(...notes);
  }
}
