// Private room link: who invites you and to what, your name, then join as the second player.
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { guestName, isDefaultGuestName } from "./names.js";
import { h, startPage } from "./ui.js";

await startPage("room");
const code = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const title = document.getElementById("room-title");
const message = document.getElementById("room-message");
const home = document.getElementById("room-home");
const form = document.getElementById("join-form");
const nameInput = document.getElementById("join-name");
message.textContent = t("room.code", { code });

function refuse(error) {
  title.textContent = t("room.cannot_join");
  const known = { room_full: "room.full", not_found: "room.not_found" };
  message.textContent = known[error.code] ? t(known[error.code]) : describeError(error);
  form.hidden = true;
  home.hidden = false;
}

/** What is played: the rules, the target and the clock, in one line. */
function terms(room) {
  const parts = [t(`rules.${room.rules.preset}`), t("table.target", { n: room.rules.target })];
  parts.push(room.turn_seconds ? t("home.seconds", { n: room.turn_seconds }) : t("home.no_clock"));
  return parts.join(" · ");
}

try {
  const me = await api("GET", "/api/me"); // makes this browser's guest if it has none
  const room = await api("GET", `/api/rooms/${encodeURIComponent(code)}`);
  if (room.seated) {
    title.textContent = t("room.joined");
    location.replace(`/m/${encodeURIComponent(room.match_id)}`);
  } else if (room.full) {
    refuse({ code: "room_full" });
  } else {
    title.textContent = t("room.invited", { name: guestName(room.host) });
    message.replaceChildren(h("span", { id: "room-terms" }, terms(room)));
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
        if (error.code === "room_full" || error.code === "not_found") refuse(error);
        else message.textContent = describeError(error);
        button.disabled = false;
      }
    });
  }
} catch (error) {
  refuse(error);
}
