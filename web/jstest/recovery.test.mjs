// recovery.js's plans: what Restore replays after the engine died, by
// what it died in, for a session a real engine logged; a fresh engine
// replays the plan.
import { test } from "node:test";
import assert from "node:assert/strict";
import { planFor } from "../static/playground/recovery.js";
import { startEngine } from "./engine.mjs";

const LINES = ["declare queue q ttl=1s", "publish q a", "publish q b"];

async function logged() {
  const w = await startEngine();
  for (const l of LINES) w.exec(l);
  w.step();
  return w.log();
}

test("a line the engine died running never reached the log: all of it is replayed", async () => {
  const log = await logged();
  assert.deepEqual(log, [...LINES, "advance to 1s"]);
  const p = planFor({ call: { name: "exec", args: ["publish q boom"] } }, log, log);
  assert.deepEqual(p, { lines: log, timeline: log, running: { line: "publish q boom" } });
  assert.notEqual(p.lines, log, "a copy: the session's log goes on changing");
  assert.deepEqual(planFor({ call: { name: "step", args: [] } }, log, log).running, { time: true });
  assert.deepEqual(planFor({ call: { name: "check", args: [["expect queue q"]] } }, log, log).running, { check: true });
  assert.deepEqual(planFor({ call: null }, log, log), { lines: log, timeline: log }, "a death between calls");
});

test("a read died on the state the last line made: that line is left out", async () => {
  const log = await logged();
  for (const name of ["snapshot", "next", "log"]) {
    assert.deepEqual(planFor({ call: { name, args: [] } }, log, log), { lines: log.slice(0, -1), timeline: log, leftOut: "advance to 1s" });
  }
  assert.deepEqual(planFor({ call: { name: "snapshot", args: [] } }, [], []), { lines: [], timeline: [] }, "an empty log leaves nothing out");
});

test("a replay died on its last line: the lines before it are replayed, the rest stays ahead", async () => {
  const log = await logged();
  const rewind = planFor({ call: { name: "replay", args: [log, 2] } }, log.slice(0, 2), log);
  assert.deepEqual(rewind, { lines: log.slice(0, 1), timeline: log, leftOut: log[1] });
  const all = planFor({ call: { name: "replay", args: [log, 99] } }, [], log);
  assert.deepEqual(all, { lines: log.slice(0, -1), timeline: log, leftOut: log.at(-1) }, "an upTo out of range is the whole list");
  assert.deepEqual(planFor({ call: { name: "replay", args: [[], 0] } }, [], []), { lines: [], timeline: [], leftOut: undefined });

  // A fresh engine replays the plan, and stands where the log did before
  // the line left out.
  const w = await startEngine();
  const r = w.replay(rewind.timeline, rewind.lines.length);
  assert.equal(r.error, undefined);
  assert.deepEqual(w.log(), ["declare queue q ttl=1s"]);
  assert.deepEqual(w.snapshot().vhosts[0].queues.map((q) => [q.name, q.readyCount]), [["q", 0]]);
});
