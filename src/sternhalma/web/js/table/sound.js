// The table's sounds, made here with WebAudio (no sound files): a move, a capture,
// "your turn", low time and the end of the game. The switch is kept in this browser
// (localStorage); the last sound played is noted on <html data-sound> for tests.

const SOUND = "sternhalma.sound";
const LOW_TIME = 10000;

/** The notes of each sound: [frequency Hz, start s, length s]. */
const SOUNDS = {
  move: [[520, 0, 0.07]],
  capture: [[420, 0, 0.07], [300, 0.08, 0.1]],
  turn: [[660, 0, 0.1], [880, 0.11, 0.14]],
  low: [[990, 0, 0.08], [990, 0.16, 0.08]],
  end: [[523, 0, 0.14], [659, 0.15, 0.14], [784, 0.3, 0.3]],
};

export function soundOn() {
  return localStorage.getItem(SOUND) !== "off";
}

export function setSound(on) {
  localStorage.setItem(SOUND, on ? "on" : "off");
}

let context = null;

export function play(name) {
  document.documentElement.dataset.sound = name;
  if (!soundOn()) return;
  try {
    context ||= new AudioContext();
    if (context.state === "suspended") context.resume();
    const now = context.currentTime;
    for (const [frequency, start, length] of SOUNDS[name]) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = "sine";
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.2, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(context.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // No audio here (a browser without WebAudio): the game goes on in silence.
  }
}

/** The sounds of a table: ``heard(message)`` before each event's state is taken, a
 * check for low time now and then, and the switch (``#sound``). */
export function soundView($, ctrl) {
  const box = $("#sound");
  box.checked = soundOn();
  box.addEventListener("change", () => setSound(box.checked));
  let lowFor = null; // the turn (version) low time was sounded for

  function heard(message) {
    const before = ctrl.state;
    const after = message.state;
    if (!before) return;
    const event = message.event;
    if (after.over && !before.over) return play("end");
    if (after.online && ctrl.isMine(after.turn) && !ctrl.isMine(before.turn)) return play("turn");
    if (event.kind === "move") play(event.removed ? "capture" : "move");
  }

  const ticker = setInterval(() => {
    const state = ctrl.state;
    if (!state || state.over || !state.clock || !ctrl.isMine(state.turn)) return;
    if (lowFor !== state.v && ctrl.clockLeft(state.turn) < LOW_TIME) {
      lowFor = state.v;
      play("low");
    }
  }, 500);
  return { heard, stop: () => clearInterval(ticker) };
}
