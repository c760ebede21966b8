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
