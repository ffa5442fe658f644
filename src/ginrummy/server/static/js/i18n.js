// Translations: one JSON catalogue per language, chosen from the browser with a saved override.
export const LANGUAGES = { en: "English", vi: "Tiếng Việt" };
const STORAGE_KEY = "gr-lang";

let lang = "en";
let catalogue = {};
let fallback = {};

/** The language to use: the saved choice, else the browser's languages, else English. */
export function pickLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved && saved in LANGUAGES) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

async function load(code) {
  const response = await fetch(`/static/i18n/${code}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`cannot load the ${code} catalogue (${response.status})`);
  return response.json();
}

/** Load the catalogue; call once before rendering anything. */
export async function initI18n() {
  lang = pickLanguage();
  fallback = await load("en");
  catalogue = lang === "en" ? fallback : await load(lang).catch(() => fallback);
  document.documentElement.lang = lang;
  return lang;
}

export const currentLanguage = () => lang;

/** Save a language choice and reload the page in it. */
export function setLanguage(code) {
  if (!(code in LANGUAGES)) return;
  localStorage.setItem(STORAGE_KEY, code);
  location.reload();
}

/** The string `key` with `{name}` placeholders filled from `params` (numbers formatted locally). */
export function t(key, params = {}) {
  const text = catalogue[key] ?? fallback[key];
  if (text === undefined) {
    console.warn(`missing translation: ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

/**
 * The plural form of `key` for the count `n` (passed as `{n}` too): the catalogue holds
 * "key.one", "key.other" … as the language's plural rules name them (Intl.PluralRules).
 */
export function tn(key, n, params = {}) {
  const form = new Intl.PluralRules(lang).select(n);
  const chosen = hasText(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`;
  return t(chosen, { ...params, n });
}

/** True when the catalogue has `key` (for optional strings such as server error codes). */
export const hasText = (key) => key in catalogue || key in fallback;

export function formatNumber(n) {
  return new Intl.NumberFormat(lang).format(n);
}

export function formatDate(value) {
  if (value === null || value === undefined || value === "") return "";
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** Fill every [data-i18n] element under `root`; [data-i18n-attr="attr:key;…"] sets attributes. */
export function applyI18n(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}
