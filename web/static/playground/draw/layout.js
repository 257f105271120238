// The diagram's layout: where each box, arrow and label goes. Pure and
// deterministic: the same topology always gets the same picture, whatever
// order it was declared in and however many messages it holds.
//
//   lanes │ labels │ exchanges ──curves──▶ labels │ queues
//
// Exchanges stand in the left column and queues in the right one, each
// ordered so that linked boxes sit near each other (a few barycentre
// sweeps, ties broken by the snapshot's order, which is by name). Every
// link owns a row on the side of the box it reaches: a binding ends, and
// a dead-letter link starts, on a row of its own at the queue's left edge,
// and the label (the binding's key, the dead-letter routing key) sits on
// that row in the strip left of the queues, where no other line goes.
// Exchange-to-exchange bindings and alternate-exchange links leave and
// enter exchanges on rows of their left edge and run in vertical lanes at
// the far left, one lane per link where spans overlap; their labels sit in
// a strip between the lanes and the exchanges. The curves between the
// columns never enter a label strip, so no label overlaps another label,
// a box or a line other than its own.
import { FONTS, fit, textWidth } from "./text.js";

export const PAD = 12;
export const ROW = 17; // between two link rows on a box's side: more than a label is tall
const GAP = 12; // between two boxes of a column
const LANE = 9; // between two vertical lanes
const MID = 100; // between the exchange column and the queue labels
const LABEL_MAX = 150; // the widest a label may be; longer ones are cut with …
const LABEL_END = 12; // from a label's end to its box: room for an arrowhead
const MIN_EX_X = 60; // room for a publisher's token to fly in

