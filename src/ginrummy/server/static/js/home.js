// Home page: guest name, play a robot, create a private room and share its link.
import { api, describeError } from "./api.js";
import { GameChoice } from "./game-choice.js";
import { showHomeBoards, showOnlinePanel } from "./home-compete.js";
import { t } from "./i18n.js";
import { guestName } from "./names.js";
import { copyText, h, startPage, toast } from "./ui.js";

const LEVELS = ["novice", "casual", "skilled", "advanced", "expert"];
const TURN_SECONDS = [30, 60, 90, 120, 0];
const PREFS = "gr-home";

function loadPrefs() {
  try {
    return JSON.parse(localStorage.getItem(PREFS)) || {};
  } catch {
    return {};
  }
}

function savePrefs(patch) {
  localStorage.setItem(PREFS, JSON.stringify({ ...loadPrefs(), ...patch }));
}

async function setUpName() {
  const input = document.getElementById("name");
  const form = document.getElementById("name-form");
  // The first request makes this browser's guest. Saving waits for it, so that a name typed while
  // it is on its way renames that guest (not a second one); and its answer never replaces a name
  // the person has already typed.
  const me = api("GET", "/api/me");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (name.length < 1 || name.length > 24) {
      toast(t("home.name_invalid"), "error");
      return;
    }
    try {
      await me.catch(() => null);
      const saved = await api("POST", "/api/me", { name });
      input.value = saved.name;
      toast(t("home.name_saved", { name: saved.name }), "ok");
    } catch (error) {
      toast(describeError(error), "error");
    }
  });
  try {
    const { name } = await me;
    if (!input.value.trim()) input.value = guestName(name);
  } catch (error) {
    toast(describeError(error), "error");
  }
}

function setUpRobot(prefs) {
  const levels = document.getElementById("levels");
  const chosen = prefs.level || "casual";
  levels.replaceChildren(
    ...LEVELS.map((level) =>
      h(
        "label",
        { class: "choice" },
        h("input", { type: "radio", name: "level", value: level, checked: level === chosen }),
        h("span", { class: "choice-name" }, t(`level.${level}`)),
        h("span", { class: "choice-help" }, t(`level.${level}.help`)),
      ),
    ),
  );
  // Five levels side by side; the chosen one's description below them.
  const help = document.getElementById("level-help");
  const showHelp = () => {
    const checked = levels.querySelector("input[name=level]:checked");
    help.textContent = checked ? t(`level.${checked.value}.help`) : "";
  };
  levels.addEventListener("change", showHelp);
  showHelp();
  const choice = new GameChoice(
    { game: "robot-game", rules: "robot-rules", players: "robot-players", playersField: "robot-players-field", target: "robot-target", help: "robot-rules-help" },
    prefs.robot || { rules: prefs.rules, target: prefs.target },
  );
  const form = document.getElementById("robot-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const level = form.querySelector("input[name=level]:checked").value;
    const button = document.getElementById("play-robot");
    button.disabled = true;
    savePrefs({ level, robot: choice.saved() });
    try {
      const made = await api("POST", "/api/matches", { level, rules: choice.value() });
      location.assign(made.url || `/m/${made.match_id}`);
    } catch (error) {
      toast(describeError(error), "error");
      button.disabled = false;
    }
  });
}

/** The other seats of a room: each waits for a friend who opens the link, or a robot of a level. */
function renderSeats(count, chosen) {
  const box = document.getElementById("room-seats");
  box.hidden = count <= 2;
  const list = document.getElementById("seat-choices");
  const before = [...list.querySelectorAll("select")].map((s) => s.value);
  list.replaceChildren(
    ...Array.from({ length: count - 1 }, (_, k) => {
      const value = ratedRoom() ? "friend" : (before[k] ?? chosen[k] ?? "friend");
      return h(
        "label",
        { class: "field seat-choice" },
        h("span", {}, t("home.seat_n", { n: k + 2 })),
        h(
          "select",
          { id: `seat-${k + 1}`, dataset: { seat: k + 1 }, disabled: ratedRoom() },
          h("option", { value: "friend", selected: value === "friend" }, t("home.seat_friend")),
          LEVELS.map((level) => h("option", { value: level, selected: value === level }, t("home.seat_robot", { level: t(`level.${level}`) }))),
        ),
      );
    }),
  );
}

/** A rated room (three-player Gin, team Gin, Rummy for three and more) seats people only. */
function ratedRoom() {
  const box = document.getElementById("room-rated");
  return Boolean(box && box.checked && !document.getElementById("room-seats").hidden);
}

function showRated() {
  const rated = ratedRoom();
  for (const select of document.querySelectorAll("#seat-choices select")) {
    if (rated) select.value = "friend";
    select.disabled = rated;
  }
}

function seatsChoice() {
  return [...document.querySelectorAll("#seat-choices select")].map((s) => (s.value === "friend" ? "friend" : { robot: s.value }));
}

function setUpRoom(prefs) {
  const saved = prefs.room || { rules: prefs.roomRules, target: prefs.roomTarget };
  const choice = new GameChoice(
    { game: "room-game", rules: "room-rules", players: "room-players", playersField: "room-players-field", target: "room-target", help: "room-rules-help" },
    saved,
    (count) => renderSeats(count, prefs.roomSeats || []),
  );
  const seconds = document.getElementById("turn-seconds");
  const chosen = prefs.turnSeconds ?? 60;
  seconds.replaceChildren(
    ...TURN_SECONDS.map((s) =>
      h("option", { value: s, selected: s === chosen }, s ? t("home.seconds", { n: s }) : t("home.no_clock")),
    ),
  );
  const ratedBox = document.getElementById("room-rated");
  ratedBox.checked = Boolean(prefs.roomRated);
  ratedBox.addEventListener("change", showRated);
  showRated();
  const form = document.getElementById("room-form");
  const box = document.getElementById("room-link");
  const urlInput = document.getElementById("room-url");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = document.getElementById("create-room");
    button.disabled = true;
    const turnSeconds = Number(seconds.value);
    const seats = choice.seats() > 2 ? seatsChoice() : undefined;
    const rated = ratedRoom();
    savePrefs({ room: choice.saved(), turnSeconds, roomSeats: seats ? seats.map((s) => (s === "friend" ? s : s.robot)) : [], roomRated: ratedBox.checked });
    try {
      const room = await api("POST", "/api/rooms", { rules: choice.value(), turn_seconds: turnSeconds, seats, rated });
      const link = new URL(room.url || `/r/${room.code}`, location.origin).href;
      // The table shows the link again while it waits for the friend.
      sessionStorage.setItem(`gr-room-${room.match_id}`, link);
      urlInput.value = link;
      document.getElementById("go-table").href = `/m/${room.match_id}`;
      box.hidden = false;
      urlInput.select();
    } catch (error) {
      toast(describeError(error), "error");
    } finally {
      button.disabled = false;
    }
  });
  document.getElementById("copy-link").addEventListener("click", async () => {
    const ok = await copyText(urlInput.value, urlInput);
    toast(ok ? t("home.copied") : t("home.copy_failed"), ok ? "ok" : "error");
  });
}

await startPage("home");
const prefs = loadPrefs();
setUpRobot(prefs);
setUpRoom(prefs);
await setUpName();
showOnlinePanel(document.getElementById("online-panel"));
showHomeBoards(document.getElementById("compete-home"));
document.getElementById("main").removeAttribute("data-loading");
