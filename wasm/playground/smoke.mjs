// Smoke test of the built playground in Node: load warren.wasm with the
// wasm_exec.js of the Go that built it and drive the global warren object
// the way the page will. Usage: node smoke.mjs [DIR], where DIR (default
// ./dist next to this file) holds warren.wasm and wasm_exec.js. Prints
// "ok" and exits 0, or throws.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.resolve(process.argv[2] ?? path.join(here, "dist"));

// wasm_exec.js is a classic script that defines globalThis.Go.
createRequire(import.meta.url)(path.join(dir, "wasm_exec.js"));
const go = new globalThis.Go();
const { instance } = await WebAssembly.instantiate(await readFile(path.join(dir, "warren.wasm")), go.importObject);
go.run(instance); // settles only if Go exits; warren is ready once run returns
const w = globalThis.warren;
assert.ok(w, "warren is not defined after go.run");

const lines = ["declare queue dead", 'declare queue q ttl=1s dlx="" dlrk=dead', "publish q hi"];
for (const line of lines) {
  const r = w.exec(line);
  assert.equal(r.error, undefined, `${line}: ${r.error}`);
  assert.equal(r.logged, true);
}
const pub = w.exec("publish q bye expiration=5000");
assert.deepEqual(pub.events.map((e) => e.kind), ["published", "enqueued"]);
assert.equal(pub.events[0].exchange, "");
assert.equal(pub.events[1].at, 1000); // the queue's TTL is the lower

const next = w.next();
assert.deepEqual(next, { at: 1000, kind: "message-ttl", vhost: "/", queue: "q", msgId: 1 });

const step = w.step();
assert.equal(step.now, 1000);
assert.equal(step.line, "advance to 1s");
assert.equal(step.fired[0].kind, "message-ttl");
assert.deepEqual(step.events.map((e) => e.kind), ["expired", "expired", "dead-lettered", "enqueued", "dead-lettered", "enqueued"]);
assert.equal(step.events[2].reason, "expired");

const snap = w.snapshot();
const dead = snap.vhosts[0].queues.find((q) => q.name === "dead");
assert.equal(dead.readyCount, 2);
assert.equal(dead.ready[0].body, "hi");
assert.equal(dead.ready[0].headers["x-death"][0].reason, "expired");
assert.equal(dead.ready[1].properties.expiration, undefined); // dead-lettering drops it
assert.equal(dead.ready[1].headers["x-death"][0]["original-expiration"], "5000");

const log = w.log();
assert.deepEqual(log, [...lines, "publish q bye expiration=5000", "advance to 1s"]);
assert.equal(w.advanceBy(250).now, 1250);
assert.equal(w.advanceTo(2000).line, "advance to 2s");
assert.equal(w.step().output, "nothing scheduled\n");

// Time travel: back to before the step, then forward again.
const back = w.replay(log, 4);
assert.equal(back.now, 0);
assert.equal(back.results.length, 4);
assert.equal(w.snapshot().vhosts[0].queues.find((q) => q.name === "q").readyCount, 2);
const forward = w.replay(log);
assert.equal(forward.now, 1000);
assert.deepEqual(w.snapshot(), snap);

assert.match(w.exec("nonsense").error, /unknown command/);
assert.match(w.advanceBy("soon").error, /whole number/);
assert.deepEqual(w.reset(), { now: 0 });
assert.deepEqual(w.log(), []);
assert.equal(w.snapshot().vhosts[0].queues.length, 0);

console.log("ok");
process.exit(0);
