// Private room link: who invites you and to what, who sits there already, your name, then join.
import { api, describeError } from "./api.js";
import { t, tn } from "./i18n.js";
import { guestMark, guestName, isDefaultGuestName, robotName } from "./names.js";
import { h, startPage } from "./ui.js";

await startPage("room");
const code = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const title = document.getElementById("room-title");
const message = document.getElementById("room-message");
const home = document.getElementById("room-home");
const form = document.getElementById("join-form");
const nameInput = document.getElementById("join-name");
message.textContent = t("room.code", { code });

/** Say why this room cannot be joined (`seats`: how many the room has, when known). */
function refuse(error, seats = 2) {
  title.textContent = t("room.cannot_join");
  const known = {
    room_full: seats > 2 ? t("room.full_table") : t("room.full"),
    not_found: t("room.not_found"),
  };
  message.textContent = known[error.code] || describeError(error);
  form.hidden = true;
  home.hidden = false;
}

/** What is played: the game (or Gin's rules), the players, the target and the clock, in one line. */
function terms(room) {
  const game = room.rules.game || "gin";
  const parts = [game === "gin" ? t(`rules.${room.rules.preset}`) : t(`rules.${game}`)];
  if (game !== "gin") parts.push(t("home.players_n", { n: room.rules.players }));
  parts.push(t("table.target", { n: room.rules.target }));
  parts.push(room.turn_seconds ? t("home.seconds", { n: room.turn_seconds }) : t("home.no_clock"));
  return parts.join(" · ");
}

/** Who is at a table of more than two so far, and how many seats are still free. */
function seatList(room) {
  if (room.seats.length <= 2) return null;
  return h(
    "div",
    { class: "room-seats-info" },
    h(
      "ul",
      { class: "seat-list", id: "room-seat-list" },
      room.seats.map((s) =>
        h(
          "li",
          { class: s.kind ? "taken" : "free" },
          s.kind === "robot"
            ? robotName(s.level)
            : s.kind
              ? `${guestName(s.name)} ${guestMark(s.name, s.guest)}`.trim()
              : t("tables.seat_free"),
        ),
      ),
    ),
    h("p", { class: "hint", id: "room-free" }, tn("room.free_seats", room.free)),
    room.rated ? h("p", { class: "hint", id: "room-rated" }, t("room.rated")) : null,
  );
}

try {
  const me = await api("GET", "/api/me"); // makes this browser's guest if it has none
  const room = await api("GET", `/api/rooms/${encodeURIComponent(code)}`);
  if (room.seated) {
    title.textContent = t("room.joined");
    location.replace(`/m/${encodeURIComponent(room.match_id)}`);
  } else if (room.full) {
    refuse({ code: "room_full" }, room.seats.length);
  } else {
    const host = room.seats[0];
    title.textContent = t("room.invited", { name: `${guestName(room.host)} ${guestMark(room.host, host.guest)}`.trim() });
    message.replaceChildren(h("span", { id: "room-terms" }, terms(room)), seatList(room) || "");
    // The friend says who they are before sitting down; a name chosen before is offered again.
    nameInput.value = isDefaultGuestName(me.name) ? "" : me.name;
    nameInput.placeholder = guestName(me.name);
    form.hidden = false;
    nameInput.focus();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = document.getElementById("join-room");
      button.disabled = true;
      try {
        const name = nameInput.value.trim();
        if (name && name !== me.name) await api("POST", "/api/me", { name });
        const joined = await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`);
        title.textContent = t("room.joined");
        location.replace(joined.url || `/m/${joined.match_id}`);
      } catch (error) {
        if (error.code === "room_full" || error.code === "not_found") refuse(error, room.seats.length);
        else message.textContent = describeError(error);
        button.disabled = false;
      }
    });
  }
} catch (error) {
  refuse(error);
}
