// The table's chat (online tables only): the players' room for the players, the
// spectators' for the others (docs/protocol.md "chat"). Every line is put in the page as
// text, never as markup. A player can mute another: that one's lines are hidden in this
// browser (kept in localStorage).

import { identity } from "../api.js";
import { t } from "../i18n.js";
import { colourName } from "../words.js";

const MUTED = "sternhalma.muted";

function muted() {
  try {
    const list = JSON.parse(localStorage.getItem(MUTED));
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function setMuted(list) {
  localStorage.setItem(MUTED, JSON.stringify(list.slice(-200)));
}

export function chatView($, ctrl) {
  const box = $("#chat");
  const list = $("#chat-lines");
  const form = $("#chat-form");
  const input = $("#chat-text");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    ctrl.speak(text);
    input.value = "";
  });

  let drawn = "";
  return function render() {
    const state = ctrl.state;
    box.hidden = !state.online;
    if (!state.online) return;
    const player = ctrl.mySeats.length > 0;
    $("#chat-title").textContent = t(player ? "chat.players" : "chat.spectators");
    const canSpeak = player || identity() !== null;
    form.hidden = !canSpeak;
    $("#chat-who").hidden = canSpeak;
    const quiet = muted();
    const me = identity()?.id;
    const key = JSON.stringify([ctrl.chat.length, ctrl.chat.at(-1)?.id, quiet, player]);
    if (key === drawn) return;
    drawn = key;
    list.replaceChildren();
    for (const line of ctrl.chat) {
      if (line.player && quiet.includes(line.player)) continue;
      const li = document.createElement("li");
      li.className = `chat-line room-${line.room}`;
      const who = document.createElement("b");
      const seat = line.seat !== null && state.seats[line.seat] ? ` (${colourName(state.seats[line.seat].colour)})` : "";
      who.textContent = `${line.nickname}${seat}`;
      const text = document.createElement("span");
      text.className = "chat-said";
      text.textContent = line.text;
      li.append(who, " ", text);
      if (line.player && line.player !== me) {
        const mute = document.createElement("button");
        mute.type = "button";
        mute.className = "chat-mute";
        mute.textContent = t("chat.mute");
        mute.title = t("chat.muteWho", { who: line.nickname });
        mute.addEventListener("click", () => {
          setMuted([...muted(), line.player]);
          drawn = "";
          render();
        });
        li.append(" ", mute);
      }
      list.appendChild(li);
    }
    list.scrollTop = list.scrollHeight;
  };
}
