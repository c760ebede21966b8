// SVG drawing shared by the boards, the players lists and the graphs: elements, the
// marks that tell the seat colours apart without colour, and a marble's swatch.

const SVG = "http://www.w3.org/2000/svg";

/** The marks that tell the seat colours apart without colour (drawn in the marble). */
export const MARKS = {
  white: "dot",
  red: "triangle",
  blue: "square",
  black: "cross",
  yellow: "star",
  green: "diamond",
};

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function starPoints(r, inner) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 ? inner : r;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(radius * Math.cos(angle)).toFixed(3)},${(radius * Math.sin(angle)).toFixed(3)}`);
  }
  return points.join(" ");
}

/** Draws the mark of ``colour`` centred on (0, 0) into ``parent``. */
export function drawMark(parent, colour, size = 0.4) {
  const s = size;
  const cls = { class: "mark" };
  switch (MARKS[colour]) {
    case "dot":
      el("circle", { ...cls, r: (s * 0.38).toFixed(3) }, parent);
      break;
    case "triangle":
      el("polygon", { ...cls, points: `0,${-s * 0.55} ${s * 0.5},${s * 0.35} ${-s * 0.5},${s * 0.35}` }, parent);
      break;
    case "square":
      el("rect", { ...cls, x: -s * 0.38, y: -s * 0.38, width: s * 0.76, height: s * 0.76 }, parent);
      break;
    case "cross":
      el("path", { class: "mark line", d: `M${-s * 0.45},0H${s * 0.45}M0,${-s * 0.45}V${s * 0.45}`, style: `stroke-width:${(s * 0.22).toFixed(3)}` }, parent);
      break;
    case "star":
      el("polygon", { ...cls, points: starPoints(s * 0.6, s * 0.25) }, parent);
      break;
    case "diamond":
      el("polygon", { ...cls, points: `0,${-s * 0.55} ${s * 0.45},0 0,${s * 0.55} ${-s * 0.45},0` }, parent);
      break;
    default:
      break;
  }
}

/** A small SVG swatch of a seat's marble (for the players list and the lobby). */
export function swatch(colour, size = 22) {
  const svg = el("svg", { viewBox: "-0.5 -0.5 1 1", width: size, height: size, class: "swatch", "aria-hidden": "true" });
  const g = el("g", { class: `marble c-${colour}` }, svg);
  el("circle", { class: "body", r: 0.45 }, g);
  drawMark(g, colour, 0.45);
  return svg;
}
