// bench_edge.mjs is the edge broker's load client (`make bench-edge`):
// @cloudamqp/amqp-client against one vhost's object over WebSocket (or,
// given an amqp:// URL, the same library over TCP, for RabbitMQ beside it),
// pipelining: it keeps WINDOW publishes unconfirmed and PREFETCH
// deliveries unacked, so that the broker, not the round trip, sets the
// pace. Persistent messages into durable queues, as an application at
// the edge would send them. Each scenario prints one JSON line:
// {"scenario", "messages", "seconds", "rate"}; the Makefile reads the
// broker's CPU around each.
//
//   node --experimental-websocket bench_edge.mjs URL SCENARIO [MESSAGES] [WINDOW] [VHOSTS]
//
// SCENARIO: confirms (publish with confirms), pubsub (publish with
// confirms and consume with acks at once), vhosts (VHOSTS connections,
// one per vhost bench-0 ... bench-(VHOSTS-1), each publishing MESSAGES
// with confirms at once; the vhosts must exist).

import { AMQPClient, AMQPWebSocketClient } from "@cloudamqp/amqp-client";

const [url, scenario, messagesArg, windowArg, vhostsArg] = process.argv.slice(2);
const messages = Number(messagesArg ?? 20000);
const window = Number(windowArg ?? 256);
const body = new Uint8Array(100).fill(120); // 100 bytes

function client(vhost) {
  const u = new URL(url);
  const login = { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  if (/^wss?:/.test(url)) {
    u.username = u.password = "";
    if (vhost !== "/") u.pathname = u.pathname.replace(/\/[^/]*$/, "/" + encodeURIComponent(vhost));
    return new AMQPWebSocketClient({ url: u.toString(), vhost, frameMax: 131072, ...login });
  }
  u.pathname = "/" + encodeURIComponent(vhost);
  return new AMQPClient(u.toString());
}

// publish sends n persistent messages to queue with confirms, at most
// window unconfirmed at a time.
async function publish(ch, queue, n) {
  await ch.confirmSelect();
  const inFlight = new Set();
  for (let i = 0; i < n; i++) {
    const p = ch.basicPublish("", queue, body, { deliveryMode: 2 });
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
    if (inFlight.size >= window) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}

async function setUp(vhost, queue) {
  const conn = await client(vhost).connect();
  const ch = await conn.channel();
  await ch.queueDeclare(queue, { durable: true });
  await ch.queuePurge(queue);
  return { conn, ch };
}

function report(name, n, started) {
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ scenario: name, messages: n, seconds: Number(seconds.toFixed(3)), rate: Math.round(n / seconds) }));
}

if (scenario === "confirms") {
  const { conn, ch } = await setUp("/", "bench-confirms");
  const started = performance.now();
  await publish(ch, "bench-confirms", messages);
  report("confirms", messages, started);
  await ch.queuePurge("bench-confirms");
  await conn.close();
} else if (scenario === "pubsub") {
  const { conn, ch } = await setUp("/", "bench-pubsub");
  const cconn = await client("/").connect();
  const cch = await cconn.channel();
  await cch.prefetch(window);
  let got = 0;
  let done;
  const all = new Promise((resolve) => (done = resolve));
  const started = performance.now();
  await cch.basicConsume("bench-pubsub", { noAck: false }, (msg) => {
    // One ack for every 32 deliveries (multiple), as a pipelining
    // consumer acks.
    if (++got % 32 === 0 || got === messages) msg.ack(true);
    if (got === messages) done();
  });
  await publish(ch, "bench-pubsub", messages);
  await all;
  report("pubsub", messages, started);
  await cconn.close();
  await conn.close();
} else if (scenario === "vhosts") {
  const n = Number(vhostsArg ?? 100);
  const set = await Promise.all(Array.from({ length: n }, (_, i) => setUp(`bench-${i}`, "bench")));
  const started = performance.now();
  await Promise.all(set.map(({ ch }) => publish(ch, "bench", messages)));
  report(`vhosts-${n}`, n * messages, started);
  await Promise.all(set.map(({ ch }) => ch.queuePurge("bench")));
  await Promise.all(set.map(({ conn }) => conn.close()));
} else {
  console.error(`unknown scenario ${scenario}: confirms, pubsub or vhosts`);
  process.exit(2);
}
process.exit(0);
