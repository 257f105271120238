// Browser end-to-end test of a lesson page, run by web/playground_test.go
// (TestLessonInChromium): node lesson.mjs BASE_URL. A learner opens the
// lessons index, follows "Messages that expire" step by step with its Run
// buttons and Check, fails a check first, opens a step directly, and shares
// a link that reopens the same step and state; a check judges the broker's
// state, not the last line run. (Every lesson, in both languages, is done
// step by step by curriculum.mjs.) Screenshots go to
// ./artifacts (lesson-*.png). Prints "ok" and exits 0, or exits 1.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

await runTest("lesson.mjs", {}, async (t) => {
  const { base, context, watch } = t;
  const shot = (page, name) => t.shot(page, `lesson-${name}`);
  const tid = (page, id) => page.getByTestId(id);
  const visibleStep = (page) => page.locator("article.lesson-step:not([hidden])");
  const state = (page) => page.evaluate(() => JSON.stringify(globalThis.warren.snapshot()));

  async function runTries(page) {
    const tries = visibleStep(page).locator("button.try");
    const n = await tries.count();
    for (let i = 0; i < n; i++) await tries.nth(i).click();
  }

  async function checkPasses(page) {
    await tid(page, "lesson-check").click();
    const res = tid(page, "lesson-result");
    await page.waitForFunction(() => document.querySelector('[data-testid="lesson-result"]').classList.contains("pass"));
    assert.match(await res.textContent(), /^Done/);
    assert.equal(await res.locator("li.fail").count(), 0);
  }

  t.step = "index";
  const page = await context.newPage();
  watch(page);
  await page.goto(base + "/");
  await tid(page, "nav-lessons").click();
  await page.waitForSelector('[data-testid="lessons"]');
  await tid(page, "lesson-link-ttl-and-dead-lettering").click();
  await page.waitForSelector("body[data-lesson-ready=true]");
  assert.match(page.url(), /\/lessons\/ttl-and-dead-lettering\?step=1$/);
  assert.match(await visibleStep(page).locator("h3").textContent(), /^Step 1 of 5: A queue with a message TTL/);

  t.step = "a check that fails says which line and why, and changes nothing";
  await tid(page, "lesson-check").click();
  await page.waitForFunction(() => document.querySelector('[data-testid="lesson-result"]').classList.contains("fail"));
  assert.match(await tid(page, "lesson-result").textContent(), /Not yet:.*✗ expect queue orders ready=1/s);
  assert.deepEqual(await page.evaluate(() => warren.log()), [], "a check is not logged");

  t.step = "step 1: Run buttons, then Check";
  await runTries(page);
  assert.deepEqual(await page.evaluate(() => warren.log()), ["declare queue orders ttl=10s", 'publish orders "order 1"']);
  await checkPasses(page);
  await shot(page, "1-checked");
  await tid(page, "lesson-next").click();
  assert.match(page.url(), /\?step=2$/);

  t.step = "step 2: the learner's own way (the Step button) also passes";
  await tid(page, "step").click();
  await checkPasses(page);
  await tid(page, "lesson-next").click();

  t.step = "step 3: dead-lettering with a policy; x-death in the inspector";
  await runTries(page);
  await checkPasses(page);
  await page.locator('[data-testid="queue"][data-queue="orders.dead"] [data-testid="msg"]').first().click();
  assert.match(await tid(page, "inspector").textContent(), /expired/);
  await shot(page, "3-dead-lettered");
  await tid(page, "lesson-next").click();

  t.step = "step 4: the head-of-line caveat is visible";
  await runTries(page);
  await checkPasses(page);
  const notes = page.locator('[data-testid="queue"][data-queue="notes"]');
  assert.equal(await notes.locator(".msg.expired").count(), 1, "the fast message shows expired but still queued");
  await shot(page, "4-caveat");

  t.step = "share keeps the step and the session";
  await tid(page, "share").click();
  const link = await tid(page, "share-url").inputValue();
  assert.match(link, /\/lessons\/ttl-and-dead-lettering\?lang=en&step=4#s=/);
  const before = await state(page);

  await tid(page, "lesson-next").click();
  t.step = "step 5: clearing the head dead-letters the expired message";
  await runTries(page);
  await checkPasses(page);
  assert.match(await tid(page, "lesson-result").textContent(), /last step/);
  assert.equal(await page.locator("button.step-link.done").count(), 5);

  t.step = "a step opened from the list rebuilds its starting state";
  await tid(page, "lesson-goto-3").click();
  assert.match(await visibleStep(page).locator("h3").textContent(), /^Step 3 of 5/);
  const log3 = await page.evaluate(() => warren.log());
  assert.deepEqual(log3, ["declare queue orders ttl=10s", 'publish orders "order 1"', "advance 10s"]);

  t.step = "start this step over undoes what the learner did in it";
  await tid(page, "console-input").fill("declare queue scratch");
  await tid(page, "console-input").press("Enter");
  await tid(page, "lesson-restart").click();
  assert.deepEqual(await page.evaluate(() => warren.log()), log3);

  t.step = "next without a check rebuilds the next step as if this one were done as written";
  await tid(page, "lesson-next").click();
  assert.match(await visibleStep(page).locator("h3").textContent(), /^Step 4 of 5/);
  assert.match(await tid(page, "lesson-result").textContent(), /Step 3 is not done in the broker as it is/);
  const log4 = await page.evaluate(() => warren.log());
  assert.equal(log4.length, 9, log4.join(" | "));
  assert.equal(log4.at(-1), "advance 10s");
  await runTries(page);
  await checkPasses(page);

  t.step = "the share link, in a fresh page";
  const shared = await context.newPage();
  watch(shared);
  await shared.goto(link);
  await shared.waitForSelector("body[data-lesson-ready=true]");
  assert.match(await visibleStep(shared).locator("h3").textContent(), /^Step 4 of 5/);
  assert.equal(await state(shared), before);
  await checkPasses(shared);

  t.step = "a lesson that does not exist is a 404";
  const res = await shared.goto(base + "/lessons/nope");
  assert.equal(res.status(), 404);

  t.step = "phone layout";
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
  await shot(page, "phone");

  // Every lesson done step by step, in both languages: curriculum.mjs.
  const index = await context.newPage();
  watch(index);

  t.step = "a check judges the state: harmless lines and a repeated line in between do not undo a step";
  await index.goto(`${base}/lessons/length-limits-and-overflow?step=4`);
  await index.waitForSelector("body[data-lesson-ready=true]");
  await runTries(index);
  for (const line of ["show queues", "declare exchange amq.direct passive"]) {
    await tid(index, "console-input").fill(line);
    await tid(index, "console-input").press("Enter");
  }
  await visibleStep(index).locator("button.try").first().click();
  await checkPasses(index);
  t.step = "a failed check says which line and why";
  await tid(index, "console-input").fill("purge uploads");
  await tid(index, "console-input").press("Enter");
  await tid(index, "lesson-check").click();
  await index.waitForFunction(() => document.querySelector('[data-testid="lesson-result"]').classList.contains("fail"));
  assert.match(await tid(index, "lesson-result").textContent(), /^Not yet:.*✗ expect queue uploads ready=2/s);
  await index.close();

  // The 404 above is also logged by the browser, as a failed resource load.
  t.problems = t.problems.filter((p) => !p.includes("status of 404"));
});
