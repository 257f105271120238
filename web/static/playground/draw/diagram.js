// The diagram draws one vhost's topology as inline SVG (layout.js places
// it): exchanges on the left, queues on the right, bindings as solid
// arrows labelled with their keys (a headers binding with its arguments, a
// fanout binding with none: fanout ignores keys), dead-letter links
// (queue → its dead-letter exchange) and alternate-exchange links as
// dashed arrows of their own colours, and a legend. Which exchanges it
// shows is model.js's rule, the lists' too. Every box can be focused, and
// hovering or focusing one picks out its links (highlight.js). The lists
// below it say the same in text. The queue boxes a call touched flash;
// each diagram keeps its geometry for the tokens (tokens.js).
import { t } from "../../i18n.js";
import { svg } from "../dom.js";
import { fmtMs, exchangeLabel, typedText } from "../format.js";
import { layout, PAD } from "./layout.js";
import { topologyModel } from "./model.js";
import { FONTS, fit, textWidth, wrap } from "./text.js";
import { wireHighlight } from "./highlight.js";

const FLASH_KINDS = new Set(["enqueued", "delivered", "dead-lettered", "expired"]);
const FLASH_MS = 600;
let flashes = new Set(); // vhost + "\u0000" + queue, for the queues the last calls touched
const diagrams = new Map(); // vhost → its last drawn diagram <svg>, with its geometry (see tokens.js)

// noteFlashes keeps the queues a call's events touched, to flash them.
export function noteFlashes(events) {
  for (const e of events) if (FLASH_KINDS.has(e.kind) && e.queue) flashes.add(`${e.vhost}\u0000${e.queue}`);
}

// clearFlashes forgets them: a replay flashes nothing.
export function clearFlashes() {
  flashes = new Set();
}

// flashing lists the queues of vhost v that flash on this draw.
export function flashing(v) {
  return v.queues.filter((q) => flashes.has(`${v.name}\u0000${q.name}`)).map((q) => q.name);
}

// geometryOf is the geometry of vhost's diagram while it is in the page.
export function geometryOf(vhost) {
  const d = diagrams.get(vhost);
  return d && d.isConnected ? d._geometry : null;
}

// diagramOf is vhost's last drawn diagram.
export const diagramOf = (vhost) => diagrams.get(vhost);

// destination names a binding's destination: "queue q" or "exchange x".
export function destination(type, name) {
  return type === "exchange" ? t("js.dest.exchange", { name }) : t("js.dest.queue", { name });
}

// bindingText is a binding group's label on the diagram and what its
// tooltip says of it, by how its source exchange routes. Keys and
// argument sets are sorted: the order they were bound in changes nothing.
function bindingText(b, routing) {
  if (routing === "fanout") return { label: "", what: t("js.diagram.keyIgnored") };
  if (routing === "headers") {
    const sets = b.args.map((a) => Object.entries(a).map(([k, v]) => `${k}=${typedText(v)}`).sort().join(" ") || "{}");
    const args = sets.sort().join(" | ");
    return { label: args, what: t("js.diagram.args", { args }) };
  }
  const keys = b.keys.map((k) => (k === "" ? '""' : k)).sort().join(", ");
  return { label: keys, what: t("js.diagram.key", { key: keys }) };
}

function queueArgParts(q) {
  const e = q.effective;
  const parts = [q.type];
  if (e.messageTtlMs !== null) parts.push(t("js.box.arg", { name: t("js.arg.ttl"), value: fmtMs(e.messageTtlMs) }));
  if (e.deadLetterExchange !== null) parts.push(t("js.box.arg", { name: t("js.arg.dlx"), value: exchangeLabel(e.deadLetterExchange) }));
  if (e.maxLength !== null) parts.push(t("js.box.arg", { name: t("js.arg.maxLength"), value: e.maxLength }));
  if (e.maxLengthBytes !== null) parts.push(t("js.box.arg", { name: t("js.arg.maxBytes"), value: e.maxLengthBytes }));
  return parts;
}

const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, Math.ceil(x)));
const EX_H = 44;
const CONSUMER_STEP = 13; // between two consumer dots
const MAX_CONSUMERS_SHOWN = 6;

