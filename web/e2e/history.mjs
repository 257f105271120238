// A shared session's history in chromium (issue 11): a page in a session
// runs lines and steps while the server's clock API moves time with no
// other page there; its Export history link downloads the session as a
// script, and says the page's state hash, which is the script's last; an
// offline playground page (in Chinese) opens the file and replays it to
// the same hash, each entry's comment its note in the event log; a
// damaged copy says which line failed. Run by web's TestHistoryInChromium
// against a server that runs sessions.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runTest } from "./browser.mjs";

const tid = (page, id) => page.locator(`[data-testid="${id}"]`);

await runTest("history.mjs", { timeout: 15000 }, async (t) => {
  t.step = "a session: Ada's lines and steps, and the server's clock";
  const res = await fetch(`${t.base}/api/sessions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"name":"e2e class"}' });
  assert.equal(res.status, 201);
  const session = await res.json();
  const ada = await t.open(`${t.base}${session.link}?lang=en`);
  await tid(ada, "live-name").fill("Ada");
  await tid(ada, "live-join-button").click();
  await ada.waitForSelector("body[data-live=joined]");
  const atSeq = (seq) => ada.waitForFunction((s) => Number(document.body.dataset.liveSeq) >= s, seq);
  const lines = ["declare queue jobs ttl=5s dlx= dlrk=dead", "declare queue dead", "consume dead", "publish jobs hello", "publish jobs world expiration=2s"];
  for (const [i, line] of lines.entries()) {
    await tid(ada, "console-input").fill(line);
    await tid(ada, "console-input").press("Enter");
    await atSeq(i + 1);
  }
  await tid(ada, "step").click();
  await atSeq(lines.length + 1);
  const clock = await fetch(`${t.base}/api/sessions/${session.id}/clock`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"advance":"1m"}' });
  assert.equal(clock.status, 200);
  await atSeq(lines.length + 2);

  t.step = "Export history: the link and this page's hash";
  assert.equal(await tid(ada, "live-history-row").isVisible(), true);
  assert.equal(await tid(ada, "history-open").isHidden(), true);
  const href = await tid(ada, "live-history").getAttribute("href");
  assert.equal(href, `/api/sessions/${session.id}/history?lang=en`);
  await tid(ada, "live-history").click();
  await tid(ada, "live-hash").waitFor();
  const pageHash = await tid(ada, "live-hash").getAttribute("data-hash");
  assert.equal(pageHash, (await ada.evaluate(() => warren.liveHash())).hash);
  assert.match(await tid(ada, "live-hash").textContent(), new RegExp(`after entry ${lines.length + 2}: state hash ${pageHash}`));
  await t.shot(ada, "history-export");

  t.step = "the script the link downloads ends with the session's hash, which is the page's";
  const dl = await fetch(`${t.base}/api/sessions/${session.readOnlyId}/history?lang=zh-CN`);
  assert.equal(dl.status, 200);
  assert.equal(dl.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.match(dl.headers.get("content-disposition"), /^attachment; filename="warren-history-7\.txt"$/);
  const script = await dl.text();
  assert.equal(script.trimEnd().split("\n").at(-1), `history hash ${lines.length + 2} ${pageHash}`);
  assert.match(script, /^# Warren：共享会话 "e2e class" 的历史$/m);
  assert.match(script, /^# 4 @0s Ada：publish jobs hello$/m);
  assert.match(script, /^# 7 @1m5s 服务器：advance 1m$/m);
  const dir = await mkdtemp(path.join(os.tmpdir(), "warren-history-"));
  const file = path.join(dir, "warren-history-7.txt");
  await writeFile(file, script);

  t.step = "an offline playground opens the file and reaches the same hash";
  const off = await t.open(`${t.base}/playground?lang=zh-CN`);
  await tid(off, "history-open").locator("summary").click();
  await tid(off, "history-file").setInputFiles(file);
  await off.waitForFunction(() => document.querySelector('[data-testid="history-status"]').dataset.hash);
  assert.equal(await tid(off, "history-status").getAttribute("data-hash"), pageHash);
  assert.equal((await off.evaluate(() => warren.hash())).hash, pageHash);
  assert.match(await tid(off, "history-status").textContent(), new RegExp(`已重放会话的历史，直到第 7 条日志：状态哈希 ${pageHash}，与会话的相同。`));
  assert.equal(await tid(off, "clock").textContent(), "1m5s");
  await off.locator('[data-testid="queue"][data-queue="dead"]').waitFor();
  const notes = await tid(off, "entry").evaluateAll((es) => es.map((e) => e.querySelector(".hint")?.textContent ?? ""));
  assert.ok(
    notes.some((n) => n === "4 @0s Ada：publish jobs hello"),
    `the event log's notes: ${notes.join(" | ")}`,
  );
  const logText = await tid(off, "log").textContent();
  assert.match(logText, /1\. history start 0 \S+…/);
  assert.equal(await tid(off, "log-length").textContent(), "9");
  await t.shot(off, "history-replayed-zh");

  t.step = "rewinding moves through the session";
  await tid(off, "scrubber").fill("2");
  await tid(off, "rewind").click();
  await off.waitForFunction(() => document.querySelector('[data-testid="scrub-value"]').textContent === "2");
  assert.equal((await off.evaluate(() => warren.hash())).history, 1);
  assert.equal(await off.locator('[data-testid="queue"][data-queue="dead"]').count(), 0);

  t.step = "a damaged copy says which line failed";
  const damaged = script.replace(/^history entry 3 .*\n/m, "");
  await tid(off, "history-text").fill(damaged);
  await tid(off, "history-button").click();
  await off.waitForFunction(() => document.querySelector('[data-testid="history-status"]').classList.contains("error"));
  assert.match(await tid(off, "history-status").textContent(), /^历史的第 \d+ 行失败：history entry 4 没有紧接在第 2 条日志之后/);
  await tid(off, "history-text").fill("declare queue q");
  await tid(off, "history-button").click();
  await off.waitForFunction(() => /不是会话历史/.test(document.querySelector('[data-testid="history-status"]').textContent));
  await rm(dir, { recursive: true, force: true });
});