// layout places exchanges [{id, h}] (the first pinned when pinFirst) and
// queues [{id, h}], boxes exW and qW wide and at least h tall, and links
// [{id, kind, from, to, label}]: kind "binding" from an exchange to a
// queue or exchange, "dlx" from a queue to an exchange, "ae" from an
// exchange to an exchange. It returns {W, H, boxes: Map id → {x, y, w, h},
// order: Map id → index in its column, edges: [{id, kind, from, to, segs
// (cubic Béziers [x1, y1, c1x, c1y, c2x, c2y, x2, y2]), d (the SVG path),
// label: {x, y, text} | null}]}.
export function layout({ exchanges, queues, links, exW, qW, pinFirst }) {
  const xIds = new Set(exchanges.map((x) => x.id));
  const qIds = new Set(queues.map((q) => q.id));
  links = links.filter((l) => (xIds.has(l.from) || qIds.has(l.from)) && (xIds.has(l.to) || qIds.has(l.to)));
  const across = links.filter((l) => qIds.has(l.to) || qIds.has(l.from)); // between the columns
  const within = links.filter((l) => xIds.has(l.from) && xIds.has(l.to)); // exchange to exchange
  const cols = orderColumns(exchanges, queues, across, pinFirst);
  const order = new Map();
  cols.xs.forEach((x, i) => order.set(x.id, i));
  cols.qs.forEach((q, i) => order.set(q.id, i));
  const exchangeEnd = (l) => (xIds.has(l.from) ? l.from : l.to);
  const queueEnd = (l) => (qIds.has(l.to) ? l.to : l.from);
  const byOther = (end) => (a, b) => order.get(end(a)) - order.get(end(b)) || cmpStr(a.id, b.id);

  // Rows: a link's y on the side of each box it has a row on.
  const rowsOf = new Map(); // box id → links with a row there, top to bottom
  const addRow = (id, l) => (rowsOf.get(id) ?? rowsOf.set(id, []).get(id)).push(l);
  for (const l of across) addRow(queueEnd(l), l);
  for (const l of within) {
    addRow(l.from, l);
    if (l.to !== l.from) addRow(l.to, l);
    else addRow(l.to, { ...l, id: `${l.id}\u0000in` });
  }
  for (const [id, rows] of rowsOf) rows.sort(qIds.has(id) ? byOther(exchangeEnd) : byOther((l) => (l.from === id ? l.to : l.from)));
  const boxes = new Map();
  const heightWithRows = (n, id) => Math.max(n.h, (rowsOf.get(id)?.length ?? 0) * ROW + 8);
  const rowY = (id, i) => {
    const b = boxes.get(id), n = rowsOf.get(id).length;
    return b.y + (b.h - n * ROW) / 2 + ROW / 2 + i * ROW;
  };

  // Queues stack from the top; each exchange goes as near as it can to
  // the middle of the rows its links reach, below the one before it.
  let y = PAD;
  for (const q of cols.qs) {
    const h = heightWithRows(q, q.id);
    boxes.set(q.id, { x: 0, y, w: qW, h });
    y += h + GAP;
  }
  const rowAt = new Map(); // link id → its y at the queue
  for (const q of cols.qs) (rowsOf.get(q.id) ?? []).forEach((l, i) => rowAt.set(l.id, rowY(q.id, i)));
  y = PAD;
  cols.xs.forEach((x, i) => {
    const h = heightWithRows(x, x.id);
    const ys = across.filter((l) => exchangeEnd(l) === x.id).map((l) => rowAt.get(l.id));
    const want = pinFirst && i === 0 ? PAD : ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length - h / 2 : y;
    const top = Math.max(y, Math.round(want));
    boxes.set(x.id, { x: 0, y: top, w: exW, h });
    y = top + h + GAP;
  });

  // Lanes for the links between exchanges: the shortest nearest the
  // column, a new lane only where spans would overlap.
  const inRow = new Map(); // link id → its y at the exchange it enters
  const outRow = new Map(); // link id → its y at the exchange it leaves
  for (const [id, rows] of rowsOf) {
    if (!xIds.has(id)) continue;
    rows.forEach((l, i) => {
      const y = rowY(id, i);
      if (l.id.endsWith("\u0000in")) inRow.set(l.id.slice(0, -3), y);
      else if (l.to === id && l.from !== id) inRow.set(l.id, y);
      else outRow.set(l.id, y);
    });
  }
  const span = (l) => [Math.min(outRow.get(l.id), inRow.get(l.id)), Math.max(outRow.get(l.id), inRow.get(l.id))];
  const lanes = []; // spans per lane
  const laneOf = new Map();
  for (const l of [...within].sort((a, b) => span(a)[1] - span(a)[0] - (span(b)[1] - span(b)[0]) || cmpStr(a.id, b.id))) {
    const [lo, hi] = span(l);
    let i = lanes.findIndex((ss) => ss.every(([a, b]) => hi + 4 < a || lo - 4 > b));
    if (i < 0) i = lanes.push([]) - 1;
    lanes[i].push([lo, hi]);
    laneOf.set(l.id, i);
  }

  // Columns, left to right.
  const labelText = (l) => (l.label ? fit(l.label, LABEL_MAX, FONTS.small) : "");
  const stripWidth = (ls) => Math.max(0, ...ls.map((l) => (l.label ? textWidth(labelText(l), FONTS.small) : 0)));
  const xStrip = stripWidth(within);
  const lanesW = lanes.length ? lanes.length * LANE + 8 : 0;
  const exX = Math.max(MIN_EX_X, PAD + lanesW + (xStrip ? Math.ceil(xStrip) + LABEL_END + 6 : 0));
  const laneX = (i) => PAD + (lanes.length - 1 - i) * LANE + 4;
  const curveEnd = exX + exW; // where curves leave and enter exchanges
  const qStrip = Math.max(28, Math.ceil(stripWidth(across)) + LABEL_END + 8);
  const qX = curveEnd + MID + qStrip;
  for (const [id, b] of boxes) b.x = qIds.has(id) ? qX : exX;
  const W = qX + qW + PAD;
  const H = Math.max(PAD, ...[...boxes.values()].map((b) => b.y + b.h)) + PAD;

  // Edges.
  const edges = [];
  const outY = (b) => b.y + Math.min(b.h * 0.4, 20); // bindings leave an exchange here
  const inY = (b) => b.y + b.h - Math.min(b.h * 0.25, 12); // dead-letter links enter here
  const label = (l, x, y) => (l.label ? { x, y: y + 4, text: labelText(l) } : null);
  for (const l of across) {
    const x = boxes.get(exchangeEnd(l)), yq = rowAt.get(l.id), strip = qX - qStrip;
    if (l.kind === "dlx") {
      const segs = [lineSeg(qX, yq, strip, yq), curveSeg(strip, yq, curveEnd, inY(x))];
      edges.push({ ...l, segs, d: pathOf(segs), label: label(l, qX - LABEL_END, yq) });
    } else {
      const segs = [curveSeg(curveEnd, outY(x), strip, yq), lineSeg(strip, yq, qX, yq)];
      edges.push({ ...l, segs, d: pathOf(segs), label: label(l, qX - LABEL_END, yq) });
    }
  }
  for (const l of within) {
    const y1 = outRow.get(l.id), y2 = inRow.get(l.id), lx = laneX(laneOf.get(l.id));
    const segs = [lineSeg(exX, y1, lx, y1), lineSeg(lx, y1, lx, y2), lineSeg(lx, y2, exX, y2)];
    edges.push({ ...l, segs, d: elbow(exX, y1, lx, y2), label: label(l, exX - LABEL_END, y2) });
  }
  return { W, H, boxes, order, edges };
}

