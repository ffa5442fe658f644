// The Watch page: the public matches being played, highest rated first, each a link to watch it.
import { api, describeError } from "./api.js";
import { liveGameList } from "./compete.js";
import { t } from "./i18n.js";
import { h, startPage } from "./ui.js";

await startPage("watch");
const root = document.getElementById("live-games");
const REFRESH_MS = 10000;

async function show() {
  try {
    const data = await api("GET", "/api/live");
    root.replaceChildren(data.games.length ? liveGameList(data.games) : h("p", { class: "hint", id: "live-none" }, t("live.none")));
  } catch (error) {
    root.replaceChildren(h("p", { class: "error" }, describeError(error)));
  }
  setTimeout(show, REFRESH_MS);
}

show();
