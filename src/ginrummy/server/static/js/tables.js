// The table page of three-player Gin, team Gin and Rummy: wires the match socket, the game state,
// the drawing and the input together (each part has one job and its own module under tables/;
// the socket, the hand's sort and order, reactions and knocking are the two-player table's own).
//   tables/state.js    the latest state and the facts derived from it
//   tables/board.js    the table drawn: tables/seats.js (the people around), tables/center.js
//                      (piles, melds, the other hand, status) and tables/hand.js (cards, buttons)
//   tables/picks.js    the cards picked in the hand
//   tables/input.js    taps, keys and drag and drop turned into moves
//   tables/overlays.js the end of a deal, the wait for friends, the end of the game
import { hasText, t } from "./i18n.js";
import { sounds } from "./sound.js";
import { startPage, toast } from "./ui.js";
import { HandChoices } from "./table/choices.js";
import { Reactions } from "./table/reactions.js";
import { MatchSocket } from "./table/socket.js";
import { TableBoard } from "./tables/board.js";
import { TableInput } from "./tables/input.js";
import { TableOverlays } from "./tables/overlays.js";
import { Picks } from "./tables/picks.js";
import { GameState } from "./tables/state.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const FATAL = new Set(["no_guest", "not_seated", "not_found", "forbidden"]);

await startPage("table");

const state = new GameState(matchId);
const choices = new HandChoices(state.memory);
const picks = new Picks();
const overlays = new TableOverlays(state, () => update());
const socket = new MatchSocket(matchId, {
  message: onMessage,
  status: (seconds) => board.setConnection(seconds),
  change: () => {
    board.setPending(socket.pending);
    if (state.match && !overlays.showingEnd) board.renderControls();
  },
  fatal: (code) => fail(code),
});
const board = new TableBoard(state, choices, picks, socket);
const reactions = new Reactions(state, socket);
const input = new TableInput({ state, choices, picks, socket, board, blocked: () => overlays.showingEnd });

/** Show what the state holds: the end of a deal not seen yet first, else the table and its overlays. */
function update() {
  if (overlays.showingEnd || !state.message) return;
  const finished = state.unseenEnd();
  if (finished) {
    overlays.openEnd(finished);
    sounds.play("knock");
    return;
  }
  board.render();
  overlays.renderWaiting();
  overlays.renderEnd();
  reactions.render();
}

function onMessage(message) {
  if (message.type === "state" && state.isStale(message)) return; // never go back to an older table
  if (message.type === "state") {
    const wasMine = state.myTurn();
    const before = state.version;
    if (state.update(message)) {
      choices.newDeal();
      picks.clear();
    }
    picks.several = state.rummy;
    picks.keepTo(state.hand());
    for (const seat of state.timedOut) {
      toast(seat === state.seat ? t("table.timeout_mine") : t("table.timeout_theirs", { name: state.nameOf(seat) }), "info", 6000);
    }
    if (before !== undefined && state.version !== before) sounds.play(state.myTurn() && !wasMine ? "turn" : "card");
    update();
  } else if (message.type === "error") {
    if (FATAL.has(message.code)) {
      socket.stop();
      fail(message.code, message.join_url);
      return;
    }
    const text = hasText(`ws.${message.code}`) ? t(`ws.${message.code}`) : t("ws.generic");
    toast(text, "error", 6000);
    board.setNote(text);
  } else if (message.type === "reaction") {
    reactions.show(message);
  }
}

let failed = false;
function fail(code, joinUrl) {
  if (failed) return;
  failed = true;
  board.stop();
  board.setConnection(null);
  overlays.showFatal(code, joinUrl);
}

document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
board.hand.renderSort();
input.attach();
reactions.attach();
setInterval(() => board.updateClocks(), 250);
document.getElementById("status").textContent = t("table.connecting");
socket.connect();
