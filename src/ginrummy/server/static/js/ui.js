// Page chrome shared by every page: header, language switch, deck option, toasts, small helpers.
import { applyI18n, currentLanguage, initI18n, LANGUAGES, setLanguage, t } from "./i18n.js";
import { sounds } from "./sound.js";

const FOUR_COLOUR_KEY = "gr-four-colour";

/** Build an element: h("button", {class: "x", onclick}, "text", child…). */
/** Replace `el`'s children, skipping null, undefined and false as `h` does (the DOM's own
 * replaceChildren would write them out as text). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    // Through the CSSOM: the Content-Security-Policy refuses style attributes, not style properties.
    else if (name === "style") el.style.cssText = String(value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function fourColour() {
  return localStorage.getItem(FOUR_COLOUR_KEY) === "1";
}

function applyDeck() {
  document.body.classList.toggle("four-colour", fourColour());
}

function header(active) {
  const nav = h(
    "nav",
    { class: "nav", "aria-label": t("nav.label") },
    h("a", { href: "/", class: active === "home" ? "active" : null }, t("nav.play")),
    h("a", { href: "/matches", class: active === "matches" ? "active" : null }, t("nav.matches")),
    h("a", { href: "/tournaments", class: active === "tournaments" ? "active" : null }, t("nav.tournaments")),
    h("a", { href: "/watch", id: "nav-watch", class: active === "watch" ? "active" : null }, t("nav.watch")),
    h("a", { href: "/leaderboard", class: active === "leaderboard" ? "active" : null }, t("nav.leaderboard")),
    h("a", { href: "/account", id: "nav-account", class: active === "account" ? "active" : null }, t("nav.account")),
  );
  const select = h(
    "select",
    { id: "lang-switch", "aria-label": t("settings.language") },
    Object.entries(LANGUAGES).map(([code, name]) =>
      h("option", { value: code, selected: code === currentLanguage() }, name),
    ),
  );
  select.addEventListener("change", () => setLanguage(select.value));
  const deck = h("input", { type: "checkbox", id: "four-colour", checked: fourColour() });
  deck.addEventListener("change", () => {
    localStorage.setItem(FOUR_COLOUR_KEY, deck.checked ? "1" : "0");
    applyDeck();
  });
  const sound = h("input", { type: "checkbox", id: "sound-toggle", checked: sounds.enabled });
  sound.addEventListener("change", () => {
    sounds.enabled = sound.checked;
  });
  return h(
    "div",
    { class: "bar" },
    h("a", { href: "/", class: "brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "\u2660\u2665"), t("app.name")),
    nav,
    h(
      "div",
      { class: "settings" },
      h("label", { class: "deck-option", title: t("settings.four_colour_hint") }, deck, h("span", {}, t("settings.four_colour"))),
      h(
        "label",
        { class: "deck-option sound-option", title: t("settings.sound_hint") },
        sound,
        h("span", {}, t("settings.sound")),
      ),
      h("label", { class: "lang" }, h("span", { class: "sr-only" }, t("settings.language")), select),
    ),
  );
}

/** Load the language, draw the header and translate the static markup. Call first on every page. */
export async function startPage(active) {
  await initI18n();
  applyDeck();
  const top = document.getElementById("top");
  if (top) {
    top.replaceChildren(header(active));
    // Overlays start below the header, so its links stay in reach (My matches, the language).
    const measure = () => document.documentElement.style.setProperty("--top-h", `${top.offsetHeight}px`);
    measure();
    new ResizeObserver(measure).observe(top);
  }
  registerServiceWorker();
  applyI18n();
  if (!document.getElementById("toast")) {
    document.body.append(h("div", { id: "toast", class: "toast", role: "status", "aria-live": "polite" }));
  }
}

/** The installable app: a service worker keeps the shell for a quick start and an offline page. */
function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // Not installable here (a private window, a policy): the site works as before.
  });
}

let toastTimer = null;

/** Show a short message at the bottom of the screen; kind is "info", "error" or "ok". */
export function toast(message, kind = "info", ms = 4500) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = message;
  el.dataset.kind = kind;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), ms);
}

/** Copy `text` to the clipboard, falling back to selecting it in `input` when the API is refused. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.focus();
      input.select();
      try {
        return document.execCommand("copy");
      } catch {
        return false;
      }
    }
    return false;
  }
}

/** Count down every clock under `root` (elements with a data-deadline in unix seconds): m:ss. */
export function tickDeadlines(root) {
  for (const el of root.querySelectorAll("[data-deadline]")) {
    const left = Math.max(0, Math.ceil(Number(el.dataset.deadline) - Date.now() / 1000));
    const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    const target = el.querySelector(".time") || el;
    if (target.textContent !== text) target.textContent = text;
    el.classList.toggle("low", left <= 10);
  }
}

/** A modal dialog built on <dialog>; resolves with the value of the button pressed. */
export function ask({ title, body, buttons, className }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: `modal ${className || ""}`, "aria-labelledby": "ask-title" });
    const done = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    dialog.append(
      h("h2", { id: "ask-title" }, title),
      body instanceof Node ? body : h("p", {}, body),
      h(
        "div",
        { class: "buttons" },
        buttons.map((b) =>
          h("button", { class: b.class || "", onclick: () => done(b.value), "data-value": b.value }, b.label),
        ),
      ),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(null);
    });
    document.body.append(dialog);
    dialog.showModal();
    const primary = dialog.querySelector("button.primary") || dialog.querySelector("button");
    if (primary) primary.focus();
  });
}
