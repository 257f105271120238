// words.js writes the words of the lines the forms build; the real engine
// reads them back as the user meant: names verbatim, header values with
// the types typed. liveamqp.js's URLs are checked here too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { word, pairWords, channelPrefix, UserError } from "../static/playground/words.js";
import { amqpURLs } from "../static/playground/liveamqp.js";
import { startEngine } from "./engine.mjs";

test("word quotes a name only when it has to, and the engine reads it verbatim", async () => {
  const w = await startEngine();
  const names = ["plain", "with space", 'say "hi"', "it's", "#hash", "a=b", "@at", "back\\slash", "队列", "a.b:c/d-e*"];
  assert.equal(word("plain"), "plain");
  assert.equal(word("a.b:c/d-e*"), "a.b:c/d-e*");
  assert.equal(word("with space"), '"with space"');
  for (const n of names) assert.equal(w.exec(`declare queue ${word(n)}`).error, undefined, n);
  assert.deepEqual(
    w.snapshot().vhosts[0].queues.map((q) => q.name).sort(),
    names.slice().sort(),
  );
});

test("pairWords passes values as typed: the engine types them as the script does", async () => {
  const w = await startEngine();
  w.exec("declare queue q");
  const words = pairWords(`n=1 s='1' f=1.0 b=true a=[x,y] t="a b" e=`, "header.", (v) => `bad ${v}`);
  assert.deepEqual(words, ["header.n=1", "header.s='1'", "header.f=1.0", "header.b=true", "header.a=[x,y]", 'header.t="a b"', 'header.e=""']);
  assert.equal(w.exec(`publish q hi ${words.join(" ")}`).error, undefined);
  const m = w.snapshot().vhosts[0].queues[0].ready[0];
  assert.deepEqual(m.headers, { a: ["x", "y"], b: true, e: "", f: 1, n: 1, s: "1", t: "a b" });
  assert.deepEqual(m.headersText, { a: "[x,y]", b: "true", e: "", f: "1.0", n: "1", s: "'1'", t: "a b" }, "1.0 stays a float, '1' a string");
  assert.throws(() => pairWords("n=1 oops", "", (v) => `bad ${v}`), (e) => e instanceof UserError && e.message === "bad oops");
});

test("channelPrefix runs a line on a named channel, or the current one", async () => {
  assert.equal(channelPrefix(" "), "");
  const w = await startEngine();
  w.exec("declare queue q");
  const r = w.exec(`${channelPrefix("worker.2")}get q`);
  assert.equal(r.error, undefined);
  assert.ok(w.snapshot().vhosts[0].connections.some((c) => c.name === "worker"), JSON.stringify(w.snapshot().vhosts[0].connections));
});

test("a session's AMQP login as URLs on the page's host", () => {
  const loc = new URL("https://warren.example:8443/s/abc");
  const login = { user: "s-abc", password: "p@ss/word", vhost: "s-abc", port: 5672, webSocket: "/amqp" };
  assert.deepEqual(amqpURLs(login, loc), { tcp: "amqp://s-abc:p%40ss%2Fword@warren.example:5672/s-abc", ws: "wss://warren.example:8443/amqp" });
  assert.deepEqual(amqpURLs({ ...login, vhost: "/", port: 0 }, new URL("http://127.0.0.1:8080/s/x")), { tcp: null, ws: "ws://127.0.0.1:8080/amqp" });
  assert.deepEqual(amqpURLs({ ...login, webSocket: "" }, loc).ws, null);
});
