// Leaderboards: today's (UTC day, with its countdown), the last 30 days, and the top ratings; and the
// top ratings of each table game (three-player Gin, team Gin, Rummy), which have no points boards.
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { boardTable, countdown, nextUtcMidnight, ratingText } from "./compete.js";
import { h, startPage } from "./ui.js";

await startPage("leaderboard");
const holder = document.getElementById("board");
const about = document.getElementById("board-about");
const ends = document.getElementById("board-ends");
let stop = null;
const TABLE_GAMES = ["gin3", "gin4_teams", "rummy"];

async function show(name) {
  for (const tab of document.querySelectorAll("[data-board]")) tab.setAttribute("aria-pressed", String(tab.dataset.board === name));
  history.replaceState(null, "", `#${name}`);
  const table = TABLE_GAMES.includes(name);
  about.textContent = table ? t("board.about.table", { game: t(`game.${name}`) }) : t(`board.about.${name}`);
  holder.replaceChildren(h("p", { class: "hint" }, t("board.loading")));
  if (stop) stop();
  stop = null;
  try {
    const board = await api("GET", table ? `/api/leaderboards/rating?game=${name}` : `/api/leaderboards/${name}`);
    holder.replaceChildren(boardTable(board));
    ends.hidden = name !== "today";
    if (name === "today") {
      stop = countdown(document.getElementById("board-countdown"), nextUtcMidnight(board.now), board.now, () => show("today"));
    }
  } catch (error) {
    holder.replaceChildren(h("p", { class: "error" }, describeError(error)));
  }
}

for (const tab of document.querySelectorAll("[data-board]")) tab.addEventListener("click", () => show(tab.dataset.board));
const wanted = location.hash.slice(1);
show(["today", "rolling", "rating", ...TABLE_GAMES].includes(wanted) ? wanted : "today");

// Bots apart from people's boards: the ones connected now, each a link to its profile to challenge it.
async function showBots() {
  const list = document.getElementById("bots-online");
  try {
    const { bots } = await api("GET", "/api/bots/online");
    list.replaceChildren(
      ...bots.map((b) =>
        h(
          "li",
          { class: "bot-row", dataset: { id: b.id } },
          h("a", { href: b.profile, class: "player-link" }, b.name),
          h("span", { class: "badge bot" }, t("bots.badge")),
          h("span", { class: "rating" }, ratingText(b.rating)),
          h("a", { class: "button", href: b.profile }, t("bots.challenge")),
        ),
      ),
    );
    if (!bots.length) list.append(h("li", { class: "hint" }, t("bots.online_none")));
  } catch (error) {
    list.replaceChildren(h("li", { class: "error" }, describeError(error)));
  }
}
showBots();
