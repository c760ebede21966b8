// The players' clocks, counted down in the page between the server's states.

/** "4:59", "0:09.4": a clock's time left (tenths in the last 10 seconds). */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  const minutes = Math.floor(left / 60000);
  const seconds = Math.floor((left % 60000) / 1000);
  const text = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return left < 10000 ? `${text}.${Math.floor((left % 1000) / 100)}` : text;
}

/** Fills the players list's clocks (``.clock[data-seat]``) ten times a second. */
export function clocksView(root, ctrl) {
  const render = () => {
    if (!ctrl.state?.clock) return;
    for (const node of root.querySelectorAll(".clock[data-seat]")) {
      const left = ctrl.clockLeft(Number(node.dataset.seat));
      node.textContent = formatClock(left);
      node.classList.toggle("low", left < 20000);
    }
  };
  const ticker = setInterval(render, 100);
  return { render, stop: () => clearInterval(ticker) };
}
