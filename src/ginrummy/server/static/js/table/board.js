// The whole table of any game drawn from the state: the seats around it (seats.js), the middle
// (center.js), this seat's hand and buttons (hand.js) and the clocks. It reads the state and never
// changes it.
import { t } from "../i18n.js";
import { tickDeadlines } from "../ui.js";
import { CenterView } from "./center.js";
import { HandView } from "./hand.js";
import { SeatsView } from "./seats.js";

export class Board {
  /** `state`: TableState; `choices`: HandChoices; `picks`: Picks; `socket`: MatchSocket (for `busy`). */
  constructor(state, choices, picks, socket) {
    this.state = state;
    this.table = document.getElementById("table");
    this.seats = new SeatsView(state);
    this.center = new CenterView(state, picks);
    this.hand = new HandView(state, choices, picks, socket);
    this.stopped = false;
  }

  /** The table was closed for good: nothing is drawn into it any more. */
  stop() {
    this.stopped = true;
    clearTimeout(this.center.noteTimer);
  }

  /** Draw everything, keeping the keyboard focus where it was. */
  render() {
    const { state } = this;
    const m = state.match;
    if (!m || this.stopped) return;
    const focused = document.activeElement;
    const focusKey = focused && (focused.dataset.card ? `card:${focused.dataset.card}` : focused.id ? `id:${focused.id}` : null);
    const table = this.table;
    const v = state.view;
    table.dataset.game = state.game;
    table.dataset.phase = state.twoPlayer ? (v ? v.phase : "none") : state.phase();
    table.dataset.status = m.status;
    table.dataset.version = String(state.version);
    table.dataset.hand = v ? String(v.hand_number) : "";
    table.dataset.seats = String(state.seats);
    table.classList.toggle("my-turn", state.myTurn());
    // Each game's own keys: Rummy's melds, lay-offs and going out; Gin's pass and knock; hints.
    const keys = t(state.rummy ? "tables.keys_rummy" : "table.keys_help");
    document.getElementById("keys-help").textContent = m.hints ? `${keys} · ${t("table.keys_hint")}` : keys;
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

  renderSort() {
    this.hand.renderSort();
  }

  renderControls() {
    this.hand.renderControls();
  }

  renderCoach() {
    this.hand.renderCoach();
  }

  renderLastMoves() {
    this.center.renderLastMoves();
  }

  /** A refused move, shown for a few seconds where the last moves are. */
  setNote(text) {
    this.center.setNote(text);
  }

  /** Count every clock down (a few times a second). */
  updateClocks() {
    tickDeadlines(this.table);
  }
}
