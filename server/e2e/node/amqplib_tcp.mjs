// amqplib_tcp.mjs drives a broker with amqplib (the most used Node AMQP
// client) over TCP: TTL + dead-lettering with x-death, publisher confirms
// with acks, nacks and returns, prefetch with manual acks, and channel and
// connection exceptions with their codes and texts.
//
//   node amqplib_tcp.mjs amqp://guest:guest@127.0.0.1:5672/
//   WARREN_AMQP_URL=amqp://... node amqplib_tcp.mjs
//
// It exits 0 after "ok: N checks", or 1 with the first mismatch. Every name
// it declares is unique to the run, so it can be pointed at RabbitMQ too.

import amqp from "amqplib";
import { eq, inbox, ok, rejection, run, step, target, unique, within } from "./check.mjs";

const url = target("WARREN_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/");
const waitMs = 5000;

run(async () => {
  step("connect");
  const conn = await amqp.connect(url);
  const connErrors = inbox();
  conn.on("error", (e) => connErrors.push(e));
  const caps = conn.connection.serverProperties?.capabilities ?? {};
  for (const c of ["publisher_confirms", "basic.nack", "consumer_cancel_notify", "exchange_exchange_bindings", "per_consumer_qos", "authentication_failure_close", "connection.blocked"]) {
    eq(caps[c], true, `server capability ${c}`);
  }
  const ch = await conn.createChannel();

  const names = await ttlDeadLetter(ch);
  await confirms(conn);
  await prefetchAndAcks(conn);
  await consumerCancelNotify(conn);
  await channelErrors(conn, names);

  step("clean up");
  await ch.deleteQueue(names.work);
  await ch.deleteQueue(names.dead);
  await ch.deleteExchange(names.dlx);
  await conn.close();
  eq(connErrors.length, 0, "connection errors on the main connection");

  await connectionError();
  await refusedLogin();
});

// ttlDeadLetter: a message outlives x-message-ttl and reaches the DLX's queue
// carrying x-death (reason expired) and the x-first-death-* headers.
async function ttlDeadLetter(ch) {
  step("TTL + dead-letter exchange: x-death reason expired");
  const names = { dlx: unique("amqplib-dlx"), dead: unique("amqplib-dead"), work: unique("amqplib-work") };
  await ch.assertExchange(names.dlx, "fanout", { durable: false });
  await ch.assertQueue(names.dead, { durable: false });
  await ch.bindQueue(names.dead, names.dlx, "");
  const declared = await ch.assertQueue(names.work, {
    durable: false,
    messageTtl: 100,
    deadLetterExchange: names.dlx,
  });
  eq([declared.queue, declared.messageCount, declared.consumerCount], [names.work, 0, 0], "queue.declare-ok");

  const dead = inbox();
  await ch.consume(names.dead, (m) => dead.push(m), { noAck: true });
  const sentAtSec = Date.now() / 1000;
  ch.publish("", names.work, Buffer.from("job-1"), {
    messageId: "m-1",
    contentType: "text/plain",
    headers: { origin: "amqplib", n: 7 },
  });
  const m = await dead.take(waitMs, "dead-lettered message");
  eq(m.content.toString(), "job-1", "body");
  eq([m.fields.exchange, m.fields.routingKey], [names.dlx, names.work], "dead-letter exchange and routing key");
  eq([m.properties.messageId, m.properties.contentType], ["m-1", "text/plain"], "properties kept");
  const h = m.properties.headers;
  eq([h.origin, h.n], ["amqplib", 7], "publisher's headers kept");
  const deaths = h["x-death"];
  ok(Array.isArray(deaths) && deaths.length === 1, "x-death is an array of one entry", deaths);
  const d = deaths[0];
  eq(d.reason, "expired", "x-death reason");
  eq(d.queue, names.work, "x-death queue");
  eq(d.exchange, "", "x-death exchange");
  eq(d["routing-keys"], [names.work], "x-death routing-keys");
  eq(d.count, 1, "x-death count");
  ok(d.time?.["!"] === "timestamp" && Math.abs(d.time.value - sentAtSec) < 60, "x-death time is a timestamp near now", d.time);
  eq(h["x-first-death-reason"], "expired", "x-first-death-reason");
  eq(h["x-first-death-queue"], names.work, "x-first-death-queue");
  eq(h["x-first-death-exchange"], "", "x-first-death-exchange");
  return names;
}