// orderColumns orders exchanges and queues so that linked boxes sit near
// each other: each sweep sorts one column by the mean position of the
// boxes linked to it in the other, stable (a box with no such link keeps
// its place among the unlinked ones, after the linked ones).
function orderColumns(exchanges, queues, across, pinFirst) {
  const pin = pinFirst ? exchanges.slice(0, 1) : [];
  let xs = exchanges.slice(pin.length), qs = queues.slice();
  const peers = new Map(); // id → the ids it links to across the columns
  for (const l of across) {
    (peers.get(l.from) ?? peers.set(l.from, []).get(l.from)).push(l.to);
    (peers.get(l.to) ?? peers.set(l.to, []).get(l.to)).push(l.from);
  }
  const sortBy = (list, pos) => {
    const score = (n) => {
      const ps = (peers.get(n.id) ?? []).filter((p) => pos.has(p));
      return ps.length ? ps.reduce((s, p) => s + pos.get(p), 0) / ps.length : Infinity;
    };
    const keyed = list.map((n, i) => ({ n, i, s: score(n) }));
    keyed.sort((a, b) => (a.s === b.s ? a.i - b.i : a.s === Infinity ? 1 : b.s === Infinity ? -1 : a.s - b.s || a.i - b.i));
    return keyed.map((k) => k.n);
  };
  const positions = (list, from = 0) => new Map(list.map((n, i) => [n.id, i + from]));
  for (let sweep = 0; sweep < 4; sweep++) {
    qs = sortBy(qs, positions([...pin, ...xs]));
    xs = sortBy(xs, positions(qs));
  }
  return { xs: [...pin, ...xs], qs };
}

const cmpStr = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// curveSeg is an S-shaped cubic from (x1, y1) to (x2, y2) that leaves and
// arrives horizontally; lineSeg is a straight segment as a cubic.
function curveSeg(x1, y1, x2, y2) {
  const dx = (x2 - x1) / 2;
  return [x1, y1, x1 + dx, y1, x2 - dx, y2, x2, y2];
}
function lineSeg(x1, y1, x2, y2) {
  return [x1, y1, x1 + (x2 - x1) / 3, y1 + (y2 - y1) / 3, x1 + ((x2 - x1) * 2) / 3, y1 + ((y2 - y1) * 2) / 3, x2, y2];
}
function pathOf(segs) {
  return segs.map((c, i) => `${i ? "" : `M${c[0]},${c[1]} `}C${c[2]},${c[3]} ${c[4]},${c[5]} ${c[6]},${c[7]}`).join(" ");
}

// elbow is the path out of an exchange's left edge at (x, y1), along lane
// lx, and back in at (x, y2), with rounded corners.
function elbow(x, y1, lx, y2) {
  if (y1 === y2) return `M${x},${y1} H${lx} M${lx},${y1} H${x}`;
  const r = Math.min(5, Math.abs(y2 - y1) / 2), s = Math.sign(y2 - y1);
  return `M${x},${y1} H${lx + r} Q${lx},${y1} ${lx},${y1 + s * r} V${y2 - s * r} Q${lx},${y2} ${lx + r},${y2} H${x}`;
}
