// Building and updating the page's elements: the shorthand $, element and
// SVG builders, the status line, and reconcile, which keeps a list of
// keyed children up to date without redrawing what did not change.

export const $ = (id) => document.getElementById(id);

// el builds an element: el("li", {class: "x", dataset: {testid: "y"}}, child...).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(e.dataset, v);
    else if (k === "onclick") e.addEventListener("click", v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const SVGNS = "http://www.w3.org/2000/svg";

// svg is el for SVG elements.
export function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, String(v));
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// say writes the status line at the top of the page.
export function say(text, isError = false) {
  const s = $("status");
  s.textContent = text;
  s.classList.toggle("error", isError);
}

// reconcile makes parent's children the nodes of items ({key, build}) in
// order, keeping each child whose key is unchanged at its place and
// building only the others: a step that changes one queue redraws one
// card, and the browser restyles only what was replaced. Returns whether
// anything changed.
export function reconcile(parent, items) {
  const old = parent._keys || [];
  const kids = parent.children;
  let changed = false;
  items.forEach(({ key, build }, i) => {
    if (old[i] === key && kids[i]) return;
    changed = true;
    const node = build();
    if (kids[i]) parent.replaceChild(node, kids[i]);
    else parent.append(node);
  });
  while (kids.length > items.length) {
    kids[kids.length - 1].remove();
    changed = true;
  }
  parent._keys = items.map((it) => it.key);
  return changed;
}
