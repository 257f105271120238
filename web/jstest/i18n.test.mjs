// i18n.js's translator, and the texts built on it that the console shows
// (scripterror.js, format.js), from the real catalogs and the engine's own
// errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { translator } from "../static/i18n.js";
import { scriptErrors } from "../static/scripterror.js";
import { formatter } from "../static/playground/format.js";
import { en, zh } from "./catalog.mjs";
import { startEngine } from "./engine.mjs";

test("t fills named values in the language's order, and says a missing key", (t) => {
  const tr = translator({ "js.a": "{n} of {total}", "js.b": "{total} 中的 {n}" }, "zh-CN");
  assert.equal(tr.t("js.a", { n: 1, total: 3 }), "1 of 3");
  assert.equal(tr.t("js.b", { n: 1, total: 3 }), "3 中的 1");
  assert.equal(tr.t("js.a", { n: 1 }), "1 of {total}", "a value not given stays a placeholder");
  const errors = t.mock.method(console, "error", () => {});
  assert.equal(tr.t("js.none"), "js.none");
  assert.equal(errors.mock.calls.length, 1);
  assert.match(errors.mock.calls[0].arguments[0], /no entry js\.none in the zh-CN catalog/);
  assert.equal(tr.has("js.a"), true);
  assert.equal(tr.has("js.none"), false);
});

test("tParts keeps an element where its placeholder is", () => {
  const node = { element: "code" };
  assert.deepEqual(en.tParts("js.topo.amqHidden", { amq: node }).filter((p) => typeof p === "object"), [node]);
  const parts = zh.tParts("js.card.queue", { name: node });
  assert.ok(parts.includes(node));
  assert.equal(parts.filter((p) => typeof p === "string").join("") + "", zh.t("js.card.queue", { name: "" }));
});

test("list joins as each language writes a list", () => {
  assert.equal(en.list(["a", "b", "c"]), "a, b, c");
  assert.equal(zh.list(["a", "b", "c"]), "a、b、c");
});

test("fmtMs writes durations as the script does, never in words but never itself", () => {
  const f = formatter(en);
  assert.deepEqual([0, 250, 1500, 150000, 3900000, -2000].map(f.fmtMs), ["0s", "250ms", "1.5s", "2m30s", "1h5m", "-2s"]);
  assert.equal(f.fmtMs(null), "never");
  assert.equal(formatter(zh).fmtMs(null), "永不");
  assert.equal(formatter(zh).exchangeLabel(""), "（默认）");
  assert.equal(f.exchangeLabel("amq.topic"), "amq.topic");
});

test("the engine's script errors in both languages", async () => {
  const w = await startEngine();
  const unknown = w.exec("frobnicate q");
  assert.equal(unknown.errorDetail.key, "unknownCommand");
  assert.equal(scriptErrors(en).errorText(unknown), en.t("js.scriptError.unknownCommand", { command: '"frobnicate"' }));
  assert.match(scriptErrors(zh).errorText(unknown), /frobnicate/);
  assert.notEqual(scriptErrors(zh).errorText(unknown), unknown.error, "the Chinese page says it in Chinese");

  // A failed expect wraps the reason: both are said.
  const check = w.check(["expect queue q ready=2"]);
  assert.equal(check.passed, false);
  const why = scriptErrors(en).errorText(check.lines[0]);
  assert.ok(why.includes(en.t("js.scriptError.noQueue", { queue: "q" })), why);

  // An error whose key the catalog lacks keeps the engine's English.
  assert.equal(scriptErrors(en).errorText({ error: "boom", errorDetail: { key: "noSuchKey" } }), "boom");
  assert.equal(scriptErrors(en).errorText({}), "");
});

test("the help overview lines up its groups in either language", async () => {
  const w = await startEngine();
  const help = w.exec("help").help;
  for (const tr of [en, zh]) {
    const lines = scriptErrors(tr).helpText(help).split("\n");
    assert.equal(lines.length, help.groups.length + 1);
    assert.equal(lines.at(-1), tr.t("js.scriptHelp.more"));
    const columns = (s) => [...s].reduce((n, c) => n + (c.codePointAt(0) >= 0x2e80 ? 2 : 1), 0);
    const starts = lines.slice(0, -1).map((l, i) => columns(l.slice(0, l.indexOf(help.groups[i].verbs[0]))));
    assert.equal(new Set(starts).size, 1, `the commands start in one column: ${starts}`);
  }
});

test("show's prose in the reader's language, its data as printed", async () => {
  const w = await startEngine();
  const out = w.exec("show queues").output.replace(/\n$/, "");
  assert.equal(out, "no queues");
  assert.equal(scriptErrors(zh).showText(out), zh.t("js.scriptShow.noQueues"));
  assert.equal(scriptErrors(zh).showText("q ready=1"), "q ready=1");
});
