// A list of tables as cards: the lobby's open tables and its live games.

import { swatch } from "./svg.js";

/**
 * Fills ``box`` with a card a table: ``title(table)``, its seats (a colour swatch, then
 * what ``seat(seat, table)`` gives: text and nodes) and a button ``action`` that opens it; the
 * line ``none`` when there is no table. Returns the list, or null when it is empty.
 */
export function fillTableCards(box, tables, { none, title, seat, action }) {
  box.replaceChildren();
  if (!tables.length) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = none;
    box.appendChild(p);
    return null;
  }
  const list = document.createElement("ul");
  list.className = "open-list";
  for (const table of tables) {
    const li = document.createElement("li");
    li.dataset.table = table.id;
    const heading = document.createElement("div");
    heading.className = "open-title";
    heading.textContent = title(table);
    const seats = document.createElement("div");
    seats.className = "open-seats";
    for (const each of table.seats) {
      const span = document.createElement("span");
      span.className = "open-seat";
      span.append(swatch(each.colour, 16), ...seat(each, table));
      seats.appendChild(span);
    }
    const open = document.createElement("a");
    open.href = `/table/${encodeURIComponent(table.id)}`;
    open.dataset.link = "";
    open.className = "button";
    open.textContent = action;
    li.append(heading, seats, open);
    list.appendChild(li);
  }
  box.appendChild(list);
  return list;
}
