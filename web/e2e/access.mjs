// Browser end-to-end test of the playground's access promises, run by
// web/playground_test.go (TestAccessInChromium): node access.mjs BASE_URL.
// Once the page has loaded, the network goes away (chromium offline) and
// everything still works, since the engine runs in the page; a learner
// using only the keyboard declares a queue, publishes, steps time and
// inspects a dead-lettered message; every control has an accessible name;
// and a lesson page works offline too. Prints "ok" or exits 1.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

await runTest("access.mjs", { viewport: { width: 1280, height: 800 } }, async (t) => {
  const { base, context } = t;
  const requestsAfterLoad = [];
  let loaded = false;
  function watch(page) {
    t.watch(page);
    page.on("request", (r) => loaded && requestsAfterLoad.push(r.url()));
  }
  const tid = (page, id) => page.getByTestId(id);

  // tabTo presses Tab until the element with data-testid id has the focus.
  async function tabTo(page, id, limit = 200) {
    for (let i = 0; i < limit; i++) {
      if (await page.evaluate((id) => document.activeElement?.dataset?.testid === id, id)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached ${id}`);
  }

  // tabToSelector is tabTo for the first element matching a CSS selector.
  async function tabToSelector(page, sel, limit = 400) {
    for (let i = 0; i < limit; i++) {
      if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, sel)) return;
      await page.keyboard.press("Tab");
    }
    throw new Error(`Tab never reached ${sel}`);
  }

  // unnamed lists the interactive elements without an accessible name: a
  // button needs text or aria-label, a field a <label> or aria-label.
  const unnamed = (page) =>
    page.evaluate(() => {
      const bad = [];
      for (const e of document.querySelectorAll("button, input, select, textarea, a[href], summary")) {
        if (e.type === "hidden" || e.closest("[hidden]")) continue;
        const name = e.getAttribute("aria-label") || e.getAttribute("title") || (e.labels && [...e.labels].map((l) => l.textContent).join(" ")) || (["BUTTON", "A", "SUMMARY"].includes(e.tagName) ? e.textContent : "");
        if (!name || !name.trim()) bad.push(e.outerHTML.slice(0, 120));
      }
      return bad;
    });

  t.step = "load, then go offline";
  const page = await context.newPage();
  watch(page);
  await page.goto(base + "/playground");
  await page.waitForSelector("body[data-ready=true]");
  loaded = true;
  await context.setOffline(true);

  t.step = "every control has an accessible name";
  assert.deepEqual(await unnamed(page), []);

  t.step = "keyboard only: the console";
  await page.locator("body").focus();
  await tabTo(page, "console-input");
  for (const line of ["declare exchange dlx fanout", "declare queue dead", "bind dead dlx", "declare queue work ttl=2s dlx=dlx"]) {
    await page.keyboard.type(line);
    await page.keyboard.press("Enter");
    assert.doesNotMatch(await tid(page, "console-output").textContent(), /error/, line);
  }
  t.step = "keyboard only: the publish form";
  await tabTo(page, "pub-key");
  await page.keyboard.type("work");
  await page.keyboard.press("Tab");
  await page.keyboard.type("hello");
  await tabTo(page, "pub-submit");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => warren.log().at(-1)), "publish work hello");

  t.step = "keyboard only: step to the next timer";
  await tabTo(page, "step");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => document.querySelector('[data-testid="clock"]').textContent === "2s");

  t.step = "keyboard only: open the dead-lettered message";
  await tabToSelector(page, '[data-testid="queue"][data-queue="dead"] [data-testid="msg"]');
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => /expired/.test(document.querySelector('[data-testid="inspector"]').textContent));
  const focusVisible = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle !== "none");
  assert.ok(focusVisible, "the focused control shows a focus ring");
  await t.shot(page, "access-keyboard");

  t.step = "offline: a lesson page already loaded keeps working; nothing was fetched";
  assert.deepEqual(requestsAfterLoad.filter((u) => u.startsWith("http")), []);
  await context.setOffline(false);
  loaded = false;
  const lesson = await context.newPage();
  watch(lesson);
  await lesson.goto(base + "/lessons/ttl-and-dead-lettering");
  await lesson.waitForSelector("body[data-lesson-ready=true]");
  loaded = true;
  await context.setOffline(true);
  assert.deepEqual(await unnamed(lesson), []);
  const tries = lesson.locator("article.lesson-step:not([hidden]) button.try");
  for (let i = 0; i < (await tries.count()); i++) {
    await tries.nth(i).focus();
    await lesson.keyboard.press("Enter");
  }
  await tid(lesson, "lesson-check").focus();
  await lesson.keyboard.press("Enter");
  await lesson.waitForFunction(() => document.querySelector('[data-testid="lesson-result"]').classList.contains("pass"));
  assert.deepEqual(requestsAfterLoad.filter((u) => u.startsWith("http")), []);
  await context.setOffline(false);
});
