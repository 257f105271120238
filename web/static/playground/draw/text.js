// Text widths for the diagram's layout. The layout places every label in a
// slot of its own, so it must know how wide a label will be before the
// SVG is in the page: a canvas measures it in the same font the stylesheet
// gives the diagram (style.css, svg.diagram), Chinese and English alike.

// FONTS are the diagram's text styles as canvas font strings; the sizes
// and weights match style.css's svg.diagram rules.
const FAMILY = 'system-ui, -apple-system, "Segoe UI", sans-serif';
export const FONTS = {
  name: `600 13px ${FAMILY}`, // .name
  small: `11px ${FAMILY}`, // .sub, .args, .edge-label
};

let ctx = null;
const cache = new Map(); // font + "\u0000" + text → width

// textWidth is the width in pixels of text drawn in font (one of FONTS).
// Without a canvas it estimates: wide (CJK) characters one em, others
// 0.62 em.
export function textWidth(text, font) {
  const k = `${font}\u0000${text}`;
  let w = cache.get(k);
  if (w !== undefined) return w;
  if (ctx === null) ctx = globalThis.document?.createElement("canvas").getContext("2d") ?? false;
  if (ctx) {
    ctx.font = font;
    w = ctx.measureText(text).width;
  } else {
    const em = parseFloat(/(\d+)px/.exec(font)[1]);
    w = [...text].reduce((s, c) => s + (c.codePointAt(0) >= 0x2e80 ? em : 0.62 * em), 0);
  }
  if (cache.size > 5000) cache.clear();
  cache.set(k, w);
  return w;
}

// fit shortens text, ending it with …, until it is at most maxPx wide.
export function fit(text, maxPx, font) {
  if (textWidth(text, font) <= maxPx) return text;
  const chars = [...text];
  let lo = 0, hi = chars.length; // the longest prefix that fits with "…" has lo characters
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${chars.slice(0, mid).join("")}…`, font) <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join("")}…`;
}

// wrap breaks parts (short phrases) into lines at most maxPx wide, joined
// by sep; a part wider than a line is cut to fit.
export function wrap(parts, maxPx, font, sep = " · ") {
  const lines = [];
  for (const p of parts) {
    const last = lines.length ? `${lines[lines.length - 1]}${sep}${p}` : null;
    if (last !== null && textWidth(last, font) <= maxPx) lines[lines.length - 1] = last;
    else lines.push(fit(p, maxPx, font));
  }
  return lines;
}
