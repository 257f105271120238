// What the console shows of a call (console.js's resultText), for what the
// real engine answers, and its line history.
import { test } from "node:test";
import assert from "node:assert/strict";
import { consoleText, lineHistory } from "../static/playground/console.js";
import { en, zh } from "./catalog.mjs";
import { startEngine } from "./engine.mjs";

const text = { en: consoleText(en).resultText, zh: consoleText(zh).resultText };

test("an AMQP error: RabbitMQ's reply as sent, what its code means and what it closed", async () => {
  const w = await startEngine();
  const r = w.exec("@c2 declare queue nope passive");
  assert.equal(
    text.en(r),
    [
      "> @c2 declare queue nope passive",
      `channel.closed ch=c2 code=404 text="NOT_FOUND - no queue 'nope' in vhost '/'"`,
      "error: 404 NOT_FOUND - no queue 'nope' in vhost '/'",
      "  ↳ (the queue or exchange named does not exist)",
      "  ↳ The broker closed channel c2 for this error; the next command on it opens it again.",
    ].join("\n"),
    "the script's English note of what closed is said instead",
  );
  assert.ok(text.zh(r).endsWith("  ↳ broker 因这个错误关闭了信道（channel）c2；在它上面执行的下一条命令会重新打开它。"), text.zh(r));
});

test("a policy's error of several lines keeps them, and closes nothing", async () => {
  const w = await startEngine();
  const r = w.exec(`set_policy p '.*' '{"max-length":-1}' --apply-to queues`);
  assert.equal(
    text.en(r),
    [
      `> set_policy p '.*' '{"max-length":-1}' --apply-to queues`,
      "error: 406 Validation failed",
      "  -1 is not a valid maximum length",
      "  ↳ (a precondition failed: for instance, a declare that differs from what exists)",
    ].join("\n"),
  );
});

test("a script error in the reader's language, with a note", async () => {
  const w = await startEngine();
  const r = w.exec("frobnicate");
  assert.equal(text.en(r, "a note"), '> frobnicate\na note\nerror: unknown command "frobnicate" (try "help")');
  assert.equal(text.zh(r), '> frobnicate\n错误：未知命令 "frobnicate"（试试 "help"）');
});

test("help COMMAND: the usage and the command's description", async () => {
  const w = await startEngine();
  const lines = text.zh(w.exec("help publish")).split("\n");
  assert.match(lines[1], /^publish \[EXCHANGE\] ROUTING-KEY/);
  assert.equal(lines[2], `    ${zh.t("help.publish")}`);
});

test("a long output shows its first and last 20 lines and says what it cut", async () => {
  const w = await startEngine();
  const r = w.exec("publish q x count=60"); // 60 × published, 60 × dropped
  const lines = text.en(r).split("\n");
  assert.equal(lines.length, 1 + 20 + 1 + 20);
  assert.equal(lines[21], en.t("js.console.cut", { n: 80, total: 120, head: 20, tail: 20 }));
  assert.equal(lines.at(-1), r.output.trimEnd().split("\n").at(-1));
});

test("↑ and ↓ walk the lines run, newest last", () => {
  const h = lineHistory(3);
  for (const l of ["a", "b", "b", "c", "d"]) h.remember(l);
  assert.equal(h.move(-1), "d");
  assert.equal(h.move(-1), "c");
  assert.equal(h.move(-1), "b");
  assert.equal(h.move(-1), "b", "the oldest kept, and no further: a fell out of 3");
  assert.equal(h.move(1), "c");
  assert.equal(h.move(1), "d");
  assert.equal(h.move(1), "", "past the newest: an empty line");
  assert.equal(h.move(1), "");
  h.remember("e");
  assert.equal(h.move(-1), "e");
});
