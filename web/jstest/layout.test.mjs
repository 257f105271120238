// draw/layout.js places the diagram of a real broker's topology: the
// engine's snapshot, through draw/model.js's rule of what is shown, with
// links made as draw/diagram.js makes them. The layout's promises are
// checked: the same picture whatever the declaration order or the
// messages held, the two columns, every link on its own row of its box,
// and no label over another.
import { test } from "node:test";
import assert from "node:assert/strict";
import { layout, PAD, ROW } from "../static/playground/draw/layout.js";
import { topologyModel } from "../static/playground/draw/model.js";
import { FONTS, textWidth } from "../static/playground/draw/text.js";
import { startEngine } from "./engine.mjs";

// TOPOLOGY: orders, routed by a topic exchange to two queues, one of them
// dead-lettering into a fanout exchange; an exchange-to-exchange binding;
// an alternate exchange; an amq.* exchange shown because it is bound.
const TOPOLOGY = [
  "declare exchange orders topic ae=unrouted",
  "declare exchange unrouted fanout",
  "declare exchange dead fanout",
  "declare exchange audit fanout",
  "declare queue parked",
  "declare queue eu dlx=dead dlrk=late ttl=5s",
  "declare queue us",
  "declare queue lost",
  "declare queue log",
  "bind eu orders 'eu.*'",
  "bind us orders 'us.#'",
  "bind us orders 'all'",
  "bind parked dead",
  "bind lost unrouted",
  "bind exchange audit orders '#'",
  "bind log audit",
  "bind log amq.topic 'log.*'",
];

async function vhostAfter(lines) {
  const w = await startEngine();
  for (const l of lines) {
    const r = w.exec(l);
    assert.equal(r.error ?? r.amqpError, undefined, `${l}: ${JSON.stringify(r.error ?? r.amqpError)}`);
  }
  return w.snapshot().vhosts.find((v) => v.name === "/");
}

// diagramLayout lays out vhost v as drawDiagram does, its box sizes
// fixed: the sizes come from names and arguments (text.js), which are
// the same here whatever the order.
function diagramLayout(v) {
  const m = topologyModel(v);
  const links = [];
  for (const b of m.bindings) {
    const to = `${b.destType === "exchange" ? "x" : "q"}:${b.dest}`;
    const routing = m.exchanges.find((x) => x.name === b.source)?.routing;
    const label = routing === "fanout" ? "" : b.keys.map((k) => (k === "" ? '""' : k)).sort().join(", ");
    links.push({ id: `b:${b.source}\u0000${to}`, kind: "binding", from: `x:${b.source}`, to, label });
  }
  for (const l of m.dlx) links.push({ id: `d:${l.queue}`, kind: "dlx", from: `q:${l.queue}`, to: `x:${l.exchange}`, label: l.key ?? "" });
  for (const a of m.ae) links.push({ id: `a:${a.source}`, kind: "ae", from: `x:${a.source}`, to: `x:${a.target}`, label: "" });
  return {
    model: m,
    g: layout({
      exchanges: m.exchanges.map((x) => ({ id: `x:${x.name}`, h: 44 })),
      queues: m.queues.map((q) => ({ id: `q:${q.name}`, h: 51 })),
      links,
      exW: 150,
      qW: 180,
      pinFirst: true,
    }),
  };
}

// picture is a layout as plain data, to compare two.
const picture = (g) => ({ W: g.W, H: g.H, boxes: [...g.boxes].sort(), edges: g.edges.map((e) => [e.id, e.d, e.label]).sort() });

test("the model shows what the user declared and the amq.* exchanges in use", async () => {
  const { model } = diagramLayout(await vhostAfter(TOPOLOGY));
  assert.deepEqual(
    model.exchanges.map((x) => x.name),
    ["", "amq.topic", "audit", "dead", "orders", "unrouted"],
  );
  assert.deepEqual(model.dlx, [{ queue: "eu", exchange: "dead", key: "late" }]);
  assert.deepEqual(model.ae, [{ source: "orders", target: "unrouted" }]);
  const us = model.bindings.find((b) => b.dest === "us");
  assert.deepEqual(us.keys.sort(), ["all", "us.#"]);
});

test("the same topology gets the same picture, whatever the order it was declared in", async () => {
  const a = diagramLayout(await vhostAfter(TOPOLOGY)).g;
  const shuffled = [...TOPOLOGY.slice(0, 9).reverse(), ...TOPOLOGY.slice(9).reverse()];
  const b = diagramLayout(await vhostAfter(shuffled)).g;
  assert.deepEqual(picture(b), picture(a));
});

