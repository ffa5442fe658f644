// The whole table drawn from the state: the seats around it, the middle, this seat's hand and
// buttons, the connection line and the clocks. It reads the state and never changes it.
import { t } from "../i18n.js";
import { tickDeadlines } from "../ui.js";
import { CenterView } from "./center.js";
import { HandView } from "./hand.js";
import { SeatsView } from "./seats.js";

export class TableBoard {
  constructor(state, choices, picks, socket) {
    this.state = state;
    this.picks = picks;
    this.table = document.getElementById("table");
    this.seats = new SeatsView(state);
    this.center = new CenterView(state, picks);
    this.hand = new HandView(state, choices, picks, socket);
    this.stopped = false;
  }

  stop() {
    this.stopped = true;
  }

  /** Draw everything, keeping the keyboard focus where it was. */
  render() {
    const { state } = this;
    const m = state.match;
    if (!m || this.stopped) return;
    const focused = document.activeElement;
    const focusKey = focused && (focused.dataset.card ? `card:${focused.dataset.card}` : focused.id ? `id:${focused.id}` : null);
    const table = this.table;
    table.dataset.game = state.game;
    table.dataset.phase = state.phase();
    table.dataset.status = m.status;
    table.dataset.version = String(state.version);
    table.dataset.hand = state.view ? String(state.view.hand_number) : "";
    table.dataset.seats = String(state.seats);
    table.classList.toggle("my-turn", state.myTurn());
    // Each game's own keys: Rummy's melds, lay-offs and going out; Gin's pass and knock.
    document.getElementById("keys-help").textContent = t(state.rummy ? "tables.keys_rummy" : "table.keys_help");
    this.seats.render();
    this.center.render();
    this.hand.render();
    this.updateClocks();
    if (focusKey) {
      const cut = focusKey.indexOf(":");
      const [kind, key] = [focusKey.slice(0, cut), focusKey.slice(cut + 1)];
      const again = kind === "card" ? document.querySelector(`#hand [data-card="${key}"]`) : document.getElementById(key);
      if (again && again !== document.activeElement) again.focus();
    }
  }

  /** The hand (and what depends on the picked cards) after a choice; `sorted`: the order changed too. */
  redrawHand(sorted) {
    if (sorted) this.hand.renderSort();
    this.hand.render();
    this.center.renderMelds();
  }

  /** While a card is dragged: the melds it may be laid off on light up (null: none). */
  showLayoffTargets(card) {
    const fits = new Set(card ? this.state.layoffsOf(card) : []);
    for (const spot of document.querySelectorAll("#melds [data-meld]")) {
      spot.classList.toggle("drop-target", fits.has(Number(spot.dataset.meld)));
    }
  }

  renderControls() {
    this.hand.renderControls();
  }

  setNote(text) {
    this.center.setNote(text);
  }

  /** Count every clock down (a few times a second). */
  updateClocks() {
    tickDeadlines(this.table);
  }
}
