// store.js's format of the session kept in a tab's storage: written and
// read back, on a storage with a browser's quota, the lines a real engine
// logged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readSession, writeSession, MAX_STORED_CHARS } from "../static/playground/store.js";
import { startEngine } from "./engine.mjs";

// MemoryStorage is the Web Storage interface over a Map, refusing what
// would take it past quota characters as browsers do (QuotaExceededError).
class MemoryStorage {
  constructor(quota = 5_000_000) {
    this.quota = quota;
    this.items = new Map();
  }
  getItem(k) {
    return this.items.has(k) ? this.items.get(k) : null;
  }
  setItem(k, v) {
    const used = [...this.items].reduce((n, [key, val]) => n + (key === k ? 0 : key.length + val.length), 0);
    if (used + k.length + String(v).length > this.quota) throw new DOMException("quota", "QuotaExceededError");
    this.items.set(k, String(v));
  }
  removeItem(k) {
    this.items.delete(k);
  }
}

async function loggedLines() {
  const w = await startEngine();
  for (const l of ['declare queue q ttl=1s dlx="" dlrk=dead', "declare queue dead", "publish q 'hello world'", "set_policy p '^q$' '{\"max-length\":5}' --apply-to queues"]) w.exec(l);
  w.step();
  return w.log();
}

test("a session's lines come back as they were kept", async () => {
  const lines = await loggedLines();
  assert.equal(lines.at(-1), "advance to 1s");
  const s = new MemoryStorage();
  assert.equal(writeSession(s, lines, ""), "kept");
  assert.deepEqual(readSession(s, ""), { lines });
  // and a fresh engine replays them to the same state
  const a = await startEngine();
  const r = a.replay(lines, lines.length);
  assert.equal(r.error, undefined);
  assert.deepEqual(a.log(), lines);
});

test("a share link's page opens the kept session only if it continues that link", async () => {
  const lines = await loggedLines();
  const s = new MemoryStorage();
  writeSession(s, lines, "#s=abc");
  assert.deepEqual(readSession(s, "#s=abc"), { lines });
  assert.equal(readSession(s, "#s=other"), null, "another link wins");
  assert.deepEqual(readSession(s, ""), { lines }, "without a link the kept session opens");
});

test("an empty log keeps nothing", () => {
  const s = new MemoryStorage();
  writeSession(s, ["declare queue q"], "");
  assert.equal(writeSession(s, [], ""), "removed");
  assert.equal(readSession(s, ""), null);
  assert.equal(s.items.size, 0);
});

test("a log too long to keep leaves its length, and so does one the browser refuses", () => {
  const line = `publish q ${"x".repeat(999)}`;
  const long = Array.from({ length: Math.ceil(MAX_STORED_CHARS / line.length) + 1 }, () => line);
  const s = new MemoryStorage();
  assert.equal(writeSession(s, long, ""), "tooBig");
  assert.deepEqual(readSession(s, ""), { tooBig: long.length });

  const small = new MemoryStorage(20_000);
  const some = long.slice(0, 30);
  assert.equal(writeSession(small, some, ""), "tooBig", "over the quota is too big too");
  assert.deepEqual(readSession(small, ""), { tooBig: 30 });
});

test("what is not ours, or damaged, opens a fresh session", () => {
  const s = new MemoryStorage();
  for (const v of ["{not json", JSON.stringify({ v: 2, lines: ["x"] }), JSON.stringify({ v: 1, lines: [1, 2] }), JSON.stringify({ v: 1 }), "null"]) {
    s.setItem("warren.playground.session", v);
    assert.equal(readSession(s, ""), null, v);
  }
  assert.equal(readSession(null, ""), null, "no storage at all");
});
