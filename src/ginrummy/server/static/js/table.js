// The table page of every game (two-player Gin, three-player Gin, team Gin, Rummy at three to six
// seats): wires the match socket, the match state, the drawing and the input together. The first
// state says which game it is; the page keeps that game's parts (`shapePage`).
//
// Each part has one job and its own module under table/:
//   socket.js    the WebSocket: connect, reconnect with backoff, ping, send moves
//   state.js     the latest state from the server and the facts derived from it, for every game
//   choices.js   the player's choices about the hand: the cards picked, the sort, their own order
//   board.js     the table drawn from the state: seats.js the people around (scores, the other
//                seats), center.js the middle (piles, melds, status), hand.js the cards and buttons
//   overlays.js  the end of a deal, waiting for friends, the end of the match, a table that cannot open
//   end.js       what the ends of a deal and of the match say, for each game
//   input.js     clicks, keys and drag and drop (card-drag.js) turned into moves and choices
//   knock.js     the card to knock with, and the confirmation asked first (every Gin table)
//   reactions.js quick reactions: the fixed set of emotes, shown and sent, mutable
// and two-player Gin's own:
//   motion.js    cards gliding from where they were to where they are (draw, discard)
//   forfeit.js   aborting or resigning a match with a stranger
// Hints (casual matches): the Hint button and H ask the server; the state keeps the answer for its
// position, and the board marks the move and writes its reason (reasons.js) where the last moves are.
import { hasText, t } from "./i18n.js";
import { sounds } from "./sound.js";
import { startPage, tickDeadlines, toast } from "./ui.js";
import { HandChoices, Picks } from "./table/choices.js";
import { Forfeit } from "./table/forfeit.js";
import { Input } from "./table/input.js";
import { Motion } from "./table/motion.js";
import { Overlays, fatalPanel } from "./table/overlays.js";
import { Reactions } from "./table/reactions.js";
import { Board } from "./table/board.js";
import { MatchSocket } from "./table/socket.js";
import { TableState } from "./table/state.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
// Refusals that close the table for good: the page says why and offers the way in.
const FATAL = new Set(["no_guest", "not_seated", "not_found", "forbidden"]);

await startPage("table");

const table = document.getElementById("table");
const state = new TableState(matchId);
const choices = new HandChoices(state.memory);
const picks = new Picks();
const socket = new MatchSocket(matchId, {
  message: onMessage,
  status: (seconds) => setConnection(seconds),
  change: () => {
    table.classList.toggle("pending", socket.pending);
    if (state.match && !overlays.showingEnd) board.renderControls();
  },
  fatal: (code) => fail(code),
});
const reactions = new Reactions(state, socket);
const overlays = new Overlays(state, () => update());
const board = new Board(state, choices, picks, socket);
const input = new Input({ state, choices, picks, socket, board, blocked: () => overlays.showingEnd });
// Two-player Gin's own: cards gliding, and aborting or resigning a match with a stranger.
const motion = new Motion();
const forfeit = new Forfeit(state, socket);
let shaped = false; // the page keeps the parts of its game once the first state says which

/** The first state names the game: keep its parts of the page (each game's own are marked data-games). */
function shapePage() {
  for (const el of document.querySelectorAll("[data-games]")) {
    if (!el.dataset.games.split(" ").includes(state.game)) el.remove();
  }
  if (!state.twoPlayer) {
    table.classList.add("tables");
    document.body.classList.add("page-tables");
  }
}

/** Show what the state holds: the end of a deal not seen yet first, else the table and its overlays. */
function update() {
  if (overlays.showingEnd || !state.message) return;
  const finished = state.unseenEnd();
  if (finished) {
    overlays.openEnd(finished);
    sounds.play(state.twoPlayer && finished.showdown && finished.showdown.outcome === "gin" ? "gin" : "knock");
    return;
  }
  const moving = state.twoPlayer;
  if (moving) motion.capture();
  board.render();
  if (moving) motion.play();
  overlays.renderWaiting();
  overlays.renderEnd();
  reactions.render();
  if (state.twoPlayer) {
    forfeit.render();
    forfeit.decorateEnd();
  }
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
    if (!shaped) {
      shaped = true;
      shapePage();
    }
    picks.several = state.rummy;
    picks.keepTo(state.hand());
    for (const seat of state.timedOut) {
      toast(seat === state.seat ? t("table.timeout_mine") : t("table.timeout_theirs", { name: state.nameOf(seat) }), "info", 6000);
    }
    if (before !== undefined && state.version !== before) sounds.play(state.myTurn() && !wasMine ? "turn" : "card");
    update();
  } else if (message.type === "hint") {
    state.setHint(message);
    if (!overlays.showingEnd) board.render();
  } else if (message.type === "error") {
    state.hintAsked = null; // a refused hint (or any refusal) leaves nothing to wait for
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

/** The connection line: null when connected, else the seconds until the next attempt. */
function setConnection(seconds) {
  const el = document.getElementById("conn");
  const text = seconds === null ? "" : t("table.reconnecting", { s: seconds });
  el.hidden = !text;
  el.textContent = text;
  table.classList.toggle("offline", Boolean(text));
}

let failed = false;
/** The table cannot be opened (the first reason given is the one shown). */
function fail(code, joinUrl) {
  if (failed) return;
  failed = true;
  board.stop();
  setConnection(null);
  table.replaceChildren(fatalPanel(code, joinUrl));
}

document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
document.getElementById("keys-help").textContent = t("table.keys_help");
board.renderSort();
input.attach();
reactions.attach();
setInterval(() => tickDeadlines(table), 250);
document.getElementById("status").textContent = t("table.connecting");
socket.connect();
