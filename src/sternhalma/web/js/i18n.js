// Translations: strings live in /static/i18n/{en,tr,nl}.json. The language is
// the one the player chose (remembered in localStorage), else the browser's,
// else English. <html lang> follows it, so Turkish casing comes out right.

export const LANGUAGES = ["en", "tr", "nl"];
const STORAGE_KEY = "sternhalma.language";

let current = "en";
let strings = {};
let fallback = {};

export function language() {
  return current;
}

export function preferredLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`);
  return response.json();
}

/** Switches the whole page to ``lang`` and remembers the choice when ``remember``. */
export async function setLanguage(lang, remember = false) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!Object.keys(fallback).length) fallback = await load("en");
  strings = lang === "en" ? fallback : await load(lang);
  current = lang;
  if (remember) localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  translate(document);
  document.dispatchEvent(new CustomEvent("languagechange", { detail: lang }));
}

/** Whether ``key`` has a translation. */
export function has(key) {
  return key in strings || key in fallback;
}

/** The string ``key`` with {placeholders} filled from ``params``. */
export function t(key, params = {}) {
  let text = strings[key] ?? fallback[key];
  if (text === undefined) {
    console.warn("missing translation", key);
    text = key;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/** Fills every [data-i18n] element (text) and every [data-i18n-attr] ("attribute:key;...") under root. */
export function translate(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) node.setAttribute(attr.trim(), t(key.trim()));
    }
  }
  document.title = t("app.title");
}

/** "1st", "1.", "1e": a place in the current language's ordinal form. */
export function place(n) {
  const form = new Intl.PluralRules(current, { type: "ordinal" }).select(n);
  return has(`place.${form}`) && (form === "other" || current === "en") ? t(`place.${form}`, { n }) : t("place.other", { n });
}
