// explain.js says what the engine's events mean: here of events the real
// engine (web/static/warren.wasm) makes, in both languages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { explainer } from "../static/playground/explain.js";
import { en, zh } from "./catalog.mjs";
import { startEngine } from "./engine.mjs";

const ex = { en: explainer(en), zh: explainer(zh) };

// run runs lines on a fresh engine and returns the last one's result.
async function run(...lines) {
  const w = await startEngine();
  let r;
  for (const l of lines) r = w.exec(l);
  return r;
}

const ofKind = (r, kind) => r.events.find((e) => e.kind === kind);

test("a message's way through a queue with a length limit and a dead-letter exchange", async () => {
  const r = await run("declare queue dead", 'declare queue q ttl=1s dlx="" dlrk=dead max-length=1 overflow=drop-head', "publish q a", "publish q b");
  assert.deepEqual(
    r.events.map((e) => e.kind),
    ["published", "enqueued", "overflowed", "dead-lettered", "enqueued"],
  );
  assert.deepEqual(r.events.map(ex.en.explain), [
    "Message #2 published to the default exchange with routing key q, which goes to the queue named q, if there is one.",
    "Message #2 entered queue q through the default exchange, which routes by queue name (q). Its TTL runs out at 1s.",
    "Queue q was over its length limit: drop-head removed its oldest message, #1.",
    "Message #1 dead-lettered from queue q (the queue was over its length limit): republished to exchange (default) with routing key dead as message #3.",
    "Message #3 entered queue dead through the default exchange, which routes by queue name (dead).",
  ]);
  assert.equal(ex.zh.explain(r.events[2]), "队列 q 超过了长度上限：drop-head 删除了最旧的消息 #1。");
  assert.equal(ex.zh.explain(r.events[3]), "消息 #1 从队列 q 成为死信（队列超过了长度上限）：以路由键 dead 作为消息 #3 重新发布到交换机 （默认）。");
});

test("a binding's key names how a copy was routed", async () => {
  const r = await run("declare queue q", "declare exchange e topic", "bind q e 'a.*'", "publish e a.b hi");
  const enq = ofKind(r, "enqueued");
  assert.deepEqual(enq.via, { exchange: "e", type: "topic", key: "a.*", text: "e:a.*" });
  assert.equal(ex.en.viaText(enq.via), "the binding from topic exchange e with key a.*");
  assert.equal(ex.zh.viaText(enq.via), "topic 交换机 e 上绑定键为 a.* 的绑定");
  assert.equal(ex.en.explain(enq), "Message #1 entered queue q through the binding from topic exchange e with key a.*.");
});

test("a mandatory message no queue took comes back with RabbitMQ's reply", async () => {
  const r = await run("publish amq.direct k x mandatory");
  const returned = ofKind(r, "returned");
  assert.equal(returned.code, 312);
  const parts = ex.en.explain(returned);
  assert.ok(Array.isArray(parts), "a sentence with a reply in it is parts");
  const reply = parts.find((p) => typeof p === "object");
  assert.deepEqual(reply, { reply: "312 NO_ROUTE", meaning: " (no queue took the message)" });
  assert.equal(
    parts.map((p) => (typeof p === "object" ? `${p.reply}${p.meaning}` : p)).join(""),
    "Message #1 was published as mandatory and no queue took it, so the broker returned it to the publisher: 312 NO_ROUTE (no queue took the message).",
  );
  assert.deepEqual(ex.zh.explain(returned).find((p) => typeof p === "object"), { reply: "312 NO_ROUTE", meaning: "（没有队列接收这条消息）" });
});

test("an AMQP error closes the channel: what it closed, and what the code means", async () => {
  const r = await run("@c2 declare queue nope passive");
  assert.deepEqual(r.amqpError, { code: 404, text: "NOT_FOUND - no queue 'nope' in vhost '/'", closed: "channel" });
  assert.equal(ex.en.closedText(r), "The broker closed channel c2 for this error; the next command on it opens it again.");
  assert.equal(ex.zh.closedText(r), "broker 因这个错误关闭了信道（channel）c2；在它上面执行的下一条命令会重新打开它。");
  assert.equal(ex.en.codeMeaning(404), " (the queue or exchange named does not exist)");
  assert.equal(ex.en.codeMeaning(999), "");
  const parts = ex.en.explain(ofKind(r, "channel.closed"));
  assert.deepEqual(parts.find((p) => typeof p === "object"), { reply: "404 NOT_FOUND - no queue 'nope' in vhost '/'", meaning: " (the queue or exchange named does not exist)" });
  const text = (ps) => ps.map((p) => (typeof p === "object" ? `${p.reply}${p.meaning}` : p)).join("");
  assert.equal(text(parts), "The broker closed channel c2: 404 NOT_FOUND - no queue 'nope' in vhost '/' (the queue or exchange named does not exist). The next line on it opens it again.");
});

test("a policy's error closes nothing", async () => {
  const r = await run("set_policy p '.*' '{\"max-length\":-1}' --apply-to queues");
  assert.ok(r.amqpError, JSON.stringify(r));
  assert.equal(ex.en.closedText(r), "");
});

test("time runs out: expired and dead-lettered, in the order the engine said", async () => {
  const w = await startEngine();
  w.exec("declare queue dead");
  w.exec('declare queue q ttl=1s dlx="" dlrk=dead');
  w.exec("publish q hi");
  const r = w.step();
  assert.deepEqual(
    r.events.map((e) => ex.en.explain(e)),
    [
      "Message #1 expired in queue q: its TTL ran out.",
      "Message #1 dead-lettered from queue q (its TTL ran out): republished to exchange (default) with routing key dead as message #2.",
      en.t("js.ev.enqueued.via", { msg: 2, queue: "dead", via: ex.en.viaText(r.events[2].via) }),
    ],
  );
});

test("every kind of event the engine made here has a sentence", async () => {
  const w = await startEngine();
  const lines = [
    "declare exchange e fanout",
    "declare queue q",
    "bind q e",
    "@c consume q tag=t",
    "publish e '' hi",
    "@c ack last",
    "unbind q e",
    "delete queue q",
    "delete exchange e",
    "vhost add v",
    "vhost delete v",
  ];
  for (const l of lines) {
    const r = w.exec(l);
    assert.equal(r.error, undefined, `${l}: ${r.error}`);
    for (const e of r.events) assert.notEqual(ex.en.explain(e), "", `${l}: ${e.kind} has no explanation`);
  }
  assert.equal(ex.en.explain({ kind: "no-such-kind" }), "");
});

test("a direct reply-to reply goes to its consumer through no queue", async () => {
  const w = await startEngine();
  for (const l of ["declare queue rpc", "@client consume amq.rabbitmq.reply-to no-ack tag=replies", "@client publish rpc ping reply-to=amq.rabbitmq.reply-to", "@server consume rpc tag=worker"]) {
    assert.equal(w.exec(l).error, undefined, l);
  }
  const r = w.exec("@server publish amq.rabbitmq.reply-to.2.1.1 pong");
  const reply = r.events.find((e) => e.kind === "delivered");
  assert.equal(reply.queue, undefined);
  assert.equal(
    ex.en.explain(reply),
    "Reply #2 to amq.rabbitmq.reply-to.2.1.1 went straight to consumer replies on channel client, through no queue (direct reply-to), delivery tag 1.",
  );
});
