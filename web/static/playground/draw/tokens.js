// Message tokens on the diagram. (t is a token here; tr translates.)
import { t as tr } from "../../i18n.js";
import { svg } from "../dom.js";
import { clip } from "../format.js";
import { snap } from "../session.js";
import { diagramOf, geometryOf, queueEntryY } from "./diagram.js";

// Every call's message events are animated on the diagram as tokens: a
// small dot per message that travels the arrow an event implies (published:
// from the publisher's side into the exchange; enqueued: along the binding
// into the queue; delivered: to the consumer; dead-lettered: along the
// dead-letter arrow; returned: back out of the exchange) or fades where an
// event ends a copy (acked green, expired and purged grey, rejected,
// overflowed and dropped red). Tokens are decoration: the state is drawn
// first and at once, tokens start two frames later, and each removes itself
// when its animation ends (or with the diagram, when a later call redraws
// it). The events are only drawn, never interpreted: a token follows the
// arrows that join what the event names, or a straight line when none do.
//
// A message's events chain: each leg starts when the one before it ends
// (published, then enqueued, then delivered, then acked), up to
// MAX_TOKEN_LEGS legs. Only the first MAX_TOKEN_MESSAGES messages of a call
// (a dead-lettered copy counts as its original) get tokens, at most
// MAX_TOKENS in all; the flash of the queue boxes stands for the rest.
const TOKEN_LEG_MS = 420;
const MAX_TOKEN_LEGS = 4;
const MAX_TOKEN_MESSAGES = 8;
const MAX_TOKENS = 30;
// A call that comes less than one leg after the last animated one (playing
// at 100×, say) gets no tokens: the page would only start and cancel them.
const TOKEN_GAP_MS = TOKEN_LEG_MS;
const TOKEN_SAMPLES = 12; // points per curve a moving token's keyframes visit
const reducedMotion = globalThis.matchMedia ? matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
let tokenEvents = []; // the message events of the calls since the last render; a replay empties it
let tokenFrame = 0; // the pending requestAnimationFrame for startTokens
let lastTokensAt = -Infinity;
let liveTokens = []; // the animations of the last batch

// noteTokenEvents keeps a call's message events for the next render's tokens.
export function noteTokenEvents(events) {
  if (reducedMotion.matches) return;
  for (const e of events) if (e.msgId && TOKEN_KINDS.has(e.kind)) tokenEvents.push(e);
}

// animateTokens is render's last step: it hands the events to the frame
// after next, so that the state the call made is painted first.
export function animateTokens() {
  const events = tokenEvents;
  tokenEvents = [];
  if (!events.length || reducedMotion.matches) return;
  const now = performance.now();
  if (now - lastTokensAt < TOKEN_GAP_MS) return;
  lastTokensAt = now;
  cancelAnimationFrame(tokenFrame);
  tokenFrame = requestAnimationFrame(() => (tokenFrame = requestAnimationFrame(() => startTokens(events))));
}

// TOKEN_KINDS are the events that carry a message and have a token.
const TOKEN_KINDS = new Set(["published", "enqueued", "delayed", "returned", "delivered", "acked", "requeued", "rejected", "expired", "overflowed", "delivery-limited", "purged", "discarded", "dead-lettered", "dropped"]);

