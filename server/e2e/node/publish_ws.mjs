// publish_ws.mjs publishes one message with @cloudamqp/amqp-client's
// AMQPWebSocketClient, the client a browser page would use, and waits for
// its confirm: the edge's tests use it to put a real client's message
// into a shared session's Durable Object.
//
//   node --experimental-websocket publish_ws.mjs ws://USER:PASS@HOST/ws/amqp/ID QUEUE BODY [TTL_MS DLQ]
//
// It declares QUEUE (with a message TTL of TTL_MS that dead-letters into
// DLQ, which it declares too, when given), publishes BODY persistent with
// publisher confirms, prints "confirmed" and closes. Exit 1 on any error.
import { AMQPWebSocketClient } from "@cloudamqp/amqp-client";

const [url, queue, body, ttl, dlq] = process.argv.slice(2);
if (!url || !queue || body === undefined) {
  console.error("usage: publish_ws.mjs ws://USER:PASS@HOST/PATH QUEUE BODY [TTL_MS DLQ]");
  process.exit(2);
}
if (typeof globalThis.WebSocket !== "function") globalThis.WebSocket = (await import("ws")).WebSocket;
const u = new URL(url);
const login = { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
u.username = u.password = "";
try {
  const conn = await new AMQPWebSocketClient({ url: u.toString(), vhost: "/", ...login }).connect();
  const ch = await conn.channel();
  await ch.confirmSelect();
  const args = {};
  if (ttl) {
    await ch.queueDeclare(dlq, { durable: true });
    Object.assign(args, { "x-message-ttl": Number(ttl), "x-dead-letter-exchange": "", "x-dead-letter-routing-key": dlq });
  }
  await ch.queueDeclare(queue, { durable: true }, args);
  await ch.basicPublish("", queue, body, { deliveryMode: 2 });
  console.log("confirmed");
  await conn.close();
} catch (e) {
  console.error(`FAIL: ${e.message ?? e}`);
  process.exit(1);
}
