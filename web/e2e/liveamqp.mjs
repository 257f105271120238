// A real AMQP program in a shared session, in chromium (issue 11). Share
// live carries the page's broker into the session it starts. Then an
// editor's page shows the session's own AMQP login (a read-only page does
// not); a Go program (amqp091-go, run by web's TestLiveAMQPInChromium on
// request) connects with the URL the page shows, and both pages list it,
// draw its queues and animate its publish; on the manual clock its TTL
// waits until the editor steps, then the message is dead-lettered in
// every page, and the program consumes it with its x-death. A page whose
// socket drops joins again by itself, and a failed check run through the
// session is said in the page's language.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

const tid = (page, id) => page.locator(`[data-testid="${id}"]`);
const queue = (page, name) => page.locator(`[data-testid="queue"][data-queue="${name}"]`);

await runTest("liveamqp.mjs", { timeout: 15000 }, async (t) => {
  t.step = "Share live starts the session where the page is";
  const home = await t.open(`${t.base}/playground?lang=en`);
  for (const line of ["declare queue prepared", "publish prepared ready-made"]) {
    await tid(home, "console-input").fill(line);
    await tid(home, "console-input").press("Enter");
  }
  await queue(home, "prepared").filter({ hasText: "ready-made" }).waitFor();
  await tid(home, "live-share").click();
  await tid(home, "live-links").waitFor();
  const shared = await t.open(await tid(home, "live-edit-url").inputValue());
  await tid(shared, "live-name").fill("Teacher");
  await tid(shared, "live-join-button").click();
  await shared.waitForSelector("body[data-live=joined]");
  await queue(shared, "prepared").filter({ hasText: "ready-made" }).waitFor();
  await Promise.all([home.close(), shared.close()]);

  t.step = "a manual session: an editor and a read-only page join";
  const res = await fetch(`${t.base}/api/sessions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: "class", clock: "manual" }) });
  assert.equal(res.status, 201);
  const created = await res.json();
  const join = async (url, name) => {
    const page = await t.open(url);
    await tid(page, "live-name").fill(name);
    await tid(page, "live-join-button").click();
    await page.waitForSelector("body[data-live=joined]");
    return page;
  };
  const ada = await join(`${t.base}${created.link}?lang=en`, "Ada");
  const bo = await join(`${t.base}${created.readOnlyLink}?lang=zh-CN`, "Bo");

  t.step = "the editor's page shows the session's AMQP login; the read-only page does not";
  const { user, password, port } = created.amqp;
  await tid(ada, "live-amqp").waitFor();
  const url = await tid(ada, "live-amqp-url").inputValue();
  assert.equal(url, `amqp://${user}:${password}@127.0.0.1:${port}/`);
  assert.match(await tid(ada, "live-amqp-login").textContent(), new RegExp(`User ${user}, password ${password}, virtual host /`));
  assert.equal(await tid(ada, "live-amqp-ws").isHidden(), true); // this server takes no AMQP over WebSocket
  // Over TCP any AMQP client connects: the note names them all, and no
  // WebSocket program is offered.
  assert.match(await tid(ada, "live-amqp-note").textContent(), /amqp091-go, pika/);
  assert.equal(await tid(ada, "live-amqp-note-ws").isHidden(), true);
  assert.equal(await tid(ada, "live-amqp-snippet").isHidden(), true);
  assert.equal(await tid(bo, "live-amqp").isHidden(), true);

  t.step = "a Go program connects with that URL, declares and publishes";
  const pub = await fetch(`${t.base}/test/amqp/publish`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url }) });
  assert.equal(pub.status, 200, await pub.text());
  for (const page of [ada, bo]) {
    await page.locator('[data-testid="live-connection"]', { hasText: "go worker" }).waitFor();
    await queue(page, "orders").filter({ hasText: "order 42" }).waitFor();
    await queue(page, "orders.dead").waitFor();
  }
  assert.match(await tid(ada, "live-connection").textContent(), /AMQP client go worker from 127\.0\.0\.1:\d+ \(user session-/);
  assert.match(await tid(bo, "live-connection").textContent(), /AMQP 客户端 go worker/);
  const published = ada.locator('[data-testid="entry"]', { hasText: "The AMQP client amqp-1 did it." }).filter({ has: ada.locator('[data-testid="event"][data-kind="published"]') });
  const kinds = await published.last().locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
  assert.ok(kinds.includes("published") && kinds.includes("enqueued"), `the publish's events: ${kinds}`);

  t.step = "the TTL waits for the clock; Ada steps and the message is dead-lettered in both pages";
  assert.equal(await queue(ada, "orders.dead").filter({ hasText: "order 42" }).count(), 0);
  await tid(ada, "step").click();
  for (const page of [ada, bo]) {
    await queue(page, "orders.dead").filter({ hasText: "order 42" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="clock"]').textContent === "1m0s");
  }
  const stepKinds = await tid(bo, "entry").last().locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
  assert.ok(stepKinds.includes("expired"), `the step's events: ${stepKinds}`);

  t.step = "the program consumes the dead letter and reads its x-death";
  const got = await fetch(`${t.base}/test/amqp/consume`, { method: "POST" });
  assert.equal(got.status, 200);
  assert.deepEqual(await got.json(), { body: "order 42", queue: "orders", reason: "expired", count: 1 });
  for (const page of [ada, bo]) {
    await page.waitForFunction(() => !/order 42/.test(document.querySelector('[data-testid="queue"][data-queue="orders.dead"]').textContent));
  }

  t.step = "a page whose socket the server drops joins again by itself, and is in step";
  const cy = await t.open(`${t.base}${created.link}?lang=zh-CN`);
  let first = null;
  await cy.routeWebSocket(/\/ws\/sessions\//, (ws) => {
    const server = ws.connectToServer();
    first ??= { ws, server };
  });
  await tid(cy, "live-name").fill("Cy");
  await tid(cy, "live-join-button").click();
  await cy.waitForSelector("body[data-live=joined]");
  // The connection breaks: the server's side goes, and the page is told
  // its socket closed abnormally.
  await first.server.close({ code: 1000, reason: "" });
  await first.ws.close({ code: 1011, reason: "dropped for the test" });
  await cy.waitForFunction(() => /正在重新加入/.test(document.querySelector('[data-testid="live-status"]').textContent));
  await cy.waitForSelector("body[data-live=joined]");
  assert.match(await tid(cy, "live-status").textContent(), /已作为 Cy 加入（编辑者）/);
  await ada.waitForFunction(() => document.querySelectorAll('[data-testid="live-participant"]').length === 3, null, { timeout: 3000 }).catch(async () => {
    throw new Error(`ada lists: ${await tid(ada, "live-presence").textContent()}`);
  });
  const [a, b, c] = await Promise.all([ada, bo, cy].map((p) => p.evaluate(() => warren.liveHash())));
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);

  t.step = "a failed expect run through the session is said whole in the page's language";
  await tid(cy, "console-input").fill("expect queue orders.dead ready=2");
  await tid(cy, "console-input").press("Enter");
  await cy.waitForFunction(() => /检查未通过/.test(document.querySelector('[data-testid="console-output"]').textContent));
  assert.match(await tid(cy, "console-output").textContent(), /检查未通过：队列 orders\.dead：ready=0（应为 2）/);
});
