// Picking out a box's links on the diagram: while the pointer is over a
// box, or a box has the keyboard focus (a tap focuses it too), the box,
// its links and the boxes at their other ends stay as they are and the
// rest fades (style.css, svg.diagram.hl). The pointer wins over the focus;
// Escape lets the focus go. A diagram is drawn anew whenever its vhost
// changes, so what is picked out is kept per vhost, and the focus is put
// back on the same box in the new drawing (restoreFocus).

const state = new Map(); // vhost → {hover, focus}: box ids ("x:NAME", "q:NAME") or null

// wireHighlight makes root, the diagram of vhost, pick out links.
export function wireHighlight(root, vhost) {
  if (!state.has(vhost)) state.set(vhost, { hover: null, focus: null });
  const s = state.get(vhost);
  const boxOf = (e) => e.target.closest?.("[data-node]")?.dataset.node ?? null;
  root.addEventListener("pointerover", (e) => {
    s.hover = boxOf(e);
    show(root, s);
  });
  root.addEventListener("pointerleave", () => {
    s.hover = null;
    show(root, s);
  });
  root.addEventListener("focusin", (e) => {
    s.focus = boxOf(e);
    show(root, s);
  });
  root.addEventListener("focusout", () => {
    // Decided once the task is over: a diagram replaced by a new drawing
    // (whose removal blurs its box) keeps its vhost's focus for the new
    // one, and so does a window that loses the focus.
    queueMicrotask(() => {
      if (!root.isConnected || root.contains(document.activeElement)) return;
      s.focus = null;
      show(root, s);
    });
  });
  root.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && e.target.closest?.("[data-node]")) e.target.blur();
  });
  show(root, s);
}

// show picks out the box s names, if it is in root.
function show(root, s) {
  let id = s.hover ?? s.focus;
  const sel = (attr, v) => `[${attr}="${CSS.escape(v)}"]`;
  if (id !== null && !root.querySelector(sel("data-node", id))) id = null;
  root.classList.toggle("hl", id !== null);
  const near = new Set([id]);
  for (const l of root.querySelectorAll(".link")) {
    const on = id !== null && (l.dataset.from === id || l.dataset.to === id);
    l.classList.toggle("on", on);
    if (on) near.add(l.dataset.from).add(l.dataset.to);
  }
  for (const n of root.querySelectorAll("[data-node]")) n.classList.toggle("on", id !== null && near.has(n.dataset.node));
}

// restoreFocus puts the focus back on the box that had it before its
// diagram was drawn anew, when nothing else took it meanwhile.
export function restoreFocus() {
  const a = document.activeElement;
  if (a && a !== document.body) return;
  for (const [vhost, s] of state) {
    if (s.focus === null) continue;
    const box = document.querySelector(`svg.diagram[data-vhost="${CSS.escape(vhost)}"] [data-node="${CSS.escape(s.focus)}"]`);
    if (box) return box.focus({ preventScroll: true });
    s.focus = null;
  }
}
