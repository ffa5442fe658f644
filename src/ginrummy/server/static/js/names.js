// Names of the players as this page shows them: robots and unnamed guests in the page's language.
import { t } from "./i18n.js";

// The name the server gives a guest who has not chosen one ("Guest 4821"): shown as the page's
// language says it ("Khách 4821"). A name the person typed is shown exactly as typed.
const DEFAULT_GUEST = /^Guest (\d{1,6})$/;

/** True for the name the server gives a guest who has not chosen one. */
export const isDefaultGuestName = (name) => DEFAULT_GUEST.test(String(name || ""));

/** A guest's name in the page's language (the default one translated, a chosen one as it is). */
export function guestName(name) {
  const found = DEFAULT_GUEST.exec(String(name || ""));
  return found ? t("guest.name", { n: found[1] }) : String(name || "");
}

/** "(guest)" after a name a guest without an account chose (so nobody passes for an account's
 * owner); nothing for accounts, and nothing for the server's "Guest 4821", which says it already. */
export function guestMark(name, guest) {
  return guest && !isDefaultGuestName(name) ? t("compete.guest_mark") : "";
}

/** The name of a robot of `level` ("Robot (novice)", "Máy (mới chơi)"). */
export function robotName(level) {
  return t("robot.name", { level: t(`level.${level}`) });
}

/** The name to show for a player object of the server ({name, kind, level}). */
export function playerName(player) {
  if (!player) return "";
  if (player.kind === "robot" && player.level) return robotName(player.level);
  return guestName(player.name);
}
