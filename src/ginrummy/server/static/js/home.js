// Home page: guest name, play a robot, create a private room and share its link.
import { api, describeError } from "./api.js";
import { showHomeBoards, showOnlinePanel } from "./home-compete.js";
import { t } from "./i18n.js";
import { guestName } from "./names.js";
import { copyText, h, startPage, toast } from "./ui.js";

const LEVELS = ["novice", "casual", "skilled", "advanced", "expert"];
const PRESETS = ["classic", "hoyle", "oklahoma", "big_gin"];
const TURN_SECONDS = [30, 60, 90, 120, 0];
const TARGETS = [25, 50, 100, 150, 250];
const DEFAULT_TARGET = 100;
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

function fillRules(select, helpEl, chosen) {
  select.replaceChildren(...PRESETS.map((p) => h("option", { value: p, selected: p === chosen }, t(`rules.${p}`))));
  const help = () => {
    if (helpEl) helpEl.textContent = t(`rules.${select.value}.help`);
  };
  select.addEventListener("change", help);
  help();
}

function fillTargets(select, chosen) {
  select.replaceChildren(
    ...TARGETS.map((n) =>
      h("option", { value: n, selected: n === (chosen || DEFAULT_TARGET) }, t(n === DEFAULT_TARGET ? "home.target_default" : "home.target_n", { n })),
    ),
  );
}

/** The rules to send: a preset name, or the preset with another target score. */
function rulesChoice(preset, target) {
  return target === DEFAULT_TARGET ? preset : { preset, target };
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
  const rules = document.getElementById("robot-rules");
  fillRules(rules, document.getElementById("robot-rules-help"), prefs.rules || "classic");
  const targetSelect = document.getElementById("robot-target");
  fillTargets(targetSelect, prefs.target);
  const form = document.getElementById("robot-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const level = form.querySelector("input[name=level]:checked").value;
    const button = document.getElementById("play-robot");
    button.disabled = true;
    const target = Number(targetSelect.value);
    savePrefs({ level, rules: rules.value, target });
    try {
      const made = await api("POST", "/api/matches", { level, rules: rulesChoice(rules.value, target) });
      location.assign(made.url || `/m/${made.match_id}`);
    } catch (error) {
      toast(describeError(error), "error");
      button.disabled = false;
    }
  });
}

function setUpRoom(prefs) {
  const rules = document.getElementById("room-rules");
  fillRules(rules, document.getElementById("room-rules-help"), prefs.roomRules || "classic");
  const targetSelect = document.getElementById("room-target");
  fillTargets(targetSelect, prefs.roomTarget);
  const seconds = document.getElementById("turn-seconds");
  const chosen = prefs.turnSeconds ?? 60;
  seconds.replaceChildren(
    ...TURN_SECONDS.map((s) =>
      h("option", { value: s, selected: s === chosen }, s ? t("home.seconds", { n: s }) : t("home.no_clock")),
    ),
  );
  const form = document.getElementById("room-form");
  const box = document.getElementById("room-link");
  const urlInput = document.getElementById("room-url");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = document.getElementById("create-room");
    button.disabled = true;
    const turnSeconds = Number(seconds.value);
    const target = Number(targetSelect.value);
    savePrefs({ roomRules: rules.value, turnSeconds, roomTarget: target });
    try {
      const room = await api("POST", "/api/rooms", { rules: rulesChoice(rules.value, target), turn_seconds: turnSeconds });
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
