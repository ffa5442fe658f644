// The table page: wires the match socket, the match state, the rendering and the input together.
//
// Each part has one job and its own module under table/:
//   socket.js   the WebSocket: connect, reconnect with backoff, ping, send moves
//   state.js    the latest state from the server and the facts derived from it
//   choices.js  the player's choices about the hand: selected card, sort, own order
//   render.js   the table drawn from the state (scores, seats, piles, hand, buttons, status)
//   overlays.js showdown, waiting for a friend, end of the match, a table that cannot open
//   input.js    clicks, keys and drag and drop turned into moves and choices
import { hasText, t } from "./i18n.js";
import { startPage, toast } from "./ui.js";
import { HandChoices } from "./table/choices.js";
import { Input } from "./table/input.js";
import { Overlays } from "./table/overlays.js";
import { Board } from "./table/render.js";
import { MatchSocket } from "./table/socket.js";
import { TableState } from "./table/state.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

await startPage("table");

const state = new TableState(matchId);
const choices = new HandChoices(state.memory);
const overlays = new Overlays(state, () => update());
const socket = new MatchSocket(matchId, {
  message: onMessage,
  status: (seconds) => board.setConnection(seconds),
  change: () => {
    board.setPending(socket.pending);
    if (state.match && !overlays.showingShowdown) board.renderControls();
  },
  fatal: (code) => fail(code === "not_found" ? t("table.not_found") : t("table.forbidden")),
});
const board = new Board(state, choices, socket);
const input = new Input({ state, choices, socket, board, blocked: () => overlays.showingShowdown });

/** Show what the state holds: a showdown not seen yet first, else the table and its overlays. */
function update() {
  if (overlays.showingShowdown || !state.message) return;
  const finished = state.unseenShowdown();
  if (finished) {
    overlays.openShowdown(finished);
    return;
  }
  board.render();
  overlays.renderWaiting();
  overlays.renderEnd();
}

function onMessage(message) {
  if (message.type === "state") {
    if (state.update(message)) choices.newDeal();
    if (state.view) choices.keepTo(state.view.hand);
    update();
  } else if (message.type === "error") {
    const key = `ws.${message.code}`;
    const local = hasText(key) ? t(key) : t("ws.generic");
    const text = message.message ? `${local} ${message.message}` : local;
    toast(text, "error", 6000);
    board.setStatusNote(text);
    if (message.code === "forbidden") {
      socket.stop();
      fail(text);
    }
  }
}

function fail(text) {
  board.setConnection(null);
  overlays.showFatal(text);
}

document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
document.getElementById("keys-help").textContent = t("table.keys_help");
board.renderSort();
input.attach();
setInterval(() => board.updateClocks(), 250);
document.getElementById("status").textContent = t("table.connecting");
socket.connect();
