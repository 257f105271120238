// The diagram draws one vhost's topology as inline SVG: exchanges in the
// left column, queues in the right, bindings as solid arrows labelled with
// their routing keys, dead-letter links (queue → its dead-letter exchange)
// and alternate-exchange links as dashed arrows of their own colours. The
// lists below it say the same in text, and stay the accessible alternative.
// The queue boxes a call touched flash; each diagram keeps its geometry
// for the tokens (tokens.js).
import { t } from "../../i18n.js";
import { svg } from "../dom.js";
import { fmtMs, clip, exchangeLabel } from "../format.js";

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

// diagramModel picks what the diagram shows: the exchanges the lists show,
// plus the default and amq.* exchanges when a binding, a dead-letter link
// or an alternate-exchange link involves them (the default exchange's
// implicit bindings are not drawn), and any such target that does not exist.
function diagramModel(v) {
  const byName = new Map(v.exchanges.map((x) => [x.name, x]));
  const shown = new Set(v.exchanges.filter((x) => x.name !== "" && !x.name.startsWith("amq.")).map((x) => x.name));
  const bindings = new Map(); // source, type, destination → routing keys
  for (const b of v.bindings) {
    if (b.source === "") continue; // implicit
    shown.add(b.source);
    if (b.destinationType === "exchange") shown.add(b.destination);
    const k = JSON.stringify([b.source, b.destinationType, b.destination]);
    if (!bindings.has(k)) bindings.set(k, { source: b.source, destType: b.destinationType, dest: b.destination, keys: [] });
    bindings.get(k).keys.push(b.routingKey);
  }
  const dlx = v.queues.filter((q) => q.effective.deadLetterExchange !== null).map((q) => ({ queue: q.name, exchange: q.effective.deadLetterExchange, key: q.effective.deadLetterRoutingKey }));
  for (const d of dlx) shown.add(d.exchange);
  const ae = [];
  for (let grown = true; grown; ) {
    grown = false;
    for (const x of v.exchanges) {
      if (!x.alternate || !shown.has(x.name) || ae.some((a) => a.source === x.name)) continue;
      ae.push({ source: x.name, target: x.alternate });
      if (!shown.has(x.alternate)) shown.add(x.alternate);
      grown = true;
    }
  }
  const exchanges = v.exchanges.filter((x) => shown.has(x.name));
  for (const name of [...shown].filter((n) => !byName.has(n)).sort()) exchanges.push({ name, type: "missing", missing: true });
  return { exchanges, queues: v.queues, bindings: [...bindings.values()], dlx, ae };
}

function queueArgsText(q) {
  const e = q.effective;
  const parts = [q.type];
  if (e.messageTtlMs !== null) parts.push(t("js.box.arg", { name: t("js.arg.ttl"), value: fmtMs(e.messageTtlMs) }));
  if (e.deadLetterExchange !== null) parts.push(t("js.box.arg", { name: t("js.arg.dlx"), value: exchangeLabel(e.deadLetterExchange) }));
  if (e.maxLength !== null) parts.push(t("js.box.arg", { name: t("js.arg.maxLength"), value: e.maxLength }));
  if (e.maxLengthBytes !== null) parts.push(t("js.box.arg", { name: t("js.arg.maxBytes"), value: e.maxLengthBytes }));
  // Lines of at most 34 characters, which fit the box.
  const lines = [];
  for (const p of parts) {
    if (lines.length && lines[lines.length - 1].length + p.length + 3 <= 34) lines[lines.length - 1] += ` · ${p}`;
    else lines.push(clip(p, 34));
  }
  return lines;
}

