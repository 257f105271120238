// Browser end-to-end test of the playground's session, run by
// web/playground_test.go (TestSessionInChromium): node session.mjs BASE_URL.
//
//   - An empty playground opens with the guided first step, whose Run
//     buttons run its lines and whose link leads to lesson 1.
//   - The session survives going to a lesson and back, and a reload (this
//     tab's storage); Start fresh empties it; a share link wins over it,
//     unless the stored session continues that very link; a log too large
//     to keep is said to be, then and on the way back.
//   - The engine dies on purpose (the warrenTestHooks crash, a real exit of
//     the Go program): while a line runs, while the page reads the state a
//     line made, between calls, and during a rewind. Each time the page
//     says so, the playground turns inert, and Restore brings the state
//     back from the log, leaving out and naming what killed it; a reload
//     after a death opens the kept log too.
//   - A queue of 100,000 messages stays usable: publish, show, draw,
//     inspect, get, reload (which replays the log); a delayed exchange's
//     timers are bounded in the snapshot.
//   - The first step and the engine's death in Chinese.
//
// Prints "ok" and exits 0, or exits 1 with the failure.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

await runTest("session.mjs", { timeout: 30000 }, async (t) => {
  const { base } = t;
  const tid = (page, id) => page.getByTestId(id);
  const log = (page) => page.evaluate(() => warren.log());
  const timeline = (page) => page.$$eval('[data-testid="log"] li', (lis) => lis.map((li) => li.textContent.replace(/^\d+\. /, "")));
  const queueNames = (page) => page.evaluate(() => warren.snapshot().vhosts[0].queues.map((q) => q.name));
  const readyCount = (page, q) => page.evaluate((q) => warren.snapshot().vhosts[0].queues.find((x) => x.name === q)?.readyCount, q);

  // open loads url in a new tab whose engine has the test hooks.
  const open = (url) => t.open(url, () => (globalThis.warrenTestHooks = true));

  async function run(page, line) {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
    const out = await tid(page, "console-output").textContent();
    assert.ok(out.startsWith(`> ${line}`) && !/^error:/m.test(out), `${line}: ${out}`);
    return out;
  }

  // The page's copy of the log (the timeline) is the engine's.
  async function sameLog(page, want) {
    const got = await log(page);
    if (want) assert.deepEqual(got, want);
    assert.deepEqual(await timeline(page), got);
  }

  t.step = "the guided first step";
  const page = await open(base + "/playground");
  assert.ok(await tid(page, "first-step").isVisible(), "an empty playground shows the first step");
  assert.equal(await tid(page, "session-note").isVisible(), false);
  assert.match(await tid(page, "first-lesson").getAttribute("href"), /\/lessons\/amqp-model$/);
  await tid(page, "first-run-1").click();
  await tid(page, "first-run-2").click();
  await page.locator('[data-testid="queue"][data-queue="hello"] button.msg').first().click();
  assert.match(await tid(page, "inspector").textContent(), /Hello World!/);
  await tid(page, "first-run-3").click();
  assert.match(await tid(page, "console-output").textContent(), /^> get hello\ndelivered .*q=hello/);
  assert.equal(await page.locator(".first-lines li.done").count(), 3);
  await sameLog(page, ["declare queue hello", 'publish hello "Hello World!"', "get hello"]);

  t.step = "to lesson 1 by the first step's link, and back";
  await run(page, "declare queue kept ttl=5s");
  await run(page, "publish kept one");
  await tid(page, "advance-by").fill("2s");
  await tid(page, "advance").click();
  const built = await log(page);
  await tid(page, "first-lesson").click();
  await page.waitForSelector("body[data-lesson-ready=true]");
  assert.equal(await page.locator('[data-testid="lesson"]').getAttribute("data-slug"), "amqp-model");
  await tid(page, "nav-playground").click();
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, built);
  assert.deepEqual(await queueNames(page), ["hello", "kept"]);
  assert.equal(await tid(page, "clock").textContent(), "2s");
  assert.match(await tid(page, "session-note-text").textContent(), /restored \(6 lines of log\)/);
  assert.equal(await tid(page, "first-step").isVisible(), false, "a restored session has no first step");

  t.step = "the browser's back button and a reload keep it too";
  await page.goBack(); // the lesson
  await page.waitForSelector("body[data-lesson-ready=true]");
  await page.goForward();
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, built);
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, built);

  t.step = "Start fresh";
  await tid(page, "session-fresh").click();
  await sameLog(page, []);
  assert.ok(await tid(page, "first-step").isVisible());
  assert.equal(await tid(page, "session-note").isVisible(), false);
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, []);
  assert.ok(await tid(page, "first-step").isVisible(), "fresh stays fresh after a reload");
  await tid(page, "first-step-close").click();
  assert.equal(await tid(page, "first-step").isVisible(), false);

  t.step = "a share link wins over the stored session, unless the session continues it";
  await run(page, "declare queue shared");
  await tid(page, "share").click();
  const shareURL = await tid(page, "share-url").inputValue();
  await run(page, "declare queue mine");
  await page.goto(base + "/lessons");
  await page.goBack(); // the address still carries the link made above: the work after it is kept
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, ["declare queue shared", "declare queue mine"]);
  const other = await open(base + "/playground");
  await run(other, "declare queue elsewhere");
  await tid(other, "share").click();
  const otherURL = await tid(other, "share-url").inputValue();
  await other.close();
  await page.goto(otherURL);
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, ["declare queue elsewhere"]);
  assert.match(await tid(page, "status").textContent(), /from the share link/);
  await page.goto(shareURL);
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, ["declare queue shared"]);

  t.step = "a log too large to keep";
  const body = "x".repeat(60000);
  await page.evaluate((body) => {
    for (let i = 0; i < 17; i++) playground.run(`publish big "${body}"`);
  }, body);
  await page.waitForFunction(() => !document.getElementById("session-note").hidden);
  assert.match(await tid(page, "session-note-text").textContent(), /too large to keep/);
  await page.goto(base + "/playground");
  await page.waitForSelector("body[data-ready=true]");
  await sameLog(page, []);
  assert.match(await tid(page, "session-note-text").textContent(), /last session in this tab \(18 lines\) was too large/);
  assert.ok(await tid(page, "first-step").isVisible());

  // crashOn makes the engine die (a real exit of the Go program) when the
  // engine's method name is called with a first argument matching arg.
  const crashOn = (page, name, arg) =>
    page.evaluate(
      ([name, arg]) => {
        const api = globalThis.warren;
        const orig = api[name];
        api[name] = (...args) => (arg === undefined || args[0] === arg ? api.crash() : orig(...args));
      },
      [name, arg],
    );
  const stopped = async (page) => {
    await page.waitForSelector("body[data-engine=stopped]");
    assert.ok(await tid(page, "engine-down").isVisible());
    assert.equal(await page.evaluate(() => document.querySelector("main.playground").inert), true);
    return tid(page, "engine-down-text").textContent();
  };
  const restore = async (page) => {
    await tid(page, "engine-restore").click();
    await page.waitForSelector("body[data-engine=running]");
    assert.equal(await tid(page, "engine-down").isVisible(), false);
    return tid(page, "status").textContent();
  };

  t.step = "the engine dies while a line runs";
  const dying = await open(base + "/playground");
  await run(dying, "declare queue q");
  await run(dying, "publish q m1");
  await crashOn(dying, "exec", "publish q boom");
  await tid(dying, "console-input").fill("publish q boom");
  await tid(dying, "console-input").press("Enter");
  let text = await stopped(dying);
  assert.match(text, /stopped \(the Go program exited with code 2\)/);
  assert.match(text, /replays the log \(2 lines\); what was running when it stopped \(the line “publish q boom”\) is left out/);
  assert.match(await tid(dying, "status").textContent(), /The engine stopped/);
  assert.match(await tid(dying, "console-output").textContent(), /the engine has stopped/);
  assert.equal(await dying.evaluate(() => playground.run("declare queue z")), false, "nothing runs");
  assert.match(await restore(dying), /replayed 2 lines\. Left out: the line “publish q boom”/);
  await sameLog(dying, ["declare queue q", "publish q m1"]);
  assert.equal(await readyCount(dying, "q"), 1);
  await run(dying, "publish q m2");
  assert.equal(await readyCount(dying, "q"), 2);

  t.step = "the engine dies reading the state a line made";
  await crashOn(dying, "snapshot");
  await tid(dying, "console-input").fill("declare queue doomed");
  await tid(dying, "console-input").press("Enter");
  text = await stopped(dying);
  assert.match(text, /replays 3 lines, leaving out the last one, “declare queue doomed”: the engine stopped on it/);
  assert.match(await restore(dying), /“declare queue doomed” was left out; it waits in the timeline/);
  assert.deepEqual(await log(dying), ["declare queue q", "publish q m1", "publish q m2"]);
  assert.deepEqual(await timeline(dying), ["declare queue q", "publish q m1", "publish q m2", "declare queue doomed"]);
  assert.deepEqual(await queueNames(dying), ["q"]);

  t.step = "the engine dies between calls; a reload opens the kept log";
  await dying.evaluate(() => warren.crash());
  text = await stopped(dying);
  assert.match(text, /replays the log \(3 lines\)\.$/);
  await dying.reload();
  await dying.waitForSelector("body[data-ready=true]");
  await sameLog(dying, ["declare queue q", "publish q m1", "publish q m2"]);
  assert.equal(await readyCount(dying, "q"), 2);

  t.step = "the engine dies during a rewind, and again during the restore";
  await crashOn(dying, "replay");
  await tid(dying, "scrubber").fill("3");
  await tid(dying, "rewind").click();
  text = await stopped(dying);
  assert.match(text, /replays 2 lines, leaving out the last one, “publish q m2”/);
  assert.match(await restore(dying), /replayed 2 lines\. “publish q m2” was left out/);
  assert.equal(await readyCount(dying, "q"), 1);
  await run(dying, "publish q m3");
  await sameLog(dying, ["declare queue q", "publish q m1", "publish q m3"]);
  await dying.close();

  t.step = "100,000 messages in a queue";
  const big = await open(base + "/playground");
  const timed = async (what, fn, maxMs) => {
    const t0 = Date.now();
    await fn();
    const ms = Date.now() - t0;
    assert.ok(ms < maxMs, `${what} took ${ms} ms (limit ${maxMs})`);
  };
  await run(big, "declare queue q");
  await timed("publish q m count=100000", () => run(big, "publish q m count=100000"), 30000);
  const card = big.locator('[data-testid="queue"][data-queue="q"]');
  assert.match(await card.locator(".counts").textContent(), /ready 100000/);
  assert.equal(await card.locator("button.msg").count(), 50);
  const out = await run(big, "show queue q");
  assert.match(out, /^q ready=100000 /m);
  assert.match(out, /\.\.\. 99900 more messages not shown/);
  assert.ok(out.split("\n").length < 110, `show printed ${out.split("\n").length} lines`);
  await card.locator("button.msg").nth(2).click();
  assert.match(await tid(big, "inspector").textContent(), /#3/);
  const sizes = await big.evaluate(() => ({ snapshot: JSON.stringify(warren.snapshot()).length, dom: document.getElementsByTagName("*").length }));
  assert.ok(sizes.snapshot < 100000 && sizes.dom < 5000, `snapshot ${sizes.snapshot} chars, ${sizes.dom} elements`);
  assert.match(await run(big, "get q no-ack"), /remaining=99999/);
  await run(big, "declare queue after");

  t.step = "a delayed exchange's timers are bounded in the snapshot";
  await run(big, "declare exchange later x-delayed-message delayed-type=direct");
  await run(big, "bind after later k");
  await run(big, "publish later k m delay=5s count=1000");
  const snap = await big.evaluate(() => {
    const s = warren.snapshot();
    return { timers: s.timers.length, timerCount: s.timerCount };
  });
  assert.deepEqual(snap, { timers: 100, timerCount: 1000 });
  await tid(big, "step").click();
  await big.waitForFunction(() => document.getElementById("clock").textContent === "5s");
  assert.equal(await readyCount(big, "after"), 1000);

  t.step = "a reload replays the 100,000 from the kept log";
  await timed("reload", async () => {
    await big.reload();
    await big.waitForSelector("body[data-ready=true]");
  }, 30000);
  assert.equal(await readyCount(big, "q"), 99999);
  assert.equal(await readyCount(big, "after"), 1000);
  await run(big, "publish q more");
  assert.equal(await readyCount(big, "q"), 100000);
  assert.equal(await big.evaluate(() => document.body.dataset.engine), "running");
  await big.close();

  t.step = "in Chinese: the first step, and the engine's death";
  const zh = await open(base + "/playground?lang=zh-CN");
  assert.equal(await tid(zh, "first-step").locator("h2").textContent(), "从这里开始");
  assert.match(await tid(zh, "first-lesson").textContent(), /[\u4e00-\u9fff]/);
  await tid(zh, "first-run-1").click();
  await crashOn(zh, "exec", "publish hello x");
  await tid(zh, "console-input").fill("publish hello x");
  await tid(zh, "console-input").press("Enter");
  text = await stopped(zh);
  assert.match(text, /引擎已停止（Go 程序以退出码 2 退出）/);
  assert.match(text, /“publish hello x”这一行/);
  assert.equal(await tid(zh, "engine-restore").textContent(), "恢复会话");
  assert.match(await restore(zh), /引擎已恢复：已重放 1 行/);
  await sameLog(zh, ["declare queue hello"]);
  await t.shot(zh, "session-zh");
  await zh.close();
});
