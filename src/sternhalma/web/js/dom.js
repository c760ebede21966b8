// Small helpers for the pages' forms and what they keep in this browser.

/** An <option> of a <select>. */
export function option(value, text) {
  const node = document.createElement("option");
  node.value = value;
  node.textContent = text;
  return node;
}

/** The object kept in localStorage under ``key``; {} when there is none or it is unreadable. */
export function storedObject(key) {
  try {
    return JSON.parse(localStorage.getItem(key)) || {};
  } catch {
    return {};
  }
}

/**
 * A move list's rows, a round a row: ``next(seat)`` gives the row for the move of
 * ``seat`` and the round's number, and starts a new row ("1.", "2.", ...) when the seat
 * does not come after the previous move's.
 */
export function roundRows(list) {
  let row = null;
  let round = 0;
  let previous = Infinity;
  return (seat) => {
    if (row === null || seat <= previous) {
      round += 1;
      row = document.createElement("li");
      row.className = "round";
      const number = document.createElement("span");
      number.className = "round-number";
      number.textContent = `${round}.`;
      row.appendChild(number);
      list.appendChild(row);
    }
    previous = seat;
    return { row, round };
  };
}
