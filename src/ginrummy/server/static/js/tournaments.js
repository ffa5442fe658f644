// Tournaments: the listed and daily arenas with their countdowns, and a form to make one (shared by link).
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { tournamentList } from "./compete.js";
import { h, startPage, toast } from "./ui.js";

await startPage("tournaments");
const root = document.getElementById("tournaments");
const PRESETS = ["classic", "hoyle", "oklahoma", "big_gin"];

function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

const name = h("input", { id: "t-name", maxlength: 40, value: t("tournament.default_name"), required: true });
// The start: in some minutes, or at a date and time of the creator's own clock (sent as UTC).
const AHEAD_DAYS = 30; // as the server allows
const startsIn = h("input", { id: "t-starts-in", type: "number", min: 0, max: AHEAD_DAYS * 1440, step: 1, value: 2 });
const startMode = h(
  "select",
  { id: "t-start-mode" },
  h("option", { value: "in" }, t("tournament.start_in_minutes")),
  h("option", { value: "at" }, t("tournament.start_at_time")),
);
const localInput = (date) => {
  // A datetime-local value ("YYYY-MM-DDTHH:MM") in this device's own time.
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const soon = new Date(Date.now() + 3600 * 1000);
soon.setMinutes(0, 0, 0);
const startsAt = h("input", {
  id: "t-starts-at",
  type: "datetime-local",
  value: localInput(soon),
  min: localInput(new Date()),
  max: localInput(new Date(Date.now() + AHEAD_DAYS * 86400 * 1000)),
});
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
const startsInField = field(t("tournament.starts_in_minutes"), startsIn);
const startsAtField = h(
  "div",
  { class: "field-group" },
  field(t("tournament.starts_at"), startsAt),
  h("p", { class: "hint", id: "t-zone" }, t("tournament.local_time", { zone })),
);
function showStart() {
  startsInField.hidden = startMode.value !== "in";
  startsAtField.hidden = startMode.value !== "at";
}
startMode.addEventListener("change", showStart);
showStart();
const minutes = h("input", { id: "t-minutes", type: "number", min: 1, max: 1440, step: 1, value: 30 });
const format = h("select", { id: "t-format" }, ["arena", "swiss"].map((f) => h("option", { value: f }, t(`tournament.format_${f}`))));
const rounds = h("input", { id: "t-rounds", type: "number", min: 1, max: 15, step: 1, value: 5 });
const minutesField = field(t("tournament.minutes"), minutes);
const roundsField = field(t("tournament.rounds"), rounds);
function showFormat() {
  const swiss = format.value === "swiss";
  minutesField.hidden = swiss;
  roundsField.hidden = !swiss;
}
format.addEventListener("change", showFormat);
showFormat();
const preset = h("select", { id: "t-rules" }, PRESETS.map((p) => h("option", { value: p }, t(`rules.${p}`))));
const target = h("select", { id: "t-target" }, [25, 50, 100].map((n) => h("option", { value: n, selected: n === 50 }, t("home.target_n", { n }))));
const clock = h("select", { id: "t-clock" }, [20, 30, 60].map((s) => h("option", { value: s, selected: s === 30 }, t("home.seconds", { n: s }))));
const rated = h("input", { id: "t-rated", type: "checkbox", checked: true });
const robots = h("input", { id: "t-robots", type: "checkbox", checked: true });
const listed = h("input", { id: "t-listed", type: "checkbox" });
const create = h("button", { type: "submit", class: "primary big", id: "t-create" }, t("tournament.create"));
const form = h(
  "form",
  { id: "tournament-form", class: "tournament-form" },
  field(t("tournament.name"), name),
  field(t("tournament.format"), format),
  field(t("tournament.start"), startMode),
  startsInField,
  startsAtField,
  minutesField,
  roundsField,
  field(t("home.rules"), preset),
  field(t("home.target"), target),
  field(t("home.turn_clock"), clock),
  h("label", { class: "check" }, rated, " ", t("tournament.rated")),
  h("label", { class: "check" }, robots, " ", t("tournament.robots")),
  h("label", { class: "check" }, listed, " ", t("tournament.listed")),
  create,
);
/** The start as the API takes it, or the reason it cannot be (said before asking the server). */
function chosenStart() {
  if (startMode.value === "in") return { start: { starts_in: Number(startsIn.value) } };
  // The input reads as this device's local time; the server keeps UTC seconds.
  const at = startsAt.value ? new Date(startsAt.value).getTime() : NaN;
  if (Number.isNaN(at)) return { problem: t("tournament.start_missing") };
  if (at < Date.now() - 60 * 1000) return { problem: t("tournament.start_past") };
  if (at > Date.now() + AHEAD_DAYS * 86400 * 1000) return { problem: t("tournament.start_too_far", { n: AHEAD_DAYS }) };
  return { start: { starts_at: at / 1000 } };
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const { start, problem } = chosenStart();
  if (problem) {
    toast(problem, "error");
    return;
  }
  create.disabled = true;
  try {
    const swiss = format.value === "swiss";
    const made = await api("POST", "/api/tournaments", {
      format: format.value,
      name: name.value,
      ...start,
      ...(swiss ? { rounds: Number(rounds.value) } : { minutes: Number(minutes.value) }),
      rules: { preset: preset.value, target: Number(target.value) },
      turn_seconds: Number(clock.value),
      rated: rated.checked,
      robots: robots.checked,
      listed: listed.checked,
    });
    location.assign(made.url);
  } catch (error) {
    toast(describeError(error), "error");
    create.disabled = false;
  }
});

const list = h("div", { id: "tournament-list" }, t("board.loading"));
root.replaceChildren(
  h("h1", {}, t("tournament.title")),
  list,
  h("h2", {}, t("tournament.create_title")),
  h("p", { class: "hint" }, t("tournament.create_hint")),
  h("p", { class: "hint" }, t("tournament.swiss_hint")),
  form,
);
try {
  const data = await api("GET", "/api/tournaments");
  list.replaceChildren(tournamentList(data.tournaments, data.now));
} catch (error) {
  list.replaceChildren(h("p", { class: "error" }, describeError(error)));
}
