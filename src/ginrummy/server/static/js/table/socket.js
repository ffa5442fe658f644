// The socket to the match: connects, reconnects with backoff, keeps the line alive, sends moves.
// It knows nothing of the page: it reports what happens through the callbacks it is given.
import { parseJson } from "../api.js";

const PING_MS = 25000;
const PENDING_MS = 8000; // a move unanswered for this long stops blocking the buttons
const FATAL_CLOSE = { 4403: "forbidden", 4404: "not_found" };

export class MatchSocket {
  /**
   * `on` holds the callbacks: message(msg) for every message from the server; status(text|null)
   * with the seconds until the next attempt (null: connected); change() when `busy` may have
   * changed; fatal(code) when the server refused the table for good.
   */
  constructor(matchId, on) {
    this.matchId = matchId;
    this.on = on;
    this.ws = null;
    this.attempts = 0;
    this.reconnectTimer = null;
    this.pending = false; // a move was sent and its answer has not come yet
    this.pendingTimer = null;
    this.fatal = false;
    setInterval(() => {
      if (this.open) this.ws.send(JSON.stringify({ type: "ping" }));
    }, PING_MS);
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  get open() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** True while no move may be sent: one is on its way, or the socket is not open. */
  get busy() {
    return this.pending || !this.open;
  }

  connect() {
    clearTimeout(this.reconnectTimer);
    if (this.fatal) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.matchId)}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempts = 0;
      this.on.status(null);
      this.on.change();
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = parseJson(event.data);
      } catch {
        return;
      }
      if (message.type === "state" || message.type === "error") this.setPending(false);
      this.on.message(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setPending(false);
      this.on.change();
      if (FATAL_CLOSE[event.code]) {
        this.stop();
        this.on.fatal(FATAL_CLOSE[event.code]);
        return;
      }
      this.scheduleReconnect();
    });
  }

  /** Give up on this table: no more reconnecting. */
  stop() {
    this.fatal = true;
    clearTimeout(this.reconnectTimer);
  }

  scheduleReconnect() {
    if (this.fatal) return;
    // Back off 0.5 s, 1 s, 2 s … up to 8 s, with jitter so many tables do not reconnect at once.
    const delay = Math.min(8000, 500 * 2 ** this.attempts) * (0.75 + Math.random() * 0.5);
    this.attempts += 1;
    this.on.status(Math.max(1, Math.round(delay / 1000)));
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (!this.ws && !this.fatal) {
      this.attempts = 0;
      this.connect();
    }
  }

  /** Send a move for the state of `version`; returns false when the socket is not open. */
  sendAction(action, version) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify({ type: "action", action, version }));
    this.setPending(true);
    return true;
  }

  /** Send any other message (no answer is awaited); returns false when the socket is not open. */
  sendMessage(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  setPending(on) {
    const was = this.pending;
    this.pending = on;
    clearTimeout(this.pendingTimer);
    if (on) this.pendingTimer = setTimeout(() => this.setPending(false), PENDING_MS);
    if (was !== on) this.on.change();
  }
}
