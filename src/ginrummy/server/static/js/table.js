// The table page of every game (two-player Gin, three-player Gin, team Gin, Rummy at three to six
// seats): wires the match socket, the match state, the drawing and the input together. The first
// state says which game it is; the page keeps that game's parts (`shapePage`).
//
// Each part has one job and its own module under table/:
//   socket.js    the WebSocket: connect, reconnect with backoff, ping, send moves
//   state.js     the latest state from the server and the facts derived from it, for every game
//   choices.js   the player's choices about the hand: sort and own order
//   picks.js     the cards picked in the hand (several at once in Rummy)
//   render.js    two-player Gin's table drawn from the state; tables-board.js the bigger tables'
//                (seats.js the people around, center.js the middle, hand.js the cards and buttons)
//   overlays.js  the end of a deal, waiting for friends, the end of the match, a table that cannot open
//   input.js     clicks, keys and drag and drop turned into moves and choices
//   motion.js    cards gliding from where they were to where they are (draw, discard)
//   reactions.js quick reactions: the fixed set of emotes, shown and sent, mutable
//   forfeit.js   aborting or resigning a match with a stranger
// Hints (casual matches): the Hint button and H ask the server; the state keeps the answer for its
// position, and the board marks the move and writes its reason (reasons.js) where the last moves are.
import { hasText, t } from "./i18n.js";
import { sounds } from "./sound.js";
import { startPage, tickDeadlines, toast } from "./ui.js";
import { HandChoices } from "./table/choices.js";
import { Forfeit } from "./table/forfeit.js";
import { Input } from "./table/input.js";
import { Motion } from "./table/motion.js";
import { Overlays, fatalPanel } from "./table/overlays.js";
import { Picks } from "./table/picks.js";
import { Reactions } from "./table/reactions.js";
import { Board } from "./table/render.js";
import { MatchSocket } from "./table/socket.js";
import { TableState } from "./table/state.js";
import { TableBoard } from "./table/tables-board.js";
import { TableInput } from "./table/tables-input.js";
import { TableOverlays } from "./table/tables-overlays.js";

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
    if (parts && state.match && !parts.overlays.showingEnd) parts.board.renderControls();
  },
  fatal: (code) => fail(code),
});
const reactions = new Reactions(state, socket);
let parts = null; // the game's board, input and overlays, made with the first state (`shapePage`)

/** The first state names the game: keep its parts of the page and make its board and input. */
function shapePage() {
  for (const el of document.querySelectorAll("[data-games]")) {
    if (!el.dataset.games.split(" ").includes(state.game)) el.remove();
  }
  const blocked = () => parts.overlays.showingEnd;
  if (state.twoPlayer) {
    const board = new Board(state, choices, socket);
    const motion = new Motion();
    parts = {
      board,
      input: new Input({ state, choices, socket, board, blocked }),
      overlays: new Overlays(state, () => update()),
      forfeit: new Forfeit(state, socket),
      render: () => {
        motion.capture();
        board.render();
        motion.play();
      },
    };
    board.renderSort();
  } else {
    table.classList.add("tables");
    document.body.classList.add("page-tables");
    const board = new TableBoard(state, choices, picks, socket);
    parts = {
      board,
      input: new TableInput({ state, choices, picks, socket, board, blocked }),
      overlays: new TableOverlays(state, () => update()),
      forfeit: null,
      render: () => board.render(),
    };
    board.hand.renderSort();
  }
  parts.input.attach();
}

/** Show what the state holds: the end of a deal not seen yet first, else the table and its overlays. */
function update() {
  if (failed || !parts || parts.overlays.showingEnd || !state.message) return;
  const finished = state.unseenEnd();
  if (finished) {
    parts.overlays.openEnd(finished);
    sounds.play(state.twoPlayer && finished.showdown && finished.showdown.outcome === "gin" ? "gin" : "knock");
    return;
  }
  parts.render();
  parts.overlays.renderWaiting();
  parts.overlays.renderEnd();
  reactions.render();
  if (parts.forfeit) {
    parts.forfeit.render();
    parts.forfeit.decorateEnd();
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
    if (!parts) shapePage();
    picks.several = state.rummy;
    picks.keepTo(state.hand());
    choices.keepTo(state.hand());
    for (const seat of state.timedOut) {
      toast(seat === state.seat ? t("table.timeout_mine") : t("table.timeout_theirs", { name: state.nameOf(seat) }), "info", 6000);
    }
    if (before !== undefined && state.version !== before) sounds.play(state.myTurn() && !wasMine ? "turn" : "card");
    update();
  } else if (message.type === "hint") {
    state.setHint(message);
    if (parts && !parts.overlays.showingEnd) parts.board.render();
  } else if (message.type === "error") {
    state.hintAsked = null; // a refused hint (or any refusal) leaves nothing to wait for
    if (FATAL.has(message.code)) {
      socket.stop();
      fail(message.code, message.join_url);
      return;
    }
    const text = hasText(`ws.${message.code}`) ? t(`ws.${message.code}`) : t("ws.generic");
    toast(text, "error", 6000);
    parts?.board.setNote(text);
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
  parts?.board.stop();
  setConnection(null);
  table.replaceChildren(fatalPanel(code, joinUrl));
}

document.getElementById("scoreboard").setAttribute("aria-label", t("table.scores"));
document.getElementById("keys-help").textContent = t("table.keys_help");
reactions.attach();
setInterval(() => tickDeadlines(table), 250);
document.getElementById("status").textContent = t("table.connecting");
socket.connect();
