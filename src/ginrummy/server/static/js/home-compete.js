// The home page's competition corner: Play online (quick pairing), today's leaderboard with its
// countdown to 00:00:00 UTC, the 30-day board.
import { ApiError, api, describeError } from "./api.js";
import { formatNumber, t } from "./i18n.js";
import { boardTable, countdown, liveGameItem, nextUtcMidnight, tournamentList } from "./compete.js";
import { fill, h, toast } from "./ui.js";

const PRESETS = ["classic", "hoyle", "oklahoma", "big_gin"];
const TARGETS = [50, 100, 150];
/** How many times in a row a dropped wait joins the pool again before the page gives up. */
const REJOIN_MOST = 5;

function select(id, options, chosen) {
  return h("select", { id }, options.map(([value, label]) => h("option", { value, selected: String(value) === String(chosen) }, label)));
}

/** The Play online panel: choose a pool, wait (with news every few seconds), go to the match. */
export function showOnlinePanel(root) {
  const saved = JSON.parse(localStorage.getItem("gr-online") || "{}");
  const preset = select("online-rules", PRESETS.map((p) => [p, t(`rules.${p}`)]), saved.preset || "classic");
  const target = select("online-target", TARGETS.map((n) => [n, t(n === 100 ? "home.target_default" : "home.target_n", { n })]), saved.target || 100);
  const mode = select("online-mode", [["rated", t("online.rated")], ["casual", t("online.casual")]], saved.mode || "rated");
  const play = h("button", { type: "submit", class: "primary big", id: "play-online" }, t("online.play"));
  const news = h("div", { class: "seeking", id: "seeking", hidden: true });
  const form = h(
    "form",
    { id: "online-form" },
    h("label", { class: "field" }, h("span", {}, t("home.rules")), preset),
    h("label", { class: "field" }, h("span", {}, t("home.target")), target),
    h("label", { class: "field" }, h("span", {}, t("online.mode")), mode),
    play,
  );
  root.replaceChildren(
    h("h2", { id: "online-title" }, t("online.title")),
    h("p", { class: "hint" }, t("online.hint")),
    form,
    news,
  );
  let seeking = false;

  const stop = async () => {
    seeking = false;
    news.hidden = true;
    play.disabled = false;
    await api("DELETE", "/api/pool").catch(() => null);
  };

  const showNews = (s) => {
    const cancel = h("button", { type: "button", id: "cancel-online", onclick: stop }, t("online.cancel"));
    const robot = s.robot_offer
      ? h(
          "button",
          {
            type: "button",
            id: "online-robot",
            onclick: async () => {
              seeking = false;
              try {
                const made = await api("POST", "/api/pool/robot");
                location.assign(made.url);
              } catch (error) {
                toast(describeError(error), "error");
              }
            },
          },
          t("online.robot_instead"),
        )
      : null;
    fill(
      news,
      h("div", { class: "spinner", "aria-hidden": "true" }),
      h("span", { id: "seeking-text" }, t("online.waiting", { seconds: formatNumber(Math.floor(s.waited)), range: formatNumber(Math.round(s.range)), n: s.waiting })),
      cancel,
      robot,
    );
    news.hidden = false;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const choice = { preset: preset.value, target: Number(target.value), mode: mode.value };
    localStorage.setItem("gr-online", JSON.stringify(choice));
    play.disabled = true;
    seeking = true;
    const join = () => api("POST", "/api/pool", { preset: choice.preset, target: choice.target, rated: choice.mode === "rated" });
    // The pool lives in one server's memory: when that server restarts (or the wait moves to another
    // server of the site) the wait is dropped, and the page joins again by itself, a few times.
    let rejoined = 0;
    const rejoin = async (error) => {
      if (!seeking || rejoined >= REJOIN_MOST) throw error;
      rejoined += 1;
      await new Promise((resolve) => setTimeout(resolve, 500 * rejoined));
      return join();
    };
    try {
      let s = await join();
      while (seeking) {
        if (s.state === "paired") {
          location.assign(s.url);
          return;
        }
        if (s.state === "gone") {
          s = await rejoin(new Error(t("online.gone")));
          continue;
        }
        showNews(s);
        try {
          s = await api("GET", "/api/pool?wait=3");
          rejoined = 0;
        } catch (error) {
          if (!(error instanceof ApiError) || ![0, 404, 502, 503].includes(error.status)) throw error;
          s = await rejoin(error);
        }
      }
    } catch (error) {
      if (seeking) toast(describeError(error), "error");
      seeking = false;
      news.hidden = true;
      play.disabled = false;
    }
  });
}

const FEATURED_MS = 20000;

/** The featured live match (Lichess TV): the highest rated being played, with Watch; none: nothing. */
function featured(game) {
  if (!game) return null;
  return h(
    "section",
    { class: "panel featured-live", id: "featured-live", "aria-labelledby": "featured-live-title" },
    h("h2", { id: "featured-live-title" }, h("span", {}, t("live.featured")), h("a", { class: "more", href: "/watch" }, t("live.all"))),
    h("ul", { class: "live-list" }, liveGameItem(game, { featured: true })),
  );
}

/** Keep the featured match current: another may have become the highest rated, or it ended. */
async function refreshFeatured(root) {
  try {
    const live = await api("GET", "/api/live?limit=1");
    const json = JSON.stringify(live.games[0] || null);
    const shown = root.querySelector("#featured-live");
    // Redrawn only when it changed: a Watch link being tapped stays where it is.
    if (shown && shown.dataset.json === json) return;
    const now = featured(live.games[0]);
    if (now) now.dataset.json = json;
    if (shown && now) shown.replaceWith(now);
    else if (shown) shown.remove();
    else if (now) root.prepend(now);
  } catch {
    // The next refresh tries again; the rest of the page is unaffected.
  }
}

let featuredTimer = null;

function panel(id, title, extra, board) {
  return h(
    "section",
    { class: "panel", id, "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, h("span", {}, title, extra), h("a", { class: "more", href: `/leaderboard#${board.board}` }, t("compete.see_all"))),
    boardTable(board, { compact: true }),
  );
}

/** Fill `root` with the boards; the daily one counts down to the next UTC midnight and then refreshes. */
export async function showHomeBoards(root) {
  try {
    const [data, tours, live] = await Promise.all([
      api("GET", "/api/leaderboards"),
      api("GET", "/api/tournaments"),
      api("GET", "/api/live?limit=1"),
    ]);
    const clock = h("strong", { class: "countdown", id: "daily-countdown" }, "00:00:00");
    fill(
      root,
      featured(live.games[0]),
      h(
        "div",
        { class: "boards" },
        panel("daily-board", t("compete.daily_title"), h("span", { class: "ends" }, " ", t("compete.ends_in"), " ", clock), data.boards.today),
        panel("rolling-board", t("compete.rolling_title"), null, data.boards.rolling),
      ),
      h(
        "section",
        { class: "panel", id: "home-tournaments", "aria-labelledby": "home-tournaments-title" },
        h("h2", { id: "home-tournaments-title" }, h("span", {}, t("tournament.title")), h("a", { class: "more", href: "/tournaments" }, t("tournament.create_title"))),
        tournamentList(tours.tournaments, tours.now),
      ),
    );
    countdown(clock, nextUtcMidnight(data.now), data.now, () => setTimeout(() => showHomeBoards(root), 1500));
    clearInterval(featuredTimer);
    featuredTimer = setInterval(() => refreshFeatured(root), FEATURED_MS);
  } catch (error) {
    root.replaceChildren(h("p", { class: "error" }, describeError(error)));
  }
}