export function drawDiagram(v, idx) {
  const m = topologyModel(v);
  const xType = new Map(m.exchanges.map((x) => [x.name, x]));
  const exSub = (x) => (x.isDefault ? t("js.diagram.defaultSub") : x.missing ? t("js.diagram.notDeclared") : x.heldCount ? t("js.diagram.typeHolding", { type: x.type, n: x.heldCount }) : x.type);
  // Box widths from the names and arguments, never from counts, so that
  // messages coming and going leave the picture where it is.
  const exW = clamp(Math.max(...m.exchanges.map((x) => Math.max(textWidth(exchangeLabel(x.name), FONTS.name), textWidth(exSub(x), FONTS.small)) + 18)), 120, 200);
  const qW = clamp(Math.max(0, ...m.queues.map((q) => textWidth(q.name, FONTS.name) + 18)), 170, 240);
  const qLines = new Map(m.queues.map((q) => [q.name, wrap(queueArgParts(q), qW - 16, FONTS.small)]));

  // Links: [{id, kind, from, to, label, title}].
  const links = [];
  for (const b of m.bindings) {
    const { label, what } = bindingText(b, xType.get(b.source)?.routing);
    const to = `${b.destType === "exchange" ? "x" : "q"}:${b.dest}`;
    const title = t("js.diagram.bindingTo", { source: exchangeLabel(b.source), dest: destination(b.destType, b.dest), what });
    links.push({ id: `b:${b.source}\u0000${to}`, kind: "binding", from: `x:${b.source}`, to, label, title, testid: `diagram-binding-${b.source}-${b.dest}` });
  }
  for (const l of m.dlx) {
    const title = l.key !== null ? t("js.diagram.dlxKey", { queue: l.queue, exchange: exchangeLabel(l.exchange), key: l.key }) : t("js.diagram.dlx", { queue: l.queue, exchange: exchangeLabel(l.exchange) });
    links.push({ id: `d:${l.queue}`, kind: "dlx", from: `q:${l.queue}`, to: `x:${l.exchange}`, label: l.key !== null ? t("js.diagram.key", { key: l.key === "" ? '""' : l.key }) : "", title, testid: `diagram-link-dlx-${l.queue}` });
  }
  for (const a of m.ae) {
    links.push({ id: `a:${a.source}`, kind: "ae", from: `x:${a.source}`, to: `x:${a.target}`, label: "", title: t("js.diagram.ae", { source: exchangeLabel(a.source), target: exchangeLabel(a.target) }), testid: `diagram-link-ae-${a.source}` });
  }
  const g = layout({
    exchanges: m.exchanges.map((x) => ({ id: `x:${x.name}`, h: EX_H })),
    queues: m.queues.map((q) => ({ id: `q:${q.name}`, h: 38 + 13 * qLines.get(q.name).length })),
    links,
    exW,
    qW,
    pinFirst: true,
  });
  const id = (s) => `${s}-${idx}`;
  const marker = (name, cls) =>
    svg("marker", { id: id(name), viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: cls }));
  const defs = svg("defs", {}, marker("arrow-binding", "head binding"), marker("arrow-dlx", "head dlx"), marker("arrow-ae", "head ae"));
  const DASH = { binding: null, dlx: "6 4", ae: "2 4" };

  const linkTitles = new Map(); // box id → the titles of its links
  const linkEls = g.edges.map((e) => {
    for (const end of new Set([e.from, e.to])) (linkTitles.get(end) ?? linkTitles.set(end, []).get(end)).push(e.title);
    return svg(
      "g",
      { class: `link ${e.kind}`, "data-testid": e.testid, "data-from": e.from, "data-to": e.to },
      svg("title", {}, e.title),
      svg("path", { d: e.d, class: `edge ${e.kind}`, "stroke-dasharray": DASH[e.kind], "marker-end": `url(#${id(`arrow-${e.kind}`)})` }),
      e.label ? svg("text", { x: e.label.x, y: e.label.y, class: `edge-label ${e.kind}`, "text-anchor": "end" }, e.label.text) : null,
    );
  });
  // A box can be focused; its accessible name says what it is and what
  // links it has.
  const focusable = (boxId, title) => {
    const ls = linkTitles.get(boxId);
    return { tabindex: 0, role: "img", "data-node": boxId, "aria-label": ls ? t("js.diagram.nodeLinks", { node: title, links: ls.join(t("js.diagram.linkSep")) }) : title };
  };

  // Boxes in the order they stand, top to bottom: the order Tab visits them.
  const byPlace = (col, prefix) => col.slice().sort((a, b) => g.order.get(`${prefix}:${a.name}`) - g.order.get(`${prefix}:${b.name}`));
  const exGroups = byPlace(m.exchanges, "x").map((x) => {
    const b = g.boxes.get(`x:${x.name}`);
    const title = x.isDefault ? t("js.diagram.defaultExchange") : x.missing ? t("js.diagram.exchangeMissing", { name: x.name }) : t("js.diagram.exchange", { name: x.name, type: x.type });
    return svg(
      "g",
      { class: `dx${x.missing ? " missing" : ""}${x.isDefault ? " default" : ""}`, "data-testid": `diagram-exchange-${x.name}`, ...focusable(`x:${x.name}`, title) },
      svg("title", {}, title),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 17 }, fit(exchangeLabel(x.name), b.w - 16, FONTS.name)),
      svg("text", { class: "sub", x: b.x + 8, y: b.y + 33 }, fit(exSub(x), b.w - 16, FONTS.small)),
    );
  });
  const consumerAt = new Map(); // queue + "\u0000" + consumer tag → the centre of its circle
  const qGroups = byPlace(m.queues, "q").map((q) => {
    const b = g.boxes.get(`q:${q.name}`);
    const flash = flashes.has(`${v.name}\u0000${q.name}`);
    const shown = q.consumers.slice(0, MAX_CONSUMERS_SHOWN);
    const dotX = (i) => b.x + b.w - 10 - i * CONSUMER_STEP;
    shown.forEach((c, i) => consumerAt.set(`${q.name}\u0000${c.tag}`, { x: dotX(i), y: b.y + 11 }));
    const more = q.consumers.length - shown.length;
    const dotsW = shown.length ? shown.length * CONSUMER_STEP + (more ? textWidth(`+${more}`, FONTS.small) + 4 : 0) : 0;
    const title = t(q.expired ? "js.diagram.queueExpired" : "js.diagram.queue", { name: q.name, ready: q.readyCount, unacked: q.unacked, expired: q.expired, consumers: q.consumers.length });
    return svg(
      "g",
      { class: `dq${flash ? " flash" : ""}`, "data-testid": `diagram-queue-${q.name}`, ...focusable(`q:${q.name}`, title) },
      svg("title", {}, title),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 16 }, fit(q.name, b.w - 16 - dotsW, FONTS.name)),
      countsText(q, b),
      qLines.get(q.name).map((line, i) => svg("text", { class: "args", x: b.x + 8, y: b.y + 45 + 13 * i }, line)),
      shown.map((c, i) =>
        svg("circle", { class: `consumer${c.active ? "" : " waiting"}`, cx: dotX(i), cy: b.y + 11, r: 4.5, "data-testid": "diagram-consumer" }, svg("title", {}, t(c.active ? "js.diagram.consumer" : "js.diagram.consumerWaiting", { tag: c.tag, channel: c.channel }))),
      ),
      more > 0 ? svg("text", { class: "sub", x: dotX(shown.length) + 4, y: b.y + 15, "text-anchor": "end" }, `+${more}`) : null,
    );
  });

  const { legend, height: legendH } = drawLegend(g.W, g.H, id);
  const W = g.W, H = g.H + legendH;
  const nx = m.exchanges.length, nq = m.queues.length;
  const root = svg(
    "svg",
    {
      class: "diagram",
      viewBox: `0 0 ${W} ${H}`,
      // Never drawn much smaller than its own size: on a narrow screen the
      // diagram scrolls sideways, and its labels stay readable.
      style: `min-width: ${Math.round(W * 0.9)}px; max-width: ${Math.round(W * 1.25)}px`,
      role: "group",
      "aria-labelledby": `${id("diagram-title")} ${id("diagram-desc")}`,
      "data-testid": "diagram",
      "data-vhost": v.name,
    },
    svg("title", { id: id("diagram-title") }, t("js.diagram.title", { vhost: v.name })),
    svg(
      "desc",
      { id: id("diagram-desc") },
      t("js.diagram.desc", {
        exchanges: t(nx === 1 ? "js.diagram.exchanges.one" : "js.diagram.exchanges.other", { n: nx }),
        queues: t(nq === 1 ? "js.diagram.queues.one" : "js.diagram.queues.other", { n: nq }),
        bindings: m.bindings.length,
        dlx: m.dlx.length,
        ae: m.ae.length,
      }),
    ),
    defs,
    svg("g", { class: "links" }, linkEls),
    exGroups,
    qGroups,
    legend,
  );
  root._geometry = { boxes: g.boxes, arrows: g.edges.filter((e) => e.kind !== "dlx").map((e) => ({ from: e.from, to: e.to, segs: e.segs })), dlxCurves: new Map(g.edges.filter((e) => e.kind === "dlx").map((e) => [e.from.slice(2), e.segs])), consumerAt, publisherX: PAD };
  wireHighlight(root, v.name);
  diagrams.set(v.name, root);
  return root;
}

