// amqp_client_ws.mjs drives a broker with @cloudamqp/amqp-client's
// AMQPWebSocketClient, the client a browser page would use: per-message
// TTL + dead-lettering with x-death, publisher confirms, prefetch with
// acks, channel errors, bodies far above frame_max split into many body
// frames, several frames in one WebSocket message and frames split across
// messages.
//
//   node --experimental-websocket amqp_client_ws.mjs ws://127.0.0.1:8080/amqp
//   WARREN_WS_URL=ws://... node --experimental-websocket amqp_client_ws.mjs
//   node --experimental-websocket amqp_client_ws.mjs ws://USER:PASS@127.0.0.1:8080/ws/amqp
//
// Given an amqp:// URL it runs the same scenario over TCP with the same
// library's AMQPClient, to compare with a broker that has no AMQP
// WebSocket endpoint (RabbitMQ 3.10.8). Node 20 needs
// --experimental-websocket (or NODE_OPTIONS) for its global WebSocket;
// where there is none (Debian 12's Node 18) the pinned `ws` package,
// which implements the same browser API, stands in for it.

import { AMQPClient, AMQPWebSocketClient } from "@cloudamqp/amqp-client";
import { eq, inbox, ok, rejection, run, step, target, unique, within } from "./check.mjs";
import { contentFrames, frameSizes, patterned } from "./frames.mjs";

const url = target("WARREN_WS_URL", "ws://127.0.0.1:8080/amqp");
const overWebSocket = /^wss?:/.test(url);
const waitMs = 5000;

// Every WebSocket message the server sends is looked at as it arrives: it
// must hold whole frames only (the client's reassembly cannot cope with a
// split frame header), and wireCheck later holds each frame to the
// connection's negotiated frame_max.
if (overWebSocket) {
  let Native = globalThis.WebSocket;
  if (typeof Native !== "function") {
    Native = (await import("ws")).WebSocket;
    console.log("  no global WebSocket in this Node: using the ws package");
  }
  globalThis.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      const stats = { messages: 0, frames: 0, maxFrame: 0, problems: [] };
      this.warrenStats = stats;
      stats.closed = new Promise((resolve) =>
        this.addEventListener("close", (ev) => resolve({ wasClean: ev.wasClean, code: ev.code })),
      );
      this.addEventListener("message", (ev) => {
        stats.messages++;
        const sizes = frameSizes(new Uint8Array(ev.data));
        if (typeof sizes === "string") stats.problems.push(`message ${stats.messages}: ${sizes}`);
        else {
          stats.frames += sizes.length;
          stats.maxFrame = Math.max(stats.maxFrame, ...sizes);
        }
      });
    }
  };
}

// connect opens a connection offering frameMax (the client refuses less
// than 8192) and returns it with the wire statistics of its WebSocket.
async function connect(frameMax) {
  if (overWebSocket) {
    // A user and password in the URL (a shared session's own login) are
    // the client's credentials; the WebSocket's URL goes without them.
    const u = new URL(url);
    const login = u.username ? { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } : {};
    u.username = u.password = "";
    const conn = await new AMQPWebSocketClient({ url: u.toString(), frameMax, ...login }).connect();
    return [conn, conn.socket.warrenStats];
  }
  const u = new URL(url);
  u.searchParams.set("frameMax", String(frameMax));
  return [await new AMQPClient(u.toString()).connect(), null];
}

// wireCheck holds what the server sent on one WebSocket to the contract,
// and waits for the socket to close cleanly after connection.close-ok.
async function wireCheck(stats, frameMax, minFrames) {
  if (stats === null) return;
  const closed = await within(waitMs, stats.closed, "WebSocket close after connection.close-ok");
  eq(closed.wasClean, true, `WebSocket closed cleanly (code ${closed.code})`);
  eq(stats.problems, [], "server WebSocket messages that were not whole frames");
  ok(stats.maxFrame <= frameMax, `largest frame the server sent is within frame_max ${frameMax}`, stats.maxFrame);
  ok(stats.frames >= minFrames, `the server sent the large bodies as at least ${minFrames} frames`, stats.frames);
  console.log(`  server sent ${stats.frames} frames (largest ${stats.maxFrame} bytes) in ${stats.messages} WebSocket messages`);
}

run(async () => {
  step(`connect (${overWebSocket ? "WebSocket" : "TCP"})`);
  const [conn, stats] = await connect(8192);
  eq(conn.frameMax, 8192, "negotiated frame_max (the client offers 8192, the server 131072)");
  const ch = await conn.channel();

  await perMessageTTL(ch);
  await confirms(conn);
  await prefetchAndAcks(conn);
  await channelErrors(conn);
  await largeBodies(conn, 8192);
  await handBuiltFrames(conn);

  step("close");
  await conn.close();
  await wireCheck(stats, 8192, 600); // 5 MiB of bodies in frames of 8184 bytes: over 640

  step("second connection offering frame_max 1 MiB: the server's 131072 wins");
  const [big, bigStats] = await connect(1 << 20);
  eq(big.frameMax, 131072, "negotiated frame_max");
  await largeBodies(big, 131072, [131063, 131064, 131065, 3 << 20]);
  await big.close();
  await wireCheck(bigStats, 131072, 24); // 3 MiB in frames of 131064 bytes: 25
});

