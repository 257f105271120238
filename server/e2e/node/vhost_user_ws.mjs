// vhost_user_ws.mjs is an application's first program against a vhost of
// its own, with a user whose permissions are limited, over
// @cloudamqp/amqp-client's AMQPWebSocketClient: publish with confirms,
// consume, ack; a queue outside the user's configure permission is
// refused with 403 ACCESS_REFUSED as RabbitMQ refuses it; a vhost the
// user has no permissions in refuses the login's connection.open.
//
//   node --experimental-websocket vhost_user_ws.mjs ws://USER:PASS@HOST/ws/amqp/VHOST VHOST QUEUE
//
// QUEUE must be a durable queue the user may write to and read from.
// Run by wasm/worker's TestEdgeBroker against wrangler dev.

import { AMQPWebSocketClient } from "@cloudamqp/amqp-client";
import { eq, inbox, ok, rejection, run, step, target, within } from "./check.mjs";

const url = new URL(target("WARREN_WS_URL", "ws://app:secret@127.0.0.1:8787/ws/amqp/apps"));
const vhost = process.argv[3] ?? "/";
const queue = process.argv[4] ?? "app.q";
const login = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
url.username = url.password = "";

run(async () => {
  step(`connect to vhost ${vhost} as ${login.username}`);
  const conn = await new AMQPWebSocketClient({ url: url.toString(), vhost, ...login }).connect();

  step("publish with confirms: each publish is confirmed");
  const ch = await conn.channel();
  await ch.queuePurge(queue); // what an earlier run left
  await ch.confirmSelect();
  for (let i = 0; i < 3; i++) {
    const tag = await within(5000, ch.basicPublish("", queue, `message ${i}`, { deliveryMode: 2 }), `confirm of message ${i}`);
    eq(tag, i + 1, `delivery tag of message ${i}'s confirm`);
  }

  step("consume and ack: the three in order, then the queue is empty");
  const got = inbox();
  const consumer = await ch.basicConsume(queue, { noAck: false }, (msg) => got.push(msg));
  for (let i = 0; i < 3; i++) {
    const msg = await got.take(5000, `delivery ${i}`);
    eq(msg.bodyToString(), `message ${i}`, `body of delivery ${i}`);
    await msg.ack();
  }
  await consumer.cancel();
  const left = await ch.queueDeclare(queue, { passive: true });
  eq(left.messageCount, 0, "messages left after the acks");

  step("a queue outside the configure permission: 403 ACCESS_REFUSED");
  const ch2 = await conn.channel();
  const err = await rejection(ch2.queueDeclare("not-mine", { durable: true }), "queue.declare of not-mine");
  ok(/ACCESS_REFUSED/.test(String(err?.message)), "the refusal names ACCESS_REFUSED", String(err?.message));
  await conn.close();

  step("a vhost without permissions: the connection is refused");
  // At the edge each vhost has its own path (/ws/amqp/{vhost}): "/"'s.
  const root = new URL(url);
  root.pathname = root.pathname.replace(/\/[^/]*$/, "/%2F");
  const denied = await rejection(new AMQPWebSocketClient({ url: root.toString(), vhost: "/", ...login }).connect(), "connection.open of /");
  ok(/access to vhost '\/' refused/.test(String(denied?.message)), "the refusal says access to vhost / is refused", String(denied?.message));
});
