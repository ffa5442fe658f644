// Private room link: join the room as the second player, then go to the table.
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { startPage } from "./ui.js";

await startPage("room");
const code = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const title = document.getElementById("room-title");
const message = document.getElementById("room-message");
const home = document.getElementById("room-home");
message.textContent = t("room.code", { code });
try {
  await api("GET", "/api/me"); // make sure the guest exists before joining
  const joined = await api("POST", `/api/rooms/${encodeURIComponent(code)}/join`);
  title.textContent = t("room.joined");
  location.replace(joined.url || `/m/${joined.match_id}`);
} catch (error) {
  title.textContent = t("room.cannot_join");
  const known = { room_full: "room.full", not_found: "room.not_found" };
  message.textContent = known[error.code] ? t(known[error.code]) : describeError(error);
  home.hidden = false;
}
