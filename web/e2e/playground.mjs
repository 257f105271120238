// Browser end-to-end test of the playground page, run by
// web/playground_test.go: node playground.mjs BASE_URL. It drives Debian's
// chromium (CHROMIUM, default /usr/bin/chromium) through playwright-core
// with a fresh profile, does what a learner would through the page's forms
// and buttons, and checks what the page shows. Screenshots go to
// ./artifacts. Prints "ok" and exits 0, or exits 1 with the failure.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

await runTest("playground.mjs", {}, async (t) => {
  const { base, context, watch } = t;
  const shot = t.shot;
  const tid = (page, id) => page.getByTestId(id);
  const queue = (page, name) => page.locator(`[data-testid="queue"][data-queue="${name}"]`);
  const snapshot = (page) => page.evaluate(() => JSON.stringify(globalThis.warren.snapshot()));

  const open = (url) => t.open(url);

  async function consoleRun(page, line) {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
    const out = await tid(page, "console-output").textContent();
    assert.ok(!out.includes("error:"), `${line}: ${out}`);
  }

  // The home page links to the playground.
  t.step = "home";
  const home = await context.newPage();
  watch(home);
  await home.goto(base + "/");
  assert.match(await tid(home, "home").textContent(), /RabbitMQ/);
  await tid(home, "home-playground").click();
  await home.waitForSelector("body[data-ready=true]");
  await home.close();

  t.step = "forms: dead-letter exchange, queues, binding";
  const page = await open(base + "/playground");
  await page.locator("summary", { hasText: "Declare exchange" }).click();
  await tid(page, "dx-name").fill("dlx");
  await tid(page, "dx-type").selectOption("fanout");
  await tid(page, "dx-submit").click();
  await tid(page, "dq-name").fill("dead");
  await tid(page, "dq-submit").click();
  await page.locator("summary", { hasText: "Bind" }).click();
  await tid(page, "bind-dest").fill("dead");
  await tid(page, "bind-exchange").fill("dlx");
  await tid(page, "bind-submit").click();
  await tid(page, "dq-name").fill("work");
  await tid(page, "dq-ttl").fill("1s");
  await tid(page, "dq-dlx").fill("dlx");
  await tid(page, "dq-max-length").fill("10");
  await tid(page, "dq-submit").click();
  const work = queue(page, "work");
  await work.waitFor();
  const args = await work.locator(".args").textContent();
  for (const want of ["TTL: 1s", "DLX: dlx", "max-length: 10"]) assert.ok(args.includes(want), `queue work shows ${want}: ${args}`);
  assert.equal(await page.locator('[data-testid="binding"]').count(), 1);

  t.step = "a policy through the form";
  await page.locator("summary", { hasText: "Set a policy" }).click();
  await tid(page, "pol-name").fill("cap");
  await tid(page, "pol-pattern").fill("^capped$");
  await tid(page, "pol-definition").fill('{"max-length":2}');
  await tid(page, "pol-submit").click();
  await consoleRun(page, "declare queue capped");
  const capped = await queue(page, "capped").locator(".args").textContent();
  assert.ok(capped.includes("max-length: 2"), `the policy applies to queue capped: ${capped}`);
  t.step = "an operator policy through the form caps the user policy";
  await tid(page, "pol-name").fill("ops");
  await tid(page, "pol-definition").fill('{"max-length":1}');
  await tid(page, "pol-operator").check();
  await tid(page, "pol-submit").click();
  assert.equal(await page.evaluate(() => warren.log().at(-1)), `set_operator_policy ops "^capped$" '{"max-length":1}' --apply-to queues`);
  await page.waitForFunction(() => /max-length: 1/.test(document.querySelector('[data-testid="queue"][data-queue="capped"] .args')?.textContent ?? ""));
  await tid(page, "pol-operator").uncheck();
  await consoleRun(page, "clear_operator_policy ops");
  await consoleRun(page, "delete queue capped");
  await consoleRun(page, "clear_policy cap");

  t.step = "publish through the form";
  await tid(page, "pub-key").fill("work");
  await tid(page, "pub-body").fill("hello");
  await tid(page, "pub-headers").fill("trace=abc");
  await tid(page, "pub-submit").click();
  await page.waitForSelector('[data-testid="diagram-queue-work"].flash', { timeout: 2000 }); // the enqueue flashes its box
  assert.equal(await work.locator('[data-testid="msg"]').count(), 1);
  const kinds = await page.locator('[data-testid="entry"]').last().locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
  assert.deepEqual(kinds, ["published", "enqueued"]);
  await shot(page, "1-published");

  t.step = "step to the next timer";
  assert.match(await tid(page, "next-timer").textContent(), /message-ttl \(queue work message #1\) at 1s/);
  await tid(page, "step").click();
  assert.equal(await tid(page, "clock").textContent(), "1s");
  assert.equal(await work.locator('[data-testid="msg"]').count(), 0);
  const dead = queue(page, "dead");
  assert.equal(await dead.locator('[data-testid="msg"]').count(), 1);
  const stepKinds = await page.locator('[data-testid="entry"]').last().locator('[data-testid="event"]').evaluateAll((es) => es.map((e) => e.dataset.kind));
  assert.ok(stepKinds.includes("dead-lettered"), `step events: ${stepKinds}`);

  t.step = "the diagram draws the TTL and dead-letter topology";
  const diagram = tid(page, "diagram");
  assert.equal(await diagram.locator(":scope > title").textContent(), "Topology diagram of vhost /");
  assert.match(await diagram.locator(":scope > desc").textContent(), /2 queues/);
  const dWork = tid(page, "diagram-queue-work");
  const dWorkText = await dWork.textContent();
  for (const want of ["0 ready", "TTL 1s", "DLX dlx", "max-length 10", "classic"]) assert.ok(dWorkText.includes(want), `diagram queue work shows ${want}: ${dWorkText}`);
  assert.match(await tid(page, "diagram-queue-dead").textContent(), /1 ready/);
  assert.match(await tid(page, "diagram-exchange-dlx").textContent(), /fanout/);
  await tid(page, "diagram-binding-dlx-dead").waitFor();
  const dlxLink = tid(page, "diagram-link-dlx-work").locator("path");
  assert.equal(await dlxLink.getAttribute("stroke-dasharray"), "6 4");
  assert.notEqual(await dlxLink.evaluate((p) => getComputedStyle(p).strokeDasharray), "none");
  // amq.* exchanges only when something links to them; the default
  // exchange always (topology.mjs checks that rule).
  assert.equal(await page.locator('[data-testid^="diagram-exchange-amq."]').count(), 0);
  assert.equal(await page.locator('[data-testid="diagram-exchange-"]').count(), 1);
  assert.match(await tid(page, "diagram-legend").textContent(), /dead-letter.*alternate exchange/);

  t.step = "inspect the dead-lettered message";
  await dead.locator('[data-testid="msg"]').first().click();
  assert.equal(await tid(page, "xdeath-reason").first().textContent(), "expired");
  assert.equal(await tid(page, "xdeath-queue").first().locator(".mono").textContent(), "work");
  assert.equal(await tid(page, "xdeath-count").first().locator(".mono").textContent(), "1");
  assert.match(await page.locator('[data-testid="xdeath"] tr[data-gloss-of="time"]').textContent(), /first dead-lettered/);
  assert.match(await tid(page, "inspector").textContent(), /trace/);
  await shot(page, "2-dead-lettered");

  t.step = "the inspector shows properties present but empty or zero";
  // RabbitMQ 3.10.8 hands a consumer content_type "", priority 0 and
  // headers {} exactly as published (pika); the inspector shows them so.
  await consoleRun(page, "declare queue props");
  await consoleRun(page, `publish props empty content-type="" priority=0 headers={}`);
  await queue(page, "props").locator('[data-testid="msg"]').first().click();
  assert.equal(await tid(page, "prop-contentType").textContent(), "''");
  assert.equal(await tid(page, "prop-priority").textContent(), "0");
  assert.equal(await page.locator('[data-testid^="prop-"]').count(), 2);
  assert.match(await tid(page, "headers-empty").textContent(), /^\{\} — present/);

  t.step = "per-message TTL head-of-line caveat";
  await consoleRun(page, "declare queue hol");
  await tid(page, "pub-key").fill("hol");
  await tid(page, "pub-body").fill("long");
  await tid(page, "pub-headers").fill("");
  await tid(page, "pub-expiration").fill("10s");
  await tid(page, "pub-submit").click();
  await tid(page, "pub-body").fill("short");
  await tid(page, "pub-expiration").fill("1s");
  await tid(page, "pub-submit").click();
  await tid(page, "advance-by").fill("2s");
  await tid(page, "advance").click();
  assert.equal(await tid(page, "clock").textContent(), "3s");
  const hol = queue(page, "hol");
  assert.equal(await hol.locator('[data-testid="msg"]').count(), 2);
  assert.equal(await hol.locator('[data-testid="msg-expired"]').count(), 1);
  assert.match(await hol.locator('[data-testid="msg"]').nth(1).textContent(), /short.*expired, still queued/);
  assert.equal(await hol.locator("[data-expires-at]").first().textContent(), "expires in 8s");
  await shot(page, "3-head-of-line");

  t.step = "console history";
  await tid(page, "console-input").press("ArrowUp");
  assert.equal(await tid(page, "console-input").inputValue(), "publish hol short expiration=1s");
  await tid(page, "console-input").press("ArrowUp");
  assert.equal(await tid(page, "console-input").inputValue(), "publish hol long expiration=10s");
  await tid(page, "console-input").fill("");

  t.step = "rewind and replay";
  const before = await snapshot(page);
  const topoBefore = await tid(page, "topology").innerText();
  const logLength = Number(await tid(page, "log-length").textContent());
  assert.ok(logLength >= 11, `log length ${logLength}`);
  await tid(page, "scrubber").fill("11"); // after the publish, before the step (4 form lines, 6 policy lines, the publish)
  await tid(page, "rewind").click();
  assert.equal(await tid(page, "clock").textContent(), "0s");
  assert.equal(await queue(page, "work").locator('[data-testid="msg"]').count(), 1);
  assert.equal(await queue(page, "hol").count(), 0);
  await shot(page, "4-rewound");
  await tid(page, "scrubber").fill(String(logLength));
  await tid(page, "rewind").click();
  assert.equal(await snapshot(page), before);
  assert.equal(await tid(page, "topology").innerText(), topoBefore);

  t.step = "share link";
  await tid(page, "share").click();
  const url = await tid(page, "share-url").inputValue();
  assert.match(url, /\/playground\?lang=en#s=[A-Za-z0-9_-]+$/);
  const shared = await open(url);
  assert.equal(await snapshot(shared), before);
  assert.equal(await tid(shared, "topology").innerText(), topoBefore);
  assert.equal(await tid(shared, "clock").textContent(), "3s");
  await shot(shared, "5-shared");

  t.step = "get, inspect and ack an unacked delivery";
  await shared.locator("summary", { hasText: "Consume / get" }).click();
  await tid(shared, "con-queue").fill("dead");
  await tid(shared, "con-get").click();
  const unacked = shared.locator('[data-testid="unacked"]');
  assert.equal(await unacked.count(), 1);
  await unacked.click();
  assert.match(await tid(shared, "inspector").textContent(), /unacked on channel app/);
  assert.equal(await tid(shared, "xdeath-reason").first().textContent(), "expired");
  await shared.locator("summary", { hasText: "Ack / nack / reject" }).click();
  await tid(shared, "ack-ack").click();
  assert.equal(await unacked.count(), 0);

  t.step = "an alternate exchange in the diagram";
  await shared.locator("summary", { hasText: "Declare exchange" }).click();
  await tid(shared, "dx-name").fill("front");
  await tid(shared, "dx-ae").fill("dlx");
  await tid(shared, "dx-submit").click();
  await tid(shared, "diagram-exchange-front").waitFor();
  const aeLink = tid(shared, "diagram-link-ae-front");
  assert.match(await aeLink.locator("title").textContent(), /alternate exchange dlx/);
  assert.ok(await aeLink.locator("path").getAttribute("stroke-dasharray"));

  t.step = "a delayed-message exchange through the form";
  await tid(shared, "dx-name").fill("later");
  await tid(shared, "dx-type").selectOption("x-delayed-message");
  await tid(shared, "dx-delayed-type").selectOption("fanout");
  await tid(shared, "dx-ae").fill("");
  await tid(shared, "dx-submit").click();
  assert.equal(await shared.evaluate(() => warren.log().at(-1)), "declare exchange later x-delayed-message delayed-type=fanout");
  assert.doesNotMatch(await tid(shared, "console-output").textContent(), /error/);
  await tid(shared, "diagram-exchange-later").waitFor();
  await shot(shared, "6-alternate-exchange");

  t.step = "play at 100x, then pause";
  await tid(shared, "speed").selectOption("100");
  await tid(shared, "play").click();
  await shared.waitForFunction(() => document.getElementById("clock").textContent !== "3s");
  await shared.waitForTimeout(150);
  await tid(shared, "play").click();
  const played = await shared.evaluate(() => ({ now: warren.snapshot().now, last: warren.log().at(-1) }));
  assert.ok(played.now > 3000, `play moved time to ${played.now}`);
  assert.match(played.last, /^advance /);

  t.step = "import definitions";
  const imp = await open(base + "/playground");
  await imp.locator("summary", { hasText: "Import definitions" }).click();
  await tid(imp, "import-text").fill("{not json");
  await tid(imp, "import-button").click();
  assert.match(await tid(imp, "import-status").textContent(), /^import failed: invalid JSON/);
  const defs = {
    rabbit_version: "3.13.0",
    vhosts: [{ name: "/" }],
    exchanges: [
      { name: "dlx", vhost: "/", type: "fanout", durable: true, auto_delete: false, internal: false, arguments: {} },
      { name: "amq.direct", vhost: "/", type: "direct", durable: true, auto_delete: false, internal: false, arguments: {} },
    ],
    queues: [
      { name: "work", vhost: "/", durable: true, auto_delete: false, arguments: { "x-message-ttl": 1000, "x-dead-letter-exchange": "dlx" } },
      { name: "dead", vhost: "/", durable: true, auto_delete: false, arguments: {} },
    ],
    bindings: [{ source: "dlx", vhost: "/", destination: "dead", destination_type: "queue", routing_key: "", arguments: {} }],
    policies: [{ vhost: "/", name: "cap", pattern: "^work$", "apply-to": "queues", definition: { "max-length": 100 }, priority: 1 }],
  };
  await tid(imp, "import-text").fill(JSON.stringify(defs));
  await tid(imp, "import-button").click();
  assert.equal(await tid(imp, "import-status").textContent(), "imported 1 exchange, 2 queues, 1 binding, 1 policy");
  const impLog = await imp.evaluate(() => warren.log());
  assert.ok(impLog.includes("declare queue work durable x-message-ttl=1000 x-dead-letter-exchange='dlx'"), `log: ${impLog.join(" | ")}`);
  assert.ok(impLog.some((l) => l.startsWith("set_policy 'cap' '^work$'")), `log: ${impLog.join(" | ")}`);
  const impWork = queue(imp, "work");
  await impWork.waitFor();
  const impArgs = await impWork.locator(".args").textContent();
  for (const want of ["TTL: 1s", "DLX: dlx", "max-length: 100"]) assert.ok(impArgs.includes(want), `imported queue work shows ${want}: ${impArgs}`);
  await queue(imp, "dead").waitFor();
  await tid(imp, "diagram-queue-work").waitFor();
  await tid(imp, "diagram-exchange-dlx").waitFor();
  await tid(imp, "diagram-binding-dlx-dead").waitFor();
  assert.equal(await tid(imp, "diagram-exchange-amq.direct").count(), 0);
  await consoleRun(imp, "publish work imported");
  await tid(imp, "step").click();
  assert.equal(await impWork.locator('[data-testid="msg"]').count(), 0);
  assert.equal(await queue(imp, "dead").locator('[data-testid="msg"]').count(), 1);
  t.step = "import definitions from a file, in another vhost";
  const other = { vhosts: [{ name: "/" }, { name: "v2" }], queues: [{ name: "q2", vhost: "v2", durable: false, auto_delete: false, arguments: { "x-max-length": 5 } }] };
  await tid(imp, "import-file").setInputFiles({ name: "defs.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(other)) });
  await imp.waitForFunction(() => document.querySelector('[data-testid="import-status"]').textContent.includes("vhost"));
  assert.equal(await tid(imp, "import-status").textContent(), "imported 1 vhost, 0 exchanges, 1 queue, 0 bindings, 0 policies");
  const log2 = await imp.evaluate(() => warren.log());
  assert.ok(log2.includes("@imp-1 declare queue q2 x-max-length=5"), `log: ${log2.join(" | ")}`);
  await tid(imp, "import-text").fill(JSON.stringify({ bindings: [{ source: "nope", destination: "work", destination_type: "queue", routing_key: "" }] }));
  await tid(imp, "import-button").click();
  assert.match(await tid(imp, "import-status").textContent(), /^import failed: line 1 of 1 failed: bind work nope\n.+/);
  await shot(imp, "8-imported");
  await imp.close();

  t.step = "message tokens: routed through an exchange";
  const anim = await open(base + "/playground");
  // Every token that enters the diagram, as kind from→to, in order.
  await anim.evaluate(() => {
    globalThis.__tokens = [];
    new MutationObserver((ms) => {
      for (const m of ms) for (const n of m.addedNodes) if (n.dataset?.testid === "token") globalThis.__tokens.push(`${n.dataset.kind} ${n.dataset.from ?? ""}→${n.dataset.to}`);
    }).observe(document.getElementById("topology"), { childList: true, subtree: true });
  });
  const tokensSeen = () => anim.evaluate(() => globalThis.__tokens.splice(0));
  const tokenIn = (kind) => anim.locator(`svg[data-testid="diagram"] [data-testid="token"][data-kind="${kind}"]`);
  const noTokens = () => anim.waitForFunction(() => !document.querySelector('[data-testid="token"]'), null, { timeout: 5000 });
  for (const line of ["declare exchange orders direct", "declare exchange dlx fanout", "declare queue dead", "bind dead dlx", "declare queue jobs ttl=1s dlx=dlx", "bind jobs orders new"]) await consoleRun(anim, line);
  await consoleRun(anim, "publish orders new hello");
  await tokenIn("enqueued").first().waitFor({ state: "attached", timeout: 10000 });
  assert.match(await tokenIn("enqueued").first().locator("title").textContent(), /^enqueued: message #1: hello$/);
  // The state is drawn before the tokens start: the box already counts it.
  assert.match(await tid(anim, "diagram-queue-jobs").textContent(), /1 ready/);
  await noTokens();
  assert.deepEqual(await tokensSeen(), ["published publisher→x:orders", "enqueued x:orders→q:jobs"]);

  t.step = "message tokens: expired and dead-lettered on a step";
  await tid(anim, "step").click();
  await tokenIn("dead-lettered").first().waitFor({ state: "attached", timeout: 10000 });
  // Hold every token half way through its leg for the screenshot.
  await anim.evaluate(() => {
    for (const a of document.getAnimations()) {
      if (!a.effect?.target?.matches?.('[data-testid="token"]')) continue;
      const t = a.effect.getTiming();
      a.pause();
      a.currentTime = t.delay + t.duration / 2;
    }
  });
  await shot(anim, "9-tokens");
  // Replay them from their start: a call less than one leg after the last
  // animated one gets no tokens, and resuming half way through could bring
  // the next call within that leg.
  await anim.evaluate(() =>
    document.getAnimations().forEach((a) => {
      if (a.playState !== "paused") return;
      a.currentTime = 0;
      a.play();
    }),
  );
  await noTokens();
  assert.deepEqual(await tokensSeen(), ["expired →q:jobs", "dead-lettered q:jobs→x:dlx", "enqueued x:dlx→q:dead"]);

  t.step = "message tokens: delivered, acked, returned";
  // (Each waits for its tokens to come and go: a call less than one leg
  // after the last animated one gets none.)
  for (const [line, kind] of [["consume dead", "delivered"], ["ack last", "acked"], ["publish orders nowhere lost mandatory", "returned"]]) {
    await consoleRun(anim, line);
    await tokenIn(kind).first().waitFor({ state: "attached", timeout: 10000 });
    await noTokens();
  }
  const seen = await tokensSeen();
  assert.ok(seen[0].startsWith("delivered q:dead→consumer:amq.ctag-"), `tokens: ${seen}`);
  assert.ok(seen[1].startsWith("acked →q:dead"), `tokens: ${seen}`);
  assert.deepEqual(seen.slice(2), ["published publisher→x:orders", "returned x:orders→publisher"]);

  t.step = "message tokens: at most 30 for a call, the console keeps to 40 lines";
  await consoleRun(anim, "publish orders new bulk count=30");
  await tokenIn("enqueued").first().waitFor({ state: "attached", timeout: 10000 });
  await noTokens();
  const bulk = await tokensSeen();
  assert.ok(bulk.length > 0 && bulk.length <= 30, `tokens: ${bulk}`);
  const bulkOut = await tid(anim, "console-output").textContent();
  assert.match(bulkOut, /\n… output cut here: 20 of its 60 lines left out, the first 20 and the last 20 shown \(the event log lists the events\) …\n/);
  assert.equal(bulkOut.split("\n").length, 1 + 41);
  assert.match(await anim.locator('[data-testid="entry"]').last().textContent(), /and 10 more events/);

  t.step = "message tokens: none on a replay, none with reduced motion";
  await tid(anim, "scrubber").fill("8");
  await tid(anim, "rewind").click();
  await anim.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  assert.deepEqual(await tokensSeen(), []);
  await anim.emulateMedia({ reducedMotion: "reduce" });
  await consoleRun(anim, "publish orders new quiet");
  await anim.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  assert.deepEqual(await tokensSeen(), []);
  assert.match(await tid(anim, "diagram-queue-jobs").textContent(), /1 ready/);
  await anim.close();

  t.step = "phone layout";
  await shared.setViewportSize({ width: 390, height: 844 });
  const overflow = await shared.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than a phone`);
  await shot(shared, "7-phone");
});
