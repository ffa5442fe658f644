// The table page: wires the match socket, the match state, the rendering and the input together.
//
// Each part has one job and its own module under table/:
//   socket.js   the WebSocket: connect, reconnect with backoff, ping, send moves
//   state.js    the latest state from the server and the facts derived from it
//   choices.js  the player's choices about the hand: selected card, sort, own order
//   render.js   the table drawn from the state (scores, seats, piles, hand, buttons, status)
//   overlays.js showdown, waiting for a friend, end of the match, a table that cannot open
//   input.js    clicks, keys and drag and drop turned into moves and choices
//   motion.js   cards gliding from where they were to where they are (draw, discard)
//   reactions.js quick reactions: the fixed set of emotes, shown and sent, mutable
//   forfeit.js  aborting or resigning a match with a stranger
// Hints (casual matches): the Hint button and H ask the server; the state keeps the answer for its
// position, and the board marks the move and writes its reason (reasons.js) where the last moves are.
import { hasText, t } from "./i18n.js";
import { sounds } from "./sound.js";
import { startPage, toast } from "./ui.js";
import { HandChoices } from "./table/choices.js";
import { Input } from "./table/input.js";
import { Motion } from "./table/motion.js";
import { Overlays } from "./table/overlays.js";
import { Reactions } from "./table/reactions.js";
import { Forfeit } from "./table/forfeit.js";
import { Board } from "./table/render.js";
import { MatchSocket } from "./table/socket.js";
import { TableState } from "./table/state.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
// Refusals that close the table for good: the page says why and offers the way in.
const FATAL = new Set(["no_guest", "not_seated", "not_found", "forbidden"]);

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
  fatal: (code) => fail(code),
});
const board = new Board(state, choices, socket);
const reactions = new Reactions(state, socket);
const motion = new Motion();
const forfeit = new Forfeit(state, socket);
const input = new Input({ state, choices, socket, board, blocked: () => overlays.showingShowdown });

/** Show what the state holds: a showdown not seen yet first, else the table and its overlays. */
function update() {
  if (overlays.showingShowdown || !state.message) return;
  const finished = state.unseenShowdown();
  if (finished) {
    overlays.openShowdown(finished);
    sounds.play(finished.showdown && finished.showdown.outcome === "gin" ? "gin" : "knock");
    return;
  }
  motion.capture();
  board.render();
  motion.play();
  overlays.renderWaiting();
  overlays.renderEnd();
  reactions.render();
  forfeit.render();
  forfeit.decorateEnd();
}

function onMessage(message) {
  if (message.type === "state" && state.isStale(message)) return; // never go back to an older table
  if (message.type === "state") {
    const wasMine = state.myTurn();
    const before = state.version;
    if (state.update(message)) choices.newDeal();
    if (state.view) choices.keepTo(state.view.hand);
    for (const seat of state.timedOut) {
      toast(seat === state.seat ? t("table.timeout_mine") : t("table.timeout_theirs", { name: state.opponentName() }), "info", 6000);
    }
    if (before !== undefined && state.version !== before) sounds.play(state.myTurn() && !wasMine ? "turn" : "card");
    update();
  } else if (message.type === "hint") {
    state.setHint(message);
    if (!overlays.showingShowdown) board.render();
  } else if (message.type === "error") {
    state.hintAsked = null; // a refused hint (or any refusal) leaves nothing to wait for
    if (FATAL.has(message.code)) {
      socket.stop();
      fail(message.code, message.join_url);
      return;
    }
    const text = wsErrorText(message.code);
    toast(text, "error", 6000);
    board.setStatusNote(text);
  } else if (message.type === "reaction") {
    reactions.show(message);
  }
}

/** The text for a refusal's stable code, in the page's language. */
function wsErrorText(code) {
  const key = `ws.${code}`;
  return hasText(key) ? t(key) : t("ws.generic");
}

let failed = false;
/** The table cannot be opened (the first reason given is the one shown). */
function fail(code, joinUrl) {
  if (failed) return;
  failed = true;
  board.stop();
  board.setConnection(null);
  overlays.showFatal(code, joinUrl);
}

document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
document.getElementById("keys-help").textContent = t("table.keys_help");
board.renderSort();
input.attach();
reactions.attach();
setInterval(() => board.updateClocks(), 250);
document.getElementById("status").textContent = t("table.connecting");
socket.connect();