// planTokens turns events (in order) into tokens: {vhost, kind, msgId,
// leg, from, to, points} for moves, {…, at} for fades. legOf remembers,
// per message and per message copy in a queue, the leg its next event
// starts at; routedVia the exchange a message was published or
// dead-lettered to.
function planTokens(events) {
  const tokens = [];
  const legOf = new Map();
  const routedVia = new Map();
  const rootOf = new Map(); // message id → the message its chain started with
  const roots = new Set();
  for (const e of events) {
    const root = rootOf.get(e.msgId) ?? e.msgId;
    if (!roots.has(root)) {
      if (roots.size >= MAX_TOKEN_MESSAGES) continue;
      roots.add(root);
    }
    const g = geometryOf(e.vhost);
    if (!g) continue;
    const msg = `${e.msgId}`;
    const copy = `${e.msgId}\u0000${e.queue}`;
    const leg = legOf.get(e.queue ? copy : msg) ?? legOf.get(msg) ?? 0;
    const next = (key, l = leg + 1) => legOf.set(key, l);
    const add = (t) => {
      if (leg < MAX_TOKEN_LEGS && tokens.length < MAX_TOKENS) tokens.push({ vhost: e.vhost, kind: e.kind, msgId: e.msgId, leg, ...t });
    };
    const qb = e.queue !== undefined ? g.boxes.get(`q:${e.queue}`) : null;
    const xb = e.exchange !== undefined ? g.boxes.get(`x:${e.exchange}`) : null;
    const inQueue = qb && { x: qb.x + 14, y: queueEntryY(qb) };
    const consumer = qb && (g.consumerAt.get(`${e.queue}\u0000${e.consumer}`) ?? { x: qb.x + qb.w - 6, y: qb.y + 11 });
    switch (e.kind) {
      case "published":
        routedVia.set(e.msgId, e.exchange);
        if (xb) {
          const y = xb.y + xb.h / 2;
          add({ from: "publisher", to: `x:${e.exchange}`, points: line({ x: g.publisherX, y }, { x: xb.x, y }) });
          next(msg);
        }
        break;
      case "enqueued":
        if (qb) {
          const via = routedVia.get(e.msgId);
          add({ from: via !== undefined && g.boxes.has(`x:${via}`) ? `x:${via}` : "left", to: `q:${e.queue}`, points: routePoints(g, via, e.queue) });
          next(copy);
        }
        break;
      case "delayed":
        if (xb) add({ at: { x: xb.x + xb.w / 2, y: xb.y + xb.h / 2 }, to: `x:${e.exchange}` });
        break;
      case "returned":
        if (xb) {
          const y = xb.y + xb.h / 2;
          add({ from: `x:${e.exchange}`, to: "publisher", points: line({ x: xb.x, y }, { x: g.publisherX, y }) });
        }
        break;
      case "delivered":
        if (qb) {
          add({ from: `q:${e.queue}`, to: `consumer:${e.consumer ?? ""}`, points: line(inQueue, consumer) });
          next(copy);
        }
        break;
      case "requeued":
        if (qb) {
          add({ from: `consumer:${e.consumer ?? ""}`, to: `q:${e.queue}`, points: line(consumer, inQueue) });
          next(copy);
        }
        break;
      case "acked":
      case "rejected":
        if (qb) add({ at: consumer, to: `q:${e.queue}` });
        break;
      case "dead-lettered": {
        rootOf.set(e.newMsgId, root);
        routedVia.set(e.newMsgId, e.exchange);
        const segs = g.dlxCurves.get(e.queue);
        const points = segs ? pathPoints(segs) : qb && xb ? line({ x: qb.x, y: qb.y + qb.h * 0.72 }, { x: xb.x + xb.w, y: xb.y + xb.h * 0.75 }) : null;
        if (points) add({ from: `q:${e.queue}`, to: `x:${e.exchange}`, points });
        legOf.set(`${e.newMsgId}`, points ? leg + 1 : leg);
        break;
      }
      case "dropped":
        // Its queue or exchange: where the message was when nothing took it.
        if (qb) add({ at: inQueue, to: `q:${e.queue}` });
        else if (xb) add({ at: { x: xb.x + xb.w - 10, y: xb.y + xb.h / 2 }, to: `x:${e.exchange}` });
        break;
      default: // expired, overflowed, delivery-limited, purged, discarded: the copy ends in its queue
        if (qb) add({ at: inQueue, to: `q:${e.queue}` });
        next(copy);
    }
  }
  return tokens;
}

// routePoints is the way into queue from exchange via: the binding arrow;
// else an exchange-to-exchange binding or alternate-exchange arrow and then
// a binding arrow; else a straight line from via's box (the default
// exchange's implicit bindings are not drawn); else a short line in from
// the left.
function routePoints(g, via, queue) {
  const qb = g.boxes.get(`q:${queue}`);
  const end = { x: qb.x, y: queueEntryY(qb) };
  if (via === undefined || !g.boxes.has(`x:${via}`)) return line({ x: qb.x - 60, y: end.y }, end);
  const from = `x:${via}`, to = `q:${queue}`;
  const direct = g.arrows.find((a) => a.from === from && a.to === to);
  if (direct) return pathPoints(direct.segs);
  for (const a of g.arrows) {
    if (a.from !== from || !a.to.startsWith("x:")) continue;
    const onward = g.arrows.find((b) => b.from === a.to && b.to === to);
    if (onward) return [...pathPoints(a.segs), ...pathPoints(onward.segs)];
  }
  const xb = g.boxes.get(`x:${via}`);
  return line({ x: xb.x + xb.w, y: xb.y + xb.h * 0.4 }, end);
}

