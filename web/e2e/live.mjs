// Shared sessions in chromium (issue 11): Share live makes a session and
// its two links; two pages join by the editor link, one declares a queue
// and publishes, the other sees the queue, the message and the event;
// stepping in one moves time in both; a page joined by the read-only link
// cannot type or step and says why; a page that joins late draws the same
// state, and every page's engine has the session's state hash; after the
// session ends, a page at its link says why it cannot join. Run by
// web's TestLiveInChromium against a server that runs sessions.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

const tid = (page, id) => page.locator(`[data-testid="${id}"]`);

await runTest("live.mjs", { timeout: 15000 }, async (t) => {
  t.step = "Share live makes the session's links";
  const home = await t.open(`${t.base}/playground?lang=en`);
  await tid(home, "live-share").click();
  await tid(home, "live-links").waitFor();
  const edit = await tid(home, "live-edit-url").inputValue();
  const read = await tid(home, "live-read-url").inputValue();
  assert.match(edit, /\/s\/[A-Za-z0-9_-]{20,}\?lang=en$/);
  assert.match(read, /\/s\/[A-Za-z0-9_-]{20,}\?lang=en$/);
  assert.notEqual(edit, read);
  await home.close();

  const join = async (url, name) => {
    const page = await t.open(url);
    await tid(page, "live-name").fill(name);
    await tid(page, "live-join-button").click();
    await page.waitForSelector("body[data-live=joined]");
    return page;
  };
  const typeLine = async (page, line) => {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
  };
  const seqOf = (page) => page.evaluate(() => Number(document.body.dataset.liveSeq));
  const atSeq = (page, seq) => page.waitForFunction((s) => Number(document.body.dataset.liveSeq) >= s, seq);
  const hashOf = (page) => page.evaluate(() => warren.liveHash());

  t.step = "two editors join";
  const ada = await join(edit, "Ada");
  const bo = await join(edit, "Bo");
  await ada.waitForFunction(() => document.querySelectorAll('[data-testid="live-participant"]').length === 2);
  assert.equal(await tid(bo, "live-participant").count(), 2);
  assert.equal(await ada.locator('[data-testid="live-participant"][data-you="true"] .name').textContent(), "Ada");
  assert.equal(await tid(ada, "live-readonly").isHidden(), true);
  assert.equal(await tid(ada, "live-join").isHidden(), true);
  assert.equal(await tid(ada, "import-button").isDisabled(), true);
  assert.equal(await tid(ada, "console-input").isDisabled(), false);
  assert.match(await tid(ada, "status").textContent(), /Joined as Ada \(editor\)/);

  t.step = "a line the script language refuses comes back to its sender only";
  await typeLine(ada, "frobnicate");
  await ada.waitForFunction(() => /frobnicate/.test(document.querySelector('[data-testid="console-output"]').textContent));
  assert.match(await tid(ada, "console-output").textContent(), /error: unknown command "frobnicate"/);
  assert.equal(await seqOf(bo), 0);

  t.step = "Ada declares and publishes; Bo sees the queue, the message and the event";
  await typeLine(ada, "declare queue jobs ttl=5s");
  await atSeq(bo, 1);
  await typeLine(ada, "publish jobs hello");
  await atSeq(bo, 2);
  await bo.locator('[data-testid="queue"][data-queue="jobs"]').waitFor();
  assert.match(await bo.locator('[data-testid="queue"][data-queue="jobs"]').textContent(), /hello/);
  const boEntry = tid(bo, "entry").last();
  assert.match(await boEntry.textContent(), /publish jobs hello/);
  assert.match(await boEntry.textContent(), /Ada ran it in the shared session/);
  const kinds = await boEntry.locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
  assert.deepEqual(kinds, ["published", "enqueued"]);
  // Ada's own result comes on her socket, not necessarily before Bo's
  // entry: wait for it.
  await ada.waitForFunction(() => /> publish jobs hello/.test(document.querySelector('[data-testid="console-output"]').textContent));

  t.step = "Bo steps: the TTL fires in both pages at 5s";
  await tid(bo, "step").click();
  await atSeq(ada, 3);
  await atSeq(bo, 3);
  for (const page of [ada, bo]) {
    assert.equal(await tid(page, "clock").textContent(), "5s");
    const stepKinds = await tid(page, "entry").last().locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
    assert.ok(stepKinds.includes("expired"), `step events: ${stepKinds}`);
  }
  assert.match(await tid(ada, "entry").last().textContent(), /Bo ran it/);

  t.step = "Ada pauses the session's clock: Bo's page follows, and Bo's step is refused";
  await typeLine(ada, "publish jobs early");
  await atSeq(bo, 4);
  await ada.locator('[data-testid="live-clock"]').selectOption("paused");
  await bo.waitForFunction(() => document.body.dataset.liveClock === "paused");
  assert.equal(await tid(bo, "live-clock").inputValue(), "paused");
  await tid(bo, "step").click();
  await tid(bo, "live-error").waitFor();
  assert.match(await tid(bo, "live-error").textContent(), /the clock is paused: only a manual clock is stepped/);
  await ada.locator('[data-testid="live-clock"]').selectOption("manual");
  await bo.waitForFunction(() => document.body.dataset.liveClock === "manual");
  const clockSeq = await seqOf(ada);

  t.step = "a read-only page cannot type or step";
  const cy = await join(read, "Cy");
  await tid(cy, "live-readonly").waitFor();
  assert.equal(await tid(cy, "live-clock").isDisabled(), true);
  assert.equal(await cy.evaluate(() => document.body.dataset.liveRole), "read-only");
  assert.equal(await tid(cy, "console-input").isDisabled(), true);
  assert.equal(await tid(cy, "step").isDisabled(), true);
  assert.equal(await tid(cy, "play").isDisabled(), true);
  await ada.waitForFunction(() => [...document.querySelectorAll('[data-testid="live-participant"]')].some((e) => e.dataset.role === "read-only"));
  // Past the disabled controls too (the hub refuses it as well: its own
  // tests), the page says why.
  const refused = await cy.evaluate(() => {
    try {
      playground.run("declare queue sneaky");
      return "";
    } catch (e) {
      return e.message;
    }
  });
  assert.match(refused, /Cy joined read-only/);
  assert.equal(await ada.locator('[data-testid="queue"][data-queue="sneaky"]').count(), 0);

  t.step = "an editor publishes again; a page that joins late draws the same state";
  await typeLine(bo, "publish jobs again");
  await atSeq(ada, clockSeq + 1);
  const dee = await join(`${edit.replace("lang=en", "lang=zh-CN")}`, "Dee");
  assert.equal(await seqOf(dee), clockSeq + 1);
  await tid(dee, "live-participant").nth(3).waitFor();
  for (const page of [bo, cy, dee]) await atSeq(page, clockSeq + 1);
  const hashes = await Promise.all([ada, bo, cy, dee].map(hashOf));
  for (const h of hashes) assert.deepEqual(h, hashes[0]);
  const cards = (page) => page.locator('[data-testid="queue"]').evaluateAll((es) => es.map((e) => e.dataset.queue).sort());
  assert.deepEqual(await cards(dee), await cards(ada));
  assert.match(await dee.locator('[data-testid="queue"][data-queue="jobs"]').textContent(), /again/);
  assert.equal(await tid(dee, "clock").textContent(), "5s");
  assert.match(await tid(dee, "live-status").textContent(), /Dee/);
  assert.match(await tid(dee, "live-status").textContent(), /编辑者/);
  await dee.locator('[data-testid="live-clock"]').selectOption("paused");
  await dee.waitForFunction(() => document.body.dataset.liveClock === "paused");
  await tid(dee, "step").click();
  await tid(dee, "live-error").waitFor();
  assert.match(await tid(dee, "live-error").textContent(), /时钟处于 paused 模式/);
  await t.shot(ada, "live-ada");

  t.step = "the session ends: every page says so, and locks";
  const id = new URL(edit).pathname.split("/").at(-1);
  // A page opened on the link before the end, whose reader joins after.
  const late = await t.open(edit.replace("lang=en", "lang=zh-CN"));
  const del = await fetch(`${t.base}/api/sessions/${id}`, { method: "DELETE" });
  assert.equal(del.status, 204);
  await ada.waitForFunction(() => document.body.dataset.live === "closed");
  assert.match(await tid(ada, "live-status").textContent(), /The session is over: someone closed it\./);
  assert.equal(await tid(ada, "console-input").isDisabled(), true);
  assert.equal(await tid(ada, "step").isDisabled(), true);
  assert.equal(await tid(ada, "live-participant").count(), 0);
  await dee.waitForFunction(() => document.body.dataset.live === "closed");
  assert.match(await tid(dee, "live-status").textContent(), /会话已结束：有人关闭了它。/);
  await t.shot(cy, "live-readonly");
  await t.shot(dee, "live-zh");

  t.step = "the ended session's link: its API answers 404, a page opened before the end says why it cannot join, and the link itself is now 404 with a page that says so, in its reader's language";
  const history = await fetch(`${t.base}/api/sessions/${id}/history`);
  assert.equal(history.status, 404);
  assert.equal((await history.json()).error, "not_found");
  const gone = await t.context.newPage();
  const res = await gone.goto(edit.replace("lang=en", "lang=zh-CN"));
  assert.equal(res.status(), 404);
  assert.match(await tid(gone, "session-gone").textContent(), /没有这个会话/);
  await t.shot(gone, "live-gone-zh");
  await gone.close();
  await tid(late, "live-name").fill("Eve");
  await tid(late, "live-join-button").click();
  await late.waitForFunction(() => document.body.dataset.live === "closed");
  assert.match(await tid(late, "live-status").textContent(), /已与会话断开（没有这个标识的会话（它可能已经结束））/);
  assert.equal(await tid(late, "live-join-button").isDisabled(), false);
});
