// The Watch page: the public matches being played, highest rated first, each a link to watch it.
import { api, describeError } from "./api.js";
import { liveGameList } from "./compete.js";
import { t } from "./i18n.js";
import { h, startPage } from "./ui.js";

await startPage("watch");
const root = document.getElementById("live-games");
const REFRESH_MS = 10000;

let shownJson = null; // what the list shows: redrawn only when it changed (a link being tapped stays)

async function show() {
  try {
    const data = await api("GET", "/api/live");
    const json = JSON.stringify(data.games);
    if (json === shownJson) return;
    shownJson = json;
    root.replaceChildren(data.games.length ? liveGameList(data.games) : h("p", { class: "hint", id: "live-none" }, t("live.none")));
  } catch (error) {
    shownJson = null;
    root.replaceChildren(h("p", { class: "error" }, describeError(error)));
  }
}

async function refresh() {
  await show();
  setTimeout(refresh, REFRESH_MS);
}

refresh();