// countsText is a queue's counts line: ready, then unacked and expired
// while they fit the box.
function countsText(q, b) {
  const max = b.w - 16;
  const ready = t("js.diagram.ready", { n: q.readyCount });
  const parts = [];
  if (q.unacked) parts.push({ text: ` · ${t("js.diagram.unacked", { n: q.unacked })}` });
  if (q.expired) parts.push({ text: ` · ${t("js.diagram.expired", { n: q.expired })}`, cls: "expired", testid: "diagram-expired" });
  let line = ready;
  const kept = [];
  for (const p of parts) {
    if (textWidth(line + p.text, FONTS.small) > max) {
      kept.push({ text: " …" });
      break;
    }
    line += p.text;
    kept.push(p);
  }
  return svg(
    "text",
    { class: "sub", x: b.x + 8, y: b.y + 31 },
    svg("tspan", { "data-testid": "diagram-ready" }, ready),
    kept.map((p) => (p.cls ? svg("tspan", { class: p.cls, "data-testid": p.testid }, p.text) : p.text)),
  );
}

// drawLegend lays the legend's items out in rows under the diagram.
function drawLegend(W, top, id) {
  const ROW_H = 20, SWATCH = 28;
  const items = [
    ["binding", null, t("js.legend.binding")],
    ["dlx", "6 4", t("js.legend.dlx")],
    ["ae", "2 4", t("js.legend.ae")],
    ["consumer", null, t("js.legend.consumer")],
  ];
  const parts = [];
  let x = PAD, row = 0;
  for (const [cls, dash, text] of items) {
    const w = (cls === "consumer" ? 12 : SWATCH + 6) + textWidth(text, FONTS.small) + 18;
    if (x > PAD && x + w > W - PAD) {
      x = PAD;
      row++;
    }
    const y = top + row * ROW_H + ROW_H / 2;
    if (cls === "consumer") {
      parts.push(svg("circle", { class: "consumer", cx: x + 5, cy: y, r: 4.5 }), svg("text", { x: x + 14, y: y + 4, class: "sub" }, text));
    } else {
      parts.push(
        svg("line", { x1: x, y1: y, x2: x + SWATCH, y2: y, class: `edge ${cls}`, "stroke-dasharray": dash, "marker-end": `url(#${id(`arrow-${cls}`)})` }),
        svg("text", { x: x + SWATCH + 6, y: y + 4, class: "sub" }, text),
      );
    }
    x += w;
  }
  return { legend: svg("g", { class: "legend", "data-testid": "diagram-legend" }, parts), height: (row + 1) * ROW_H + 6 };
}

// queueEntryY is where tokens fade in a queue's box.
export const queueEntryY = (b) => b.y + Math.min(b.h * 0.35, 20);

// flashSoon takes the queue boxes that flash off again after FLASH_MS.
export function flashSoon(root) {
  const boxes = root.querySelectorAll(".dq.flash");
  if (boxes.length) setTimeout(() => boxes.forEach((b) => b.classList.remove("flash")), FLASH_MS);
  flashes = new Set();
}
