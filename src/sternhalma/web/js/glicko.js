// Glicko-2, ported from sternhalma/rating.py (update: one rating period), for the
// puzzle rating this browser keeps: each attempt is a game against the puzzle, whose
// rating is its difficulty. tests/e2e/test_puzzles.py checks it against the Python.

export const START = { rating: 1500, deviation: 350, volatility: 0.06 };
const TAU = 0.5;
const SCALE = 400 / Math.log(10);
const EPSILON = 1e-6;

const g = (phi) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

function newVolatility(phi, sigma, v, delta) {
  const a = Math.log(sigma * sigma);
  const f = (x) => {
    const ex = Math.exp(x);
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (TAU * TAU);
  };
  let low = a;
  let high;
  if (delta * delta > phi * phi + v) high = Math.log(delta * delta - phi * phi - v);
  else {
    let k = 1;
    while (f(a - k * TAU) < 0) k += 1;
    high = a - k * TAU;
  }
  let fLow = f(low);
  let fHigh = f(high);
  while (Math.abs(high - low) > EPSILON) {
    const middle = low + ((low - high) * fLow) / (fHigh - fLow);
    const fMiddle = f(middle);
    if (fMiddle * fHigh <= 0) {
      low = high;
      fLow = fHigh;
    } else fLow /= 2;
    high = middle;
    fHigh = fMiddle;
  }
  return Math.exp(low / 2);
}

/** The player's rating after ``results``: [{rating, deviation}, score (0..1), weight]. */
export function update(player, results) {
  const mu = (player.rating - 1500) / SCALE;
  const phi = player.deviation / SCALE;
  let information = 0;
  let improvement = 0;
  for (const [opponent, score, weight] of results) {
    const oMu = (opponent.rating - 1500) / SCALE;
    const oPhi = opponent.deviation / SCALE;
    const gg = g(oPhi);
    const expected = 1 / (1 + Math.exp(-gg * (mu - oMu)));
    information += weight * gg * gg * expected * (1 - expected);
    improvement += weight * gg * (score - expected);
  }
  const v = 1 / information;
  const sigma = newVolatility(phi, player.volatility, v, v * improvement);
  const phiStar = Math.sqrt(phi * phi + sigma * sigma);
  const newPhi = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  return { rating: 1500 + SCALE * (mu + newPhi * newPhi * improvement), deviation: SCALE * newPhi, volatility: sigma };
}