// confirms: acks in order, nacks for reject-publish overflow, and a
// mandatory unroutable publish returned (312 NO_ROUTE) before its ack.
async function confirms(conn) {
  step("publisher confirms: ack, nack on reject-publish overflow, return + ack");
  const cch = await conn.createConfirmChannel();
  const q = unique("amqplib-confirm");
  await cch.assertQueue(q, { durable: false, maxLength: 3, arguments: { "x-overflow": "reject-publish" } });
  const outcome = (i) =>
    new Promise((resolve) => cch.publish("", q, Buffer.from(`c${i}`), {}, (err) => resolve(err ? "nack" : "ack")));
  const got = await within(waitMs, Promise.all([0, 1, 2, 3, 4].map(outcome)), "confirms");
  eq(got, ["ack", "ack", "ack", "nack", "nack"], "confirms with x-max-length=3, x-overflow=reject-publish");
  eq((await cch.checkQueue(q)).messageCount, 3, "messages kept");

  const returned = inbox();
  cch.on("return", (m) => returned.push(m));
  const acked = new Promise((resolve) =>
    cch.publish("amq.direct", "nowhere", Buffer.from("lost"), { mandatory: true }, (err) => resolve(err ? "nack" : "ack")),
  );
  const r = await returned.take(waitMs, "basic.return");
  eq([r.fields.replyCode, r.fields.replyText, r.fields.exchange, r.fields.routingKey], [312, "NO_ROUTE", "amq.direct", "nowhere"], "basic.return");
  eq(r.content.toString(), "lost", "returned body");
  eq(await within(waitMs, acked, "confirm of the returned publish"), "ack", "an unroutable publish is still acked");

  for (let i = 0; i < 100; i++) cch.publish("amq.fanout", "", Buffer.from(`b${i}`));
  await within(waitMs, cch.waitForConfirms(), "waitForConfirms after 100 publishes");
  await cch.deleteQueue(q);
  await cch.close();
}

// prefetchAndAcks: with basic.qos 3 only three messages are in flight; each
// ack lets one more through; a nack with requeue comes back redelivered.
async function prefetchAndAcks(conn) {
  step("consume with prefetch 3, acks, ack multiple, nack + requeue");
  const pch = await conn.createChannel();
  const q = unique("amqplib-prefetch");
  await pch.assertQueue(q, { durable: false });
  for (let i = 0; i < 10; i++) pch.sendToQueue(q, Buffer.from(String(i)));
  await pch.prefetch(3);
  const box = inbox();
  const { consumerTag } = await pch.consume(q, (m) => box.push(m), { noAck: false, consumerTag: "amqplib-c1" });
  eq(consumerTag, "amqplib-c1", "consumer tag");

  const first = [];
  for (let i = 0; i < 3; i++) first.push(await box.take(waitMs, `delivery ${i}`));
  eq(first.map((m) => [m.content.toString(), m.fields.deliveryTag, m.fields.redelivered]), [["0", 1, false], ["1", 2, false], ["2", 3, false]], "first three deliveries");
  eq(first[0].fields.consumerTag, "amqplib-c1", "delivery's consumer tag");
  // The passive declare is a round trip on the same channel: had the server
  // sent a fourth delivery it would be in the box by now.
  const held = await pch.checkQueue(q);
  eq([held.messageCount, held.consumerCount], [7, 1], "ready messages and consumers while 3 are unacked");
  eq(box.length, 0, "deliveries beyond the prefetch window");

  pch.ack(first[0]);
  const fourth = await box.take(waitMs, "delivery after one ack");
  eq([fourth.content.toString(), fourth.fields.deliveryTag], ["3", 4], "fourth delivery");
  pch.ack(first[2], true); // acks tags 2 and 3
  pch.ack(fourth);

  const rest = [];
  while (rest.length < 7) {
    const m = await box.take(waitMs, `delivery ${rest.length + 4}`);
    rest.push(`${m.content.toString()}${m.fields.redelivered ? "r" : ""}`);
    if (m.content.toString() === "9" && !m.fields.redelivered) pch.nack(m, false, true);
    else pch.ack(m);
  }
  eq(rest, ["4", "5", "6", "7", "8", "9", "9r"], "the rest, with 9 nacked, requeued and redelivered");
  const drained = await pch.checkQueue(q);
  eq(drained.messageCount, 0, "queue drained");
  await pch.cancel(consumerTag);
  await pch.deleteQueue(q);
  await pch.close();
}

