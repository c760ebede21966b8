// Modal questions: a confirmation (yes / no) and a choice among several answers.
// Built on <dialog>, so focus stays inside and Escape answers "no".

function open(build) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.className = "question";
    const done = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    build(dialog, done);
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      done(null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    dialog.querySelector("button")?.focus();
  });
}

function button(text, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (cls) b.className = cls;
  b.addEventListener("click", onClick);
  return b;
}

/** Resolves true when the player answers ``yes``. */
export async function ask(message, yes, no) {
  const answer = await open((dialog, done) => {
    const p = document.createElement("p");
    p.textContent = message;
    const row = document.createElement("div");
    row.className = "buttons";
    row.append(button(yes, "primary", () => done(true)), button(no, "", () => done(false)));
    dialog.append(p, row);
  });
  return answer === true;
}

/** Resolves one of ``options`` (strings), or null when cancelled. ``preview(option)`` is
 * called as the player hovers or focuses an option, and with null when none is. */
export function choose(title, options, cancel, preview = null) {
  return open((dialog, done) => {
    const p = document.createElement("p");
    p.textContent = title;
    const row = document.createElement("div");
    row.className = "buttons column";
    for (const option of options) {
      const b = button(option, "", () => done(option));
      if (preview) {
        b.addEventListener("mouseenter", () => preview(option));
        b.addEventListener("focus", () => preview(option));
      }
      row.appendChild(b);
    }
    row.appendChild(button(cancel, "", () => done(null)));
    if (preview) {
      // The board behind shows the chain: a light veil, the question out of its way.
      dialog.classList.add("previewing");
      dialog.addEventListener("close", () => preview(null));
    }
    dialog.append(p, row);
  });
}
