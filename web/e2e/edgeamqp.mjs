// The "Connect a program" panel of a shared session at the edge (issue
// 29), in chromium. The edge takes AMQP over WebSocket only, so an
// editor's page offers that URL alone, names only clients that speak it,
// and shows a whole program; that program, copied from the page as it
// stands and run with Node.js, connects with @cloudamqp/amqp-client and
// publishes, and the page draws its queue and message. Run by
// wasm/worker's TestEdge against wrangler dev.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runTest } from "./browser.mjs";

const tid = (page, id) => page.locator(`[data-testid="${id}"]`);
// The program runs beside server/e2e/node's pinned @cloudamqp/amqp-client.
const nodeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "server", "e2e", "node");

await runTest("edgeamqp.mjs", { timeout: 15000 }, async (t) => {
  t.step = "an editor joins a new session";
  const home = await t.open(`${t.base}/playground?lang=en`);
  await tid(home, "live-share").click();
  await tid(home, "live-links").waitFor();
  const page = await t.open(await tid(home, "live-edit-url").inputValue());
  await home.close();
  await tid(page, "live-name").fill("Ada");
  await tid(page, "live-join-button").click();
  await page.waitForSelector("body[data-live=joined]");
  await tid(page, "live-amqp").waitFor();

  t.step = "the panel offers AMQP over WebSocket only";
  assert.equal(await tid(page, "live-amqp-url").isHidden(), true);
  assert.match(await tid(page, "live-amqp-ws").inputValue(), /^ws:\/\/127\.0\.0\.1:\d+\/ws\/amqp\/[A-Za-z0-9_-]+$/);
  assert.equal(await tid(page, "live-amqp-note").isHidden(), true);
  const note = await tid(page, "live-amqp-note-ws").textContent();
  assert.match(note, /@cloudamqp\/amqp-client/);
  assert.doesNotMatch(note, /pika|amqp091-go|amqplib/);

  t.step = "the program shown, run as it stands, publishes into the session";
  const program = await tid(page, "live-amqp-snippet").textContent();
  const file = path.join(nodeDir, `.edge-snippet-${process.pid}.mjs`);
  await writeFile(file, program);
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["--experimental-websocket", file], { cwd: nodeDir, timeout: 30000 });
    assert.match(stdout, /published/);
  } finally {
    await rm(file, { force: true });
  }
  await page.locator('[data-testid="queue"][data-queue="from-my-program"]').filter({ hasText: "hello from my program" }).waitFor();
});