// consumerCancelNotify: deleting a queue cancels its consumers with a
// basic.cancel from the server, which amqplib reports as a null message.
async function consumerCancelNotify(conn) {
  step("consumer cancel notification when the queue is deleted");
  const ch = await conn.createChannel();
  const q = unique("amqplib-doomed");
  await ch.assertQueue(q, { durable: false });
  const box = inbox();
  await ch.consume(q, (m) => box.push(m));
  const other = await conn.createChannel();
  eq((await other.deleteQueue(q)).messageCount, 0, "queue.delete-ok message count");
  eq(await box.take(waitMs, "basic.cancel from the server"), null, "consumer callback called with null");
  await other.close();
  await ch.close();
}

// channelErrors: 404 and 406 close only the channel, with RabbitMQ's codes
// and texts; the connection goes on.
async function channelErrors(conn, names) {
  step("channel errors: 404 passive declare, 406 inequivalent arg, 406 unknown delivery tag");
  const missing = unique("amqplib-missing");
  let ch = await conn.createChannel();
  ch.on("error", () => {});
  let err = await rejection(ch.checkQueue(missing), "passive declare of a missing queue");
  eq(err.code, 404, "reply code");
  ok(err.message.includes(`with message "NOT_FOUND - no queue '${missing}' in vhost '/'"`), "404 reply text", err.message);

  ch = await conn.createChannel();
  ch.on("error", () => {});
  err = await rejection(
    ch.assertQueue(names.work, { durable: false, messageTtl: 200, deadLetterExchange: names.dlx }),
    "redeclare with another x-message-ttl",
  );
  eq(err.code, 406, "reply code");
  const want = `PRECONDITION_FAILED - inequivalent arg 'x-message-ttl' for queue '${names.work}' in vhost '/': received '200' but current is '100'`;
  ok(err.message.includes(`with message "${want}"`), `406 reply text (want ${want})`, err.message);
  eq([err.classId, err.methodId], [50, 10], "class and method of the failed queue.declare");

  ch = await conn.createChannel();
  const chErrors = inbox();
  ch.on("error", (e) => chErrors.push(e));
  ch.ack({ fields: { deliveryTag: 99 } });
  err = await chErrors.take(waitMs, "channel.close for an unknown delivery tag");
  eq(err.code, 406, "reply code");
  ok(err.message.includes('with message "PRECONDITION_FAILED - unknown delivery tag 99"'), "unknown tag reply text", err.message);
  eq([err.classId, err.methodId], [60, 80], "class and method of the failed basic.ack");

  const still = await conn.createChannel();
  eq((await still.checkQueue(names.work)).messageCount, 0, "connection still usable after channel errors");
  await still.close();
}

// connectionError: an unknown exchange type is a connection exception
// (503 COMMAND_INVALID) in RabbitMQ.
async function connectionError() {
  step("connection error: 503 on an unknown exchange type");
  const conn = await amqp.connect(url);
  const errs = inbox();
  conn.on("error", (e) => errs.push(e));
  const closed = new Promise((resolve) => conn.on("close", resolve));
  const ch = await conn.createChannel();
  ch.on("error", () => {});
  await rejection(ch.assertExchange(unique("amqplib-weird"), "no-such-type"), "exchange.declare with type no-such-type");
  const err = await errs.take(waitMs, "connection error");
  eq(err.code, 503, "connection close code");
  ok(err.message.includes("COMMAND_INVALID - unknown exchange type 'no-such-type'"), "503 reply text", err.message);
  await within(waitMs, closed, "connection closed");
}

// refusedLogin: a wrong password is refused with 403 ACCESS_REFUSED
// (authentication_failure_close) before the connection opens.
async function refusedLogin() {
  step("refused login: 403 ACCESS_REFUSED");
  const u = new URL(url);
  u.password = "wrong-password";
  const err = await rejection(amqp.connect(u.toString()), "connect with a wrong password");
  ok(
    err.message.includes("ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN"),
    "403 reply text",
    err.message,
  );
}
