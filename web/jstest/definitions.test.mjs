// definitions.js turns a RabbitMQ definitions document into script lines;
// the real engine runs them, and its topology is the document's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { definitionsReader } from "../static/playground/definitions.js";
import { UserError } from "../static/playground/words.js";
import { en, zh } from "./catalog.mjs";
import { startEngine } from "./engine.mjs";

const { definitionsLines } = definitionsReader(en);

// DOC is what rabbitmqctl export_definitions writes, trimmed to what the
// playground imports (users and permissions are left out).
const DOC = {
  rabbit_version: "3.10.7",
  vhosts: [{ name: "/" }, { name: "staging" }],
  exchanges: [
    { name: "orders", vhost: "/", type: "topic", durable: true, auto_delete: false, internal: false, arguments: { "alternate-exchange": "unrouted" } },
    { name: "unrouted", vhost: "/", type: "fanout", durable: true, auto_delete: false, internal: false, arguments: {} },
    { name: "amq.topic", vhost: "/", type: "topic", durable: true, auto_delete: false, internal: false, arguments: {} },
    { name: "events", vhost: "staging", type: "headers", durable: false, auto_delete: false, internal: false, arguments: {} },
  ],
  queues: [
    { name: "eu orders", vhost: "/", durable: true, auto_delete: false, arguments: { "x-message-ttl": 60000, "x-dead-letter-exchange": "unrouted", "x-queue-type": "classic" } },
    { name: "lost", vhost: "/", durable: true, auto_delete: false, arguments: {} },
    { name: "stream-ish", vhost: "/", durable: true, auto_delete: false, type: "quorum", arguments: { "x-delivery-limit": 3 } },
    { name: "inbox", vhost: "staging", durable: false, auto_delete: true, arguments: { "x-max-length": 10 } },
  ],
  bindings: [
    { source: "orders", vhost: "/", destination: "eu orders", destination_type: "queue", routing_key: "eu.*", arguments: {} },
    { source: "unrouted", vhost: "/", destination: "lost", destination_type: "queue", routing_key: "", arguments: {} },
    { source: "orders", vhost: "/", destination: "unrouted", destination_type: "exchange", routing_key: "#", arguments: {} },
    { source: "events", vhost: "staging", destination: "inbox", destination_type: "queue", routing_key: "", arguments: { "x-match": "all", kind: "new", n: 1 } },
  ],
  policies: [{ vhost: "/", name: "cap", pattern: "^lost$", "apply-to": "queues", definition: { "max-length": 100 }, priority: 1 }],
};

test("a definitions document's lines, as the script writes them", () => {
  const { lines, counts } = definitionsLines(JSON.stringify(DOC));
  assert.deepEqual(counts, { vhosts: 1, exchanges: 3, queues: 4, bindings: 4, policies: 1 });
  assert.deepEqual(lines, [
    "vhost add staging",
    "declare exchange orders topic durable ae='unrouted'",
    "declare exchange unrouted fanout durable",
    "open imp-1 vhost=staging",
    "use app",
    "@imp-1 declare exchange events headers",
    "declare queue 'eu orders' durable x-message-ttl=60000 x-dead-letter-exchange='unrouted' x-queue-type='classic'",
    "declare queue lost durable",
    "declare queue stream-ish durable x-delivery-limit=3 x-queue-type='quorum'",
    "@imp-1 declare queue inbox auto-delete x-max-length=10",
    "bind 'eu orders' orders 'eu.*'",
    "bind lost unrouted",
    "bind exchange unrouted orders '#'",
    "@imp-1 bind inbox events \"\" x-match='all' kind='new' n=1",
    "set_policy 'cap' '^lost$' '{\"max-length\":100}' --apply-to queues --priority 1",
  ]);
});

test("the engine runs the lines and holds the document's topology", async () => {
  const w = await startEngine();
  for (const line of definitionsLines(JSON.stringify(DOC)).lines) {
    const r = w.exec(line);
    assert.equal(r.error, undefined, `${line}: ${r.error}`);
    assert.equal(r.amqpError, undefined, `${line}: ${JSON.stringify(r.amqpError)}`);
  }
  const snap = w.snapshot();
  const root = snap.vhosts.find((v) => v.name === "/");
  const staging = snap.vhosts.find((v) => v.name === "staging");
  assert.deepEqual(root.queues.map((q) => q.name).sort(), ["eu orders", "lost", "stream-ish"]);
  assert.equal(root.queues.find((q) => q.name === "eu orders").effective.messageTtlMs, 60000);
  assert.equal(root.queues.find((q) => q.name === "stream-ish").type, "quorum");
  assert.equal(root.exchanges.find((x) => x.name === "orders").alternate, "unrouted");
  assert.deepEqual(
    root.bindings.filter((b) => b.source !== "").map((b) => [b.source, b.destinationType, b.destination, b.routingKey]).sort(),
    [["orders", "exchange", "unrouted", "#"], ["orders", "queue", "eu orders", "eu.*"], ["unrouted", "queue", "lost", ""]],
  );
  assert.equal(root.queues.find((q) => q.name === "lost").effective.maxLength, 100, "the policy applies");
  assert.deepEqual(staging.bindings.find((b) => b.source === "events").args, { "x-match": "all", kind: "new", n: 1 });
  assert.equal(staging.queues[0].autoDelete, true);
});

test("a document that is not one says why, in the reader's language", () => {
  const cases = [
    ["{", /^invalid JSON: /],
    ["[]", new RegExp(en.t("js.import.err.doc").replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))],
    [JSON.stringify({ queues: {} }), /queues/],
    [JSON.stringify({ bindings: [{ source: "x", destination: "y", destination_type: "stream" }] }), /unknown destination_type "stream"/],
    [JSON.stringify({ queues: [{ name: "q", arguments: { "bad key": 1 } }] }), /"bad key"/],
    [JSON.stringify({ queues: [{ name: "q", arguments: { "x-max-length": null } }] }), /null/],
  ];
  for (const [text, want] of cases) assert.throws(() => definitionsLines(text), (e) => e instanceof UserError && want.test(e.message), text);
  assert.throws(() => definitionsReader(zh).definitionsLines("{"), (e) => e instanceof UserError && e.message.startsWith("JSON 无效："));
});