// perMessageTTL: a message with expiration "50" in a queue with a DLX and a
// dead-letter routing key comes out with x-death reason expired and
// original-expiration, and without its expiration property.
async function perMessageTTL(ch) {
  step("per-message TTL + DLX with routing key: x-death reason expired");
  const dlx = unique("amqpc-dlx");
  const dead = unique("amqpc-dead");
  const work = unique("amqpc-work");
  await ch.exchangeDeclare(dlx, "direct", { autoDelete: false });
  await ch.queueDeclare(dead, { autoDelete: false });
  await ch.queueBind(dead, dlx, "expired");
  await ch.queueDeclare(work, { autoDelete: false }, { "x-dead-letter-exchange": dlx, "x-dead-letter-routing-key": "expired" });
  const box = inbox();
  await ch.basicConsume(dead, { noAck: true }, (m) => box.push(m));
  const sentAt = Date.now();
  await ch.basicPublish("", work, "short-lived", { expiration: "50", headers: { kind: "ws" }, correlationId: "corr-1" });
  const m = await box.take(waitMs, "dead-lettered message");
  eq(m.bodyToString(), "short-lived", "body");
  eq([m.exchange, m.routingKey], [dlx, "expired"], "dead-letter exchange and routing key");
  eq(m.properties.expiration, undefined, "expiration removed on dead-lettering");
  eq(m.properties.correlationId, "corr-1", "correlation-id kept");
  const h = m.properties.headers ?? {};
  eq(h.kind, "ws", "publisher's header kept");
  const deaths = h["x-death"];
  ok(Array.isArray(deaths) && deaths.length === 1, "x-death is an array of one entry", deaths);
  const d = deaths[0];
  eq(
    [d.reason, d.queue, d.exchange, d["routing-keys"], d.count, d["original-expiration"]],
    ["expired", work, "", [work], 1, "50"],
    "x-death [reason, queue, exchange, routing-keys, count, original-expiration]",
  );
  ok(d.time instanceof Date && Math.abs(d.time.getTime() - sentAt) < 60_000, "x-death time is a timestamp near now", d.time);
  eq([h["x-first-death-reason"], h["x-first-death-queue"]], ["expired", work], "x-first-death-reason/-queue");
  await ch.queueDelete(work);
  await ch.queueDelete(dead);
  await ch.exchangeDelete(dlx);
}

// confirms: basicPublish resolves with the delivery tag once acked, and
// rejects on a nack (reject-publish overflow).
async function confirms(conn) {
  step("publisher confirms: tags in order, nack on overflow");
  const ch = await conn.channel();
  await ch.confirmSelect();
  const q = unique("amqpc-confirm");
  await ch.queueDeclare(q, { autoDelete: false }, { "x-max-length": 20, "x-overflow": "reject-publish" });
  const tags = await within(waitMs, Promise.all(Array.from({ length: 20 }, (_, i) => ch.basicPublish("", q, `m${i}`))), "20 confirms");
  eq(tags, Array.from({ length: 20 }, (_, i) => i + 1), "confirmed delivery tags");
  const err = await rejection(within(waitMs, ch.basicPublish("", q, "one too many"), "nack"), "publish past x-max-length");
  eq(err.message, "Message rejected", "nack reported by the client");
  const { messageCount } = await ch.queueDeclare(q, { passive: true });
  eq(messageCount, 20, "messages kept");
  await ch.queueDelete(q);
  await ch.close();
}

// prefetchAndAcks: basic.qos 2 keeps two deliveries in flight; acks let
// the rest through; basicGet sees the queue empty at the end.
async function prefetchAndAcks(conn) {
  step("consume with prefetch 2, acks, reject + requeue, basic.get");
  const ch = await conn.channel();
  const q = unique("amqpc-prefetch");
  await ch.queueDeclare(q, { autoDelete: false });
  for (let i = 0; i < 6; i++) await ch.basicPublish("", q, `p${i}`);
  await ch.basicQos(2);
  const box = inbox();
  const consumer = await ch.basicConsume(q, { tag: "ws-c1", noAck: false }, (m) => box.push(m));
  eq(consumer.tag, "ws-c1", "consumer tag");
  const a = await box.take(waitMs, "delivery 1");
  const b = await box.take(waitMs, "delivery 2");
  eq([a.bodyToString(), a.deliveryTag, b.bodyToString(), b.deliveryTag], ["p0", 1, "p1", 2], "first two deliveries");
  const held = await ch.queueDeclare(q, { passive: true });
  eq([held.messageCount, held.consumerCount], [4, 1], "ready messages and consumers while 2 are unacked");
  eq(box.length, 0, "deliveries beyond the prefetch window");
  await b.reject(true); // first, so that the ack of a cannot let p2 in before it
  await a.ack();
  const got = [];
  while (got.length < 5) {
    const m = await box.take(waitMs, `delivery ${got.length + 3}`);
    got.push(`${m.bodyToString()}${m.redelivered ? "r" : ""}`);
    await m.ack();
  }
  eq(got, ["p1r", "p2", "p3", "p4", "p5"], "rejected p1 first again, redelivered, then the rest");
  await consumer.cancel();
  eq(await ch.basicGet(q), null, "basic.get on the drained queue");
  await ch.basicPublish("", q, "for-get", { messageId: "g1" });
  const g = await ch.basicGet(q, { noAck: true });
  eq([g?.bodyToString(), g?.properties.messageId, g?.messageCount], ["for-get", "g1", 0], "basic.get-ok");
  await ch.queueDelete(q);
  await ch.close();
}

