// The rules page (server-rendered, server/web/pages.py) holds the rules in every
// language, each in a .rules-text block: show the one of the chosen language, and
// give its anchors their ids (only the shown text has them, so /rules#locked finds
// the passage in the language being read).

import { language } from "./i18n.js";

function show(root) {
  const texts = [...root.querySelectorAll(".rules-text[lang]")];
  const chosen = texts.find((text) => text.lang === language()) || texts.find((text) => text.lang === "en");
  for (const text of texts) {
    text.hidden = text !== chosen;
    for (const anchor of text.querySelectorAll("a[data-anchor]")) {
      if (text === chosen) anchor.id = anchor.dataset.anchor;
      else anchor.removeAttribute("id");
    }
  }
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target) target.scrollIntoView();
}

let listening = false;

/** Shows the rules in the page's language now and whenever the language changes. */
export function showRulesText(root) {
  show(root);
  if (listening) return;
  listening = true;
  document.addEventListener("languagechange", () => {
    if (document.body.dataset.view === "rules") show(root);
  });
}
