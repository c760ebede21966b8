// Names shown to players, built from translation keys: colours, variants, pieces.

import { has, t } from "./i18n.js";

export function colourName(colour) {
  return t(`colour.${colour}`);
}

/** "Classic, 2 players" in the current language; options such as long jumps appended. */
export function variantName(id) {
  if (has(`variant.${id}`)) return t(`variant.${id}`);
  const [game, players, ...options] = id.split("-");
  const base = t(`variant.${game}-${players}`);
  return [base, ...options.map((o) => t(`option.${o}`))].join(", ");
}

/** How a hole's content is named: "white marble" (star), "white piece" (Halma), "piece" (capture). */
export function thingName(game, colour) {
  return colour ? t(`marble.${game}.${colour}`) : t(`thing.${game}`);
}
