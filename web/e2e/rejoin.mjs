// A session page whose socket drops joins again by itself, every time,
// however long the server takes to come back (issue 29): the page joins
// at the session's link, then, each time the server goes away, waits
// until it has lost its socket and is joined again. It prints "joined N"
// when it is joined for the N-th time after the first, for the test that
// runs it (wasm/worker's TestEdgePageRejoins), which then restarts the
// server. Usage: node rejoin.mjs BASE_URL SESSION_LINK DROPS
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

const link = process.argv[3];
const drops = Number(process.argv[4] ?? 2);
const tid = (page, id) => page.locator(`[data-testid="${id}"]`);

// A minute for each wait: under make test the first load from a fresh
// wrangler dev took over 30 s on 2 cores.
await runTest("rejoin.mjs", { timeout: 60000 }, async (t) => {
  t.step = "join the session";
  const page = await t.open(`${t.base}${link}?lang=en`);
  await tid(page, "live-name").fill("Ada");
  await tid(page, "live-join-button").click();
  await page.waitForSelector("body[data-live=joined]");
  for (let i = 1; i <= drops; i++) {
    console.log(`joined ${i - 1}`);
    t.step = `drop ${i}: the socket closes`;
    await page.waitForSelector("body[data-live=closed]", { timeout: 60000 });
    t.step = `drop ${i}: joined again by itself`;
    await page.waitForSelector("body[data-live=joined]", { timeout: 120000 });
  }
  assert.match(await tid(page, "status").textContent(), /Joined as Ada \(editor\)/);
  // While the server was down, the browser said each try that could not
  // connect in its console; nothing else may be there.
  const kept = t.problems.filter((p) => !/^console error: WebSocket connection to '.*' failed/.test(p));
  t.problems.splice(0, t.problems.length, ...kept);
  console.log(`joined ${drops}`);
});
