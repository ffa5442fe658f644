// Choosing what to play on the home page: the game (two-player Gin, three-player Gin, team Gin,
// Rummy), its rules or variant, the number of players (Rummy) and the target, as the rules to send.
import { t } from "./i18n.js";
import { h } from "./ui.js";

export const GAMES = ["gin", "gin3", "gin4_teams", "rummy"];
const GIN_PRESETS = ["classic", "hoyle", "oklahoma", "big_gin"];
const RUMMY_ACES = ["low", "high", "either"];
const TARGETS = { gin: [25, 50, 100, 150, 250], gin3: [25, 50, 100, 150], gin4_teams: [25, 50, 125, 250], rummy: [25, 50, 100, 150] };
const STANDARD = { gin: 100, gin3: 100, gin4_teams: 125, rummy: 100 };
const SEATS = { gin: 2, gin3: 3, gin4_teams: 4 };

export class GameChoice {
  /**
   * `ids` names the form's fields: game, rules, players (and its label), target; `help` the rules
   * help line. `chosen` holds the saved choices: {game, rules, players, target}. `onChange(seats)`
   * runs when the number of seats may have changed.
   */
  constructor(ids, chosen, onChange = () => {}) {
    this.game = document.getElementById(ids.game);
    this.rules = document.getElementById(ids.rules);
    this.players = document.getElementById(ids.players);
    this.playersField = document.getElementById(ids.playersField);
    this.target = document.getElementById(ids.target);
    this.help = document.getElementById(ids.help);
    this.onChange = onChange;
    const game = GAMES.includes(chosen.game) ? chosen.game : "gin";
    this.game.replaceChildren(...GAMES.map((g) => h("option", { value: g, selected: g === game }, t(`game.${g}`))));
    this.players.replaceChildren(
      ...[2, 3, 4, 5, 6].map((n) => h("option", { value: n, selected: n === (chosen.players || 4) }, t("home.players_n", { n }))),
    );
    this.fill(chosen);
    this.game.addEventListener("change", () => this.fill({}));
    this.rules.addEventListener("change", () => this.showHelp());
    this.players.addEventListener("change", () => this.onChange(this.seats()));
  }

  /** The rules and target options of the chosen game (`chosen`: what to select in them). */
  fill(chosen) {
    const game = this.game.value;
    const variants = game === "gin" ? GIN_PRESETS : game === "rummy" ? RUMMY_ACES : [game];
    const pick = chosen.rules && variants.includes(chosen.rules) ? chosen.rules : variants[0];
    this.rules.replaceChildren(
      ...variants.map((v) => h("option", { value: v, selected: v === pick }, game === "rummy" ? t(`home.ace_${v}`) : t(`rules.${v}`))),
    );
    this.rules.disabled = variants.length === 1;
    const standard = STANDARD[game];
    const target = TARGETS[game].includes(chosen.target) ? chosen.target : standard;
    this.target.replaceChildren(
      ...TARGETS[game].map((n) =>
        h("option", { value: n, selected: n === target }, n === standard ? t("home.target_default", { n }) : t("home.target_n", { n })),
      ),
    );
    this.playersField.hidden = game !== "rummy";
    this.showHelp();
    this.onChange(this.seats());
  }

  showHelp() {
    if (!this.help) return;
    const game = this.game.value;
    this.help.textContent = game === "gin" ? t(`rules.${this.rules.value}.help`) : t(`rules.${game}.help`);
  }

  /** How many seats the chosen game has. */
  seats() {
    const game = this.game.value;
    return SEATS[game] || Number(this.players.value);
  }

  /** What to remember of the choice. */
  saved() {
    return { game: this.game.value, rules: this.rules.value, players: Number(this.players.value), target: Number(this.target.value) };
  }

  /** The rules to send: a preset name, or a preset with other fields (target, players, ace). */
  value() {
    const game = this.game.value;
    const target = Number(this.target.value);
    if (game === "rummy") return { preset: "rummy", players: this.seats(), ace: this.rules.value, target };
    const preset = game === "gin" ? this.rules.value : game;
    return target === STANDARD[game] ? preset : { preset, target };
  }
}