export function drawDiagram(v, idx) {
  const m = diagramModel(v);
  if (!m.exchanges.length && !m.queues.length) return null;
  const W = 680, PAD = 12, GAP = 14;
  const EX_X = 90, EX_W = 180, EX_H = 42, Q_W = 210, Q_X = W - Q_W - PAD;
  const boxes = new Map(); // "x:" or "q:" + name → {x, y, w, h}
  let y = PAD;
  for (const x of m.exchanges) {
    boxes.set(`x:${x.name}`, { x: EX_X, y, w: EX_W, h: EX_H });
    y += EX_H + GAP;
  }
  let exBottom = y;
  y = PAD;
  const qLines = new Map();
  for (const q of m.queues) {
    const lines = queueArgsText(q);
    qLines.set(q.name, lines);
    const h = 38 + 13 * lines.length;
    boxes.set(`q:${q.name}`, { x: Q_X, y, w: Q_W, h });
    y += h + GAP;
  }
  const LEGEND_H = 26;
  const H = Math.max(exBottom, y, 60) + LEGEND_H;
  const id = (s) => `${s}-${idx}`;

  const marker = (name, cls) =>
    svg("marker", { id: id(name), viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: cls }));
  const defs = svg("defs", {}, marker("arrow-binding", "head binding"), marker("arrow-dlx", "head dlx"), marker("arrow-ae", "head ae"));

  const edgeLabel = (x, y, text, cls = "") => svg("text", { x, y, class: `edge-label ${cls}`, "text-anchor": "middle" }, clip(text, 28));
  const links = [];
  // arrows keeps each binding and alternate-exchange arrow as what it
  // links ("x:NAME" or "q:NAME") and its cubic Bézier ([x1, y1, c1x, c1y,
  // c2x, c2y, x2, y2]), and dlxCurves each queue's dead-letter arrow, so
  // that tokens can travel along them.
  const arrows = [];
  const dlxCurves = new Map();
  const cubic = (c) => `M${c[0]},${c[1]} C${c[2]},${c[3]} ${c[4]},${c[5]} ${c[6]},${c[7]}`;
  const leftCurve = (a, b, fa, fb, off) => {
    const x1 = a.x, y1 = a.y + a.h * fa, x2 = b.x, y2 = b.y + b.h * fb;
    const c = [x1, y1, x1 - off, y1, x2 - off, y2, x2, y2];
    return { c, d: cubic(c), lx: x1 - off * 0.75, ly: (y1 + y2) / 2 };
  };
  for (const b of m.bindings) {
    const src = boxes.get(`x:${b.source}`);
    const dst = boxes.get(`${b.destType === "exchange" ? "x" : "q"}:${b.dest}`);
    if (!src || !dst) continue;
    const keys = b.keys.map((k) => (k === "" ? '""' : k)).join(", ");
    let c, d, lx, ly;
    if (b.destType === "exchange") {
      ({ c, d, lx, ly } = leftCurve(src, dst, 0.35, 0.35, Math.min(70, 30 + Math.abs(dst.y - src.y) / 6)));
    } else {
      const x1 = src.x + src.w, y1 = src.y + src.h * 0.4, x2 = dst.x, y2 = queueEntryY(dst);
      c = [x1, y1, x1 + 70, y1, x2 - 70, y2, x2, y2];
      d = cubic(c);
      lx = (x1 + x2) / 2;
      ly = (y1 + y2) / 2 - 3;
    }
    arrows.push({ from: `x:${b.source}`, to: `${b.destType === "exchange" ? "x" : "q"}:${b.dest}`, c });
    links.push(
      svg(
        "g",
        { class: "link binding", "data-testid": `diagram-binding-${b.source}-${b.dest}` },
        svg("title", {}, t(b.destType === "exchange" ? "js.diagram.bindingToExchange" : "js.diagram.binding", { source: b.source, dest: b.dest, keys })),
        svg("path", { d, class: "edge binding", "marker-end": `url(#${id("arrow-binding")})` }),
        edgeLabel(lx, ly, keys),
      ),
    );
  }
  for (const l of m.dlx) {
    const q = boxes.get(`q:${l.queue}`), x = boxes.get(`x:${l.exchange}`);
    if (!q || !x) continue;
    const x1 = q.x, y1 = q.y + q.h * 0.72, x2 = x.x + x.w, y2 = x.y + x.h * 0.75;
    const c = [x1, y1, x1 - 70, y1, x2 + 70, y2, x2, y2];
    dlxCurves.set(l.queue, c);
    links.push(
      svg(
        "g",
        { class: "link dlx", "data-testid": `diagram-link-dlx-${l.queue}` },
        svg("title", {}, l.key !== null ? t("js.diagram.dlxKey", { queue: l.queue, exchange: exchangeLabel(l.exchange), key: l.key }) : t("js.diagram.dlx", { queue: l.queue, exchange: exchangeLabel(l.exchange) })),
        svg("path", { d: cubic(c), class: "edge dlx", "stroke-dasharray": "6 4", "marker-end": `url(#${id("arrow-dlx")})` }),
        l.key !== null ? edgeLabel((x1 + x2) / 2, (y1 + y2) / 2 + 11, t("js.diagram.key", { key: l.key }), "dlx") : null,
      ),
    );
  }
  for (const a of m.ae) {
    const s = boxes.get(`x:${a.source}`), tb = boxes.get(`x:${a.target}`);
    if (!s || !tb) continue;
    const { c, d } = leftCurve(s, tb, 0.7, 0.7, Math.min(85, 40 + Math.abs(tb.y - s.y) / 6));
    arrows.push({ from: `x:${a.source}`, to: `x:${a.target}`, c });
    links.push(
      svg(
        "g",
        { class: "link ae", "data-testid": `diagram-link-ae-${a.source}` },
        svg("title", {}, t("js.diagram.ae", { source: a.source, target: a.target })),
        svg("path", { d, class: "edge ae", "stroke-dasharray": "2 4", "marker-end": `url(#${id("arrow-ae")})` }),
      ),
    );
  }

  const exGroups = m.exchanges.map((x) => {
    const b = boxes.get(`x:${x.name}`);
    return svg(
      "g",
      { class: `dx${x.missing ? " missing" : ""}`, "data-testid": `diagram-exchange-${x.name}` },
      svg("title", {}, x.missing ? t("js.diagram.exchangeMissing", { name: exchangeLabel(x.name) }) : t("js.diagram.exchange", { name: exchangeLabel(x.name), type: x.type })),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 17 }, clip(exchangeLabel(x.name), 24)),
      svg("text", { class: "sub", x: b.x + 8, y: b.y + 33 }, x.missing ? t("js.diagram.notDeclared") : x.heldCount ? t("js.diagram.typeHolding", { type: x.type, n: x.heldCount }) : x.type),
    );
  });
  const consumerAt = new Map(); // queue + "\u0000" + consumer tag → the centre of its circle
  const qGroups = m.queues.map((q) => {
    const b = boxes.get(`q:${q.name}`);
    const flash = flashes.has(`${v.name}\u0000${q.name}`);
    const shownConsumers = q.consumers.slice(0, 6);
    shownConsumers.forEach((c, i) => consumerAt.set(`${q.name}\u0000${c.tag}`, { x: b.x + b.w - 10 - i * 13, y: b.y + 11 }));
    return svg(
      "g",
      { class: `dq${flash ? " flash" : ""}`, "data-testid": `diagram-queue-${q.name}` },
      svg("title", {}, t(q.expired ? "js.diagram.queueExpired" : "js.diagram.queue", { name: q.name, ready: q.readyCount, unacked: q.unacked, expired: q.expired, consumers: q.consumers.length })),
      svg("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h, rx: 5 }),
      svg("text", { class: "name", x: b.x + 8, y: b.y + 16 }, clip(q.name, 22)),
      svg(
        "text",
        { class: "sub", x: b.x + 8, y: b.y + 31 },
        svg("tspan", { "data-testid": "diagram-ready" }, t("js.diagram.ready", { n: q.readyCount })),
        q.unacked ? ` · ${t("js.diagram.unacked", { n: q.unacked })}` : "",
        q.expired ? svg("tspan", { class: "expired", "data-testid": "diagram-expired" }, ` · ${t("js.diagram.expired", { n: q.expired })}`) : "",
      ),
      qLines.get(q.name).map((line, i) => svg("text", { class: "args", x: b.x + 8, y: b.y + 45 + 13 * i }, line)),
      shownConsumers.map((c, i) =>
        svg("circle", { class: `consumer${c.active ? "" : " waiting"}`, cx: b.x + b.w - 10 - i * 13, cy: b.y + 11, r: 4.5, "data-testid": "diagram-consumer" }, svg("title", {}, t(c.active ? "js.diagram.consumer" : "js.diagram.consumerWaiting", { tag: c.tag, channel: c.channel }))),
      ),
      q.consumers.length > shownConsumers.length ? svg("text", { class: "sub", x: b.x + b.w - 10 - shownConsumers.length * 13, y: b.y + 15, "text-anchor": "end" }, `+${q.consumers.length - shownConsumers.length}`) : null,
    );
  });

  const ly = H - LEGEND_H / 2;
  const legendItem = (x, cls, dash, marker, text) => [
    svg("line", { x1: x, y1: ly, x2: x + 28, y2: ly, class: `edge ${cls}`, "stroke-dasharray": dash, "marker-end": `url(#${id(marker)})` }),
    svg("text", { x: x + 34, y: ly + 4, class: "sub" }, text),
  ];
  const legend = svg(
    "g",
    { class: "legend", "data-testid": "diagram-legend" },
    legendItem(PAD, "binding", null, "arrow-binding", t("js.legend.binding")),
    legendItem(190, "dlx", "6 4", "arrow-dlx", t("js.legend.dlx")),
    legendItem(320, "ae", "2 4", "arrow-ae", t("js.legend.ae")),
    svg("circle", { class: "consumer", cx: 480, cy: ly, r: 4.5 }),
    svg("text", { x: 490, y: ly + 4, class: "sub" }, t("js.legend.consumer")),
  );

  const nx = m.exchanges.length, nq = m.queues.length;
  const root = svg(
    "svg",
    { class: "diagram", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${id("diagram-title")} ${id("diagram-desc")}`, "data-testid": "diagram", "data-vhost": v.name },
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
    links,
    exGroups,
    qGroups,
    legend,
  );
  root._geometry = { boxes, arrows, dlxCurves, consumerAt, publisherX: PAD };
  diagrams.set(v.name, root);
  return root;
}

// queueEntryY is where binding arrows (and tokens) enter a queue's box.
export const queueEntryY = (b) => b.y + Math.min(b.h * 0.35, 20);

// flashSoon takes the queue boxes that flash off again after FLASH_MS.
export function flashSoon(root) {
  const boxes = root.querySelectorAll(".dq.flash");
  if (boxes.length) setTimeout(() => boxes.forEach((b) => b.classList.remove("flash")), FLASH_MS);
  flashes = new Set();
}