// channelErrors: the client reports "channel N closed: TEXT (CODE)".
async function channelErrors(conn) {
  step("channel errors: 404 consume on a missing queue, 406 inequivalent exchange type");
  const missing = unique("amqpc-missing");
  let ch = await conn.channel();
  let err = await rejection(ch.basicConsume(missing, {}, () => {}), "basic.consume on a missing queue");
  eq(err.message, `channel ${ch.id} closed: NOT_FOUND - no queue '${missing}' in vhost '/' (404)`, "404 error");
  eq(ch.closed, true, "channel closed by the server");

  const ex = unique("amqpc-ex");
  ch = await conn.channel();
  await ch.exchangeDeclare(ex, "direct", { autoDelete: false });
  err = await rejection(ch.exchangeDeclare(ex, "fanout", { autoDelete: false }), "redeclare with another type");
  eq(
    err.message,
    `channel ${ch.id} closed: PRECONDITION_FAILED - inequivalent arg 'type' for exchange '${ex}' in vhost '/': received 'fanout' but current is 'direct' (406)`,
    "406 error",
  );
  ch = await conn.channel();
  await ch.exchangeDelete(ex);
  await ch.close();
}

// largeBodies: bodies around and far above frame_max go out as many body
// frames inside one WebSocket message and come back split by the server;
// every byte must survive, in order.
async function largeBodies(conn, frameMax, sizes) {
  sizes ??= [0, 1, frameMax - 9, frameMax - 8, frameMax - 7, 3 * frameMax, 1 << 20, 4 << 20];
  step(`bodies of ${sizes.join(", ")} bytes at frame_max ${frameMax}`);
  const ch = await conn.channel();
  await ch.confirmSelect();
  const q = unique("amqpc-large");
  await ch.queueDeclare(q, { autoDelete: false });
  const box = inbox();
  await ch.basicConsume(q, { noAck: false }, (m) => box.push(m));
  const bodies = sizes.map((n, i) => patterned(n, i + 1));
  await within(waitMs * 2, Promise.all(bodies.map((b, i) => ch.basicPublish("", q, b, { messageId: `big-${i}` }))), "confirms of large publishes");
  for (let i = 0; i < bodies.length; i++) {
    const m = await box.take(waitMs * 2, `large delivery ${i}`);
    eq(m.properties.messageId, `big-${i}`, `message ${i} order`);
    eq(m.bodySize, sizes[i], `message ${i} body size`);
    const same = m.body !== null && Buffer.compare(Buffer.from(m.body), Buffer.from(bodies[i])) === 0;
    ok(same || (sizes[i] === 0 && (m.body === null || m.body.length === 0)), `message ${i}: ${sizes[i]} bytes come back identical`);
    await m.ack();
  }
  await ch.queueDelete(q);
  await ch.close();
}

// handBuiltFrames: publishes written frame by frame and handed to the
// transport in odd pieces: three whole publishes in one message, then one
// split inside a frame header, inside a method payload and between frames.
async function handBuiltFrames(conn) {
  step("several frames per WebSocket message, frames split across messages");
  const ch = await conn.channel();
  const q = unique("amqpc-raw");
  await ch.queueDeclare(q, { autoDelete: false });
  const bodies = ["r0", "r1", "r2", "r3-" + "x".repeat(20000)];
  const pubs = bodies.map((b) => contentFrames(ch.id, "", q, new TextEncoder().encode(b), conn.frameMax));
  const all = concat(pubs.slice(0, 3));
  await conn.send(all);
  // The last publish goes in six pieces: inside the first frame's 7-byte
  // header, inside its method payload, exactly at the end of that frame,
  // inside the next frame's header, in the body, and its final frame-end.
  const last = pubs[3];
  const firstEnd = 7 + new DataView(last.buffer, last.byteOffset).getUint32(3) + 1;
  const cuts = [0, 3, 9, firstEnd, firstEnd + 2, last.length - 1, last.length];
  for (let i = 0; i + 1 < cuts.length; i++) await conn.send(last.subarray(cuts[i], cuts[i + 1]));
  const got = [];
  for (let i = 0; i < bodies.length; i++) {
    const m = await within(waitMs, ch.basicGet(q, { noAck: true }), `basic.get ${i}`);
    got.push(m === null ? null : m.bodyToString());
  }
  eq(got, bodies, "hand-built publishes arrive whole and in order");
  await ch.queueDelete(q);
  await ch.close();
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