test("messages held change nothing in the picture", async () => {
  const before = diagramLayout(await vhostAfter(TOPOLOGY)).g;
  const after = diagramLayout(await vhostAfter([...TOPOLOGY, "publish orders eu.de x", "publish orders us.ny y count=20", "publish orders nowhere z"]));
  assert.ok(after.model.queues.some((q) => q.readyCount > 0), "the messages are there");
  assert.deepEqual(picture(after.g), picture(before));
});

test("exchanges stand left and queues right, none overlapping, the default exchange first", async () => {
  const { model, g } = diagramLayout(await vhostAfter(TOPOLOGY));
  const xs = model.exchanges.map((x) => g.boxes.get(`x:${x.name}`));
  const qs = model.queues.map((q) => g.boxes.get(`q:${q.name}`));
  assert.equal(new Set(xs.map((b) => b.x)).size, 1);
  assert.equal(new Set(qs.map((b) => b.x)).size, 1);
  assert.ok(qs[0].x > xs[0].x + xs[0].w, "queues right of the exchanges");
  assert.equal(g.boxes.get("x:").y, PAD, "pinned at the top");
  for (const col of [xs, qs]) {
    const sorted = col.slice().sort((p, q) => p.y - q.y);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i].y >= sorted[i - 1].y + sorted[i - 1].h, "boxes of a column do not overlap");
  }
  for (const b of g.boxes.values()) assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= g.W && b.y + b.h <= g.H, "inside the picture");
});

test("every link ends on a row of its own at the box it reaches", async () => {
  const { g } = diagramLayout(await vhostAfter(TOPOLOGY));
  const at = new Map(); // box id → the ys links reach it at
  for (const e of g.edges) {
    const first = e.segs[0], last = e.segs.at(-1);
    const [x1, y1] = [first[0], first[1]], [x2, y2] = [last[6], last[7]];
    const from = g.boxes.get(e.from), to = g.boxes.get(e.to);
    if (e.kind === "binding" && e.to.startsWith("q:")) {
      assert.equal(x1, from.x + from.w, `${e.id} leaves its exchange's right edge`);
      assert.equal(x2, to.x, `${e.id} enters its queue's left edge`);
      (at.get(e.to) ?? at.set(e.to, []).get(e.to)).push(y2);
    } else if (e.kind === "dlx") {
      assert.equal(x1, from.x, `${e.id} leaves its queue's left edge`);
      assert.equal(x2, to.x + to.w, `${e.id} enters its exchange's right edge`);
      (at.get(e.from) ?? at.set(e.from, []).get(e.from)).push(y1);
    } else {
      assert.equal(x1, from.x, `${e.id} leaves its exchange's left edge`);
      assert.equal(x2, to.x, `${e.id} enters its exchange's left edge`);
    }
  }
  for (const [id, ys] of at) {
    const b = g.boxes.get(id);
    const sorted = ys.slice().sort((p, q) => p - q);
    for (const y of ys) assert.ok(y > b.y && y < b.y + b.h, `${id}: a row inside the box`);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i] - sorted[i - 1] >= ROW - 0.001, `${id}: rows ${ROW}px apart`);
  }
});

test("no label overlaps another label or a box", async () => {
  const { g } = diagramLayout(await vhostAfter(TOPOLOGY));
  const HEIGHT = 11; // FONTS.small
  const rects = g.edges
    .filter((e) => e.label)
    .map((e) => ({ id: e.id, x1: e.label.x - textWidth(e.label.text, FONTS.small), x2: e.label.x, y1: e.label.y - HEIGHT + 2, y2: e.label.y + 2 }));
  assert.ok(rects.length >= 5, "the bindings' keys and the dead-letter key are labelled");
  const overlap = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  for (const [i, a] of rects.entries()) {
    for (const b of rects.slice(i + 1)) assert.ok(!overlap(a, b), `labels of ${a.id} and ${b.id} overlap`);
    for (const [id, b] of g.boxes) assert.ok(!overlap(a, { x1: b.x, x2: b.x + b.w, y1: b.y, y2: b.y + b.h }), `label of ${a.id} is over ${id}`);
  }
});

test("links between exchanges get lanes that do not overlap", async () => {
  const { g } = diagramLayout(await vhostAfter(TOPOLOGY));
  const within = g.edges.filter((e) => e.from.startsWith("x:") && e.to.startsWith("x:"));
  assert.deepEqual(within.map((e) => e.id).sort(), ["a:orders", "b:orders\u0000x:audit"]);
  const lane = (e) => ({ x: e.segs[1][0], lo: Math.min(e.segs[1][1], e.segs[1][7]), hi: Math.max(e.segs[1][1], e.segs[1][7]) });
  const [a, b] = within.map(lane);
  assert.ok(a.x !== b.x || a.hi < b.lo || b.hi < a.lo, "two links in one lane only where their spans do not meet");
  for (const l of [a, b]) assert.ok(l.x < g.boxes.get("x:orders").x, "lanes run left of the exchanges");
});
