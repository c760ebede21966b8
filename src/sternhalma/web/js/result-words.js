// A finished game's result in the player's language, from its outcome (places, ending,
// the seat the ending is about): "White wins. Black resigned."

import { has, t } from "./i18n.js";
import { colourName } from "./words.js";

/** @param outcome {places, team_places, ending, seat (a colour or null)}
 *  @param variant the catalogue's variant (its seats, teams and game) */
export function resultWords(outcome, variant) {
  const who = outcome.seat ? colourName(outcome.seat) : "";
  if (outcome.ending === "aborted") return t("ending.aborted.button", { who });
  let headline;
  if (outcome.team_places && outcome.team_places.length) {
    const firsts = variant.teams.filter((_, i) => outcome.team_places[i] === 1);
    headline = firsts.length === 1 ? t("result.teamWins", { who: firsts[0].map((s) => colourName(variant.seats[s] ?? s)).join(" + ") }) : t("result.draw");
  } else {
    const firsts = outcome.places.map((p, i) => [p, i]).filter(([p]) => p === 1);
    headline = firsts.length === 1 ? t("result.wins", { who: colourName(variant.seats[firsts[0][1]]) }) : t("result.draw");
  }
  const specific = `ending.${outcome.ending}.${variant.game}`;
  const key = has(specific) ? specific : `ending.${outcome.ending}`;
  return has(key) ? `${headline} ${t(key, { who })}` : headline;
}