// pathPoints samples a path of cubic segments, each as often as its
// share of the path's length asks, TOKEN_SAMPLES points in all at least.
function pathPoints(segs) {
  if (segs.length === 1) return bezierPoints(segs[0]);
  const lengths = segs.map((c) => Math.hypot(c[6] - c[0], c[7] - c[1]) + 1);
  const total = lengths.reduce((a, b) => a + b, 0);
  return segs.flatMap((c, i) => bezierPoints(c, Math.max(2, Math.round((TOKEN_SAMPLES * lengths[i]) / total))).slice(i ? 1 : 0));
}

function bezierPoints(c, n = TOKEN_SAMPLES) {
  const pts = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n, u = 1 - t;
    const a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, e = t * t * t;
    pts.push({ x: a * c[0] + b * c[2] + d * c[4] + e * c[6], y: a * c[1] + b * c[3] + d * c[5] + e * c[7] });
  }
  return pts;
}

function line(p, q) {
  return bezierPoints([p.x, p.y, p.x + (q.x - p.x) / 3, p.y + (q.y - p.y) / 3, p.x + ((q.x - p.x) * 2) / 3, p.y + ((q.y - p.y) * 2) / 3, q.x, q.y]);
}

// startTokens draws the tokens of events, replacing the last batch's.
function startTokens(events) {
  for (const a of liveTokens) a.cancel();
  liveTokens = [];
  const tokens = planTokens(events);
  if (!tokens.length) return;
  const titles = messageTitles(new Set(tokens.map((t) => t.msgId)));
  for (const t of tokens) {
    const d = diagramOf(t.vhost);
    let layer = d.querySelector(":scope > g.tokens");
    if (!layer) d.append((layer = svg("g", { class: "tokens", "aria-hidden": "true" })));
    const node = svg(
      "g",
      { class: `token k-${t.kind}`, "data-testid": "token", "data-kind": t.kind, "data-msg-id": t.msgId, "data-from": t.from, "data-to": t.to },
      svg("title", {}, tr("js.token.title", { kind: t.kind, message: titles.get(t.msgId) ?? tr("js.token.message", { id: t.msgId }) })),
      svg("circle", { r: 5 }),
    );
    layer.append(node);
    const frames = t.points
      ? t.points.map((p, i) => ({ transform: `translate(${p.x}px, ${p.y}px)`, opacity: i === 0 ? 0 : 1 }))
      : [
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(1)`, opacity: 0 },
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(1.3)`, opacity: 1, offset: 0.2 },
          { transform: `translate(${t.at.x}px, ${t.at.y}px) scale(2.4)`, opacity: 0 },
        ];
    const a = node.animate(frames, { duration: TOKEN_LEG_MS, delay: t.leg * TOKEN_LEG_MS, fill: "both", easing: t.points ? "ease-in-out" : "ease-out" });
    const done = () => node.remove();
    a.finished.then(done, done);
    liveTokens.push(a);
  }
}

// messageTitles names the messages that have tokens ("message #7: hello")
// from the snapshot, where it still lists them.
function messageTitles(ids) {
  const out = new Map();
  const note = (m) => {
    if (ids.has(m.id) && !out.has(m.id)) out.set(m.id, tr("js.token.messageBody", { id: m.id, body: clip(m.body, 40) }));
  };
  for (const v of snap.vhosts) {
    for (const q of v.queues) q.ready.forEach(note);
    for (const c of v.connections) for (const ch of c.channels) ch.unacked.forEach(note);
  }
  return out;
}

// clearTokenEvents forgets the events noted since the last render: a
// replay animates nothing.
export function clearTokenEvents() {
  tokenEvents = [];
}
