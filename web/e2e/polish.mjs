// Browser test of what a learner tripped over in the playground (issue 9),
// run by web/playground_test.go: node polish.mjs BASE_URL. The inspector's
// x-death table after a TTL expiry to a dead-letter exchange, values shown
// with their types, a cut console output that says so, an AMQP error's
// note of what it closed (and a several-line policy error, in the console,
// the event log and an import), the forms the lessons need (mandatory,
// headers binding arguments, exchange-to-exchange bindings, ...), and the
// management API link that says which broker it shows, in both languages.
import assert from "node:assert/strict";
import { runTest } from "./browser.mjs";

await runTest("polish.mjs", {}, async (t) => {
  const { base, context, watch } = t;
  const tid = (page, id) => page.getByTestId(id);
  const queue = (page, name) => page.locator(`[data-testid="queue"][data-queue="${name}"]`);
  const lastLine = (page) => page.evaluate(() => warren.log().at(-1));
  const lastEntry = (page) => page.locator('[data-testid="entry"]').last();

  const open = (url) => t.open(url);
  // type runs a line in the console and returns what the console shows.
  async function type(page, line) {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
    return tid(page, "console-output").textContent();
  }
  async function ok(page, line) {
    const out = await type(page, line);
    assert.ok(!out.includes("error"), `${line}: ${out}`);
  }
  async function section(page, name) {
    const d = page.locator("details", { has: page.locator("summary", { hasText: name }) });
    if (!(await d.evaluate((e) => e.open))) await d.locator("summary").click();
  }

  t.step = "the home page says which broker the management API shows";
  const home = await context.newPage();
  watch(home);
  await home.goto(base + "/?lang=en");
  assert.equal(await tid(home, "nav-api").textContent(), "Server's management API");
  assert.match(await tid(home, "nav-api").getAttribute("title"), /server's own broker.*runs in your browser, and the API cannot see it/);
  assert.equal(await tid(home, "home-api").textContent(), "The server's management API");
  assert.match(await tid(home, "home").textContent(), /There are two brokers\. The playground and the lessons run theirs in your page.*shows that broker only/);
  await home.goto(base + "/?lang=zh-CN");
  assert.equal(await tid(home, "nav-api").textContent(), "服务器的管理 API");
  assert.match(await tid(home, "home").textContent(), /这里有两个 broker/);
  await home.close();

  t.step = "the playground says its broker runs in the browser";
  const page = await open(base + "/playground?lang=en");
  assert.match(await tid(page, "broker-where").textContent(), /runs in your browser.*The server's management API shows another broker, the server's own:/);
  assert.equal(await tid(page, "where-api").getAttribute("href"), "/api/overview");

  t.step = "x-death as RabbitMQ stores it, after a TTL expiry to a DLX and a second death";
  for (const line of [
    "declare exchange dlx fanout",
    "declare exchange dlx2 fanout",
    "declare queue final",
    "bind final dlx2",
    "declare queue dead ttl=1s dlx=dlx2",
    "bind dead dlx",
    "declare queue work ttl=10s dlx=dlx",
    "publish work hello expiration=1500 header.n=1 header.s='1' header.f=1.0 header.b='true'",
    "advance 2s", // the message's own 1.5s expiration: dead-lettered to dead at 1.5s
    "advance 1s", // dead's 1s TTL: dead-lettered to final at 2.5s
  ])
    await ok(page, line);
  const final = queue(page, "final");
  await final.locator('[data-testid="msg"]').first().click();
  const table = tid(page, "xdeath");
  const fields = await table.locator("tbody tr[data-field]").evaluateAll((rows) => rows.map((r) => r.dataset.field));
  assert.deepEqual(fields, ["count", "exchange", "queue", "reason", "routing-keys", "time", "original-expiration"]);
  assert.deepEqual(await table.locator("tbody th code").allTextContents(), fields);
  assert.deepEqual(await tid(page, "xdeath-entry").allTextContents(), ["[0]", "[1]"]);
  const column = async (name) => tid(page, `xdeath-${name}`).locator(".mono").allTextContents();
  assert.deepEqual(await column("queue"), ["dead", "work"]); // most recent first
  assert.deepEqual(await column("reason"), ["expired", "expired"]);
  assert.deepEqual(await column("count"), ["1", "1"]);
  assert.deepEqual(await column("exchange"), ["dlx", "''"]); // the default exchange's name is empty
  assert.deepEqual(await column("routing-keys"), ["[work]", "[work]"]);
  assert.deepEqual(await column("time"), ["2", "1"]); // AMQP timestamps: whole seconds
  assert.match(await tid(page, "xdeath-time").first().textContent(), /= 2s on the virtual clock/);
  // original-expiration is the expiration property, a string: quoted, as
  // it reads as a number. The first dead-lettering removed the property,
  // so the second death has none.
  assert.deepEqual(await tid(page, "xdeath-original-expiration").allTextContents(), ["absent", "'1500'"]);
  const gloss = async (name) => table.locator(`tr[data-gloss-of="${name}"] .gloss`).textContent();
  assert.match(await gloss("time"), /first dead-lettered from this queue for this reason/);
  assert.match(await gloss("count"), /how many times/);
  assert.match(await gloss("routing-keys"), /CC keys included/);
  assert.match(await table.locator('tr[data-field="time"] th .type').textContent(), /^timestamp$/);
  const insp = tid(page, "inspector");
  assert.match(await insp.textContent(), /most recent first: \[0\] is the latest/);
  assert.equal(await tid(page, "header-x-first-death-queue").textContent(), "work");
  assert.equal(await tid(page, "header-x-last-death-queue").textContent(), "dead");
  assert.equal(await tid(page, "header-x-first-death-exchange").textContent(), "''");
  assert.match(await insp.textContent(), /the queue of the message's first dead-lettering; set then, never changed/);
  t.step = "header values show their types, and the routing explanation";
  assert.equal(await tid(page, "header-n").textContent(), "1");
  assert.equal(await tid(page, "header-s").textContent(), "'1'");
  assert.equal(await tid(page, "header-f").textContent(), "1.0");
  assert.equal(await tid(page, "header-b").textContent(), "'true'");
  assert.equal(await tid(page, "insp-via").textContent(), "the binding from fanout exchange dlx2, which ignores keys");
  await t.shot(page, "polish-1-xdeath");

  t.step = "a cut output says it was cut and how much was left out";
  const bulk = await type(page, "publish final bulk count=30");
  const cut = /\n… output cut here: (\d+) of its (\d+) lines left out, the first 20 and the last 20 shown \(the event log lists the events\) …\n/.exec(bulk);
  assert.ok(cut, bulk);
  assert.equal(Number(cut[2]) - Number(cut[1]), 40);
  assert.equal(bulk.split("\n").length, 1 + 20 + 1 + 20);
  assert.ok(Number(cut[2]) >= 60, bulk); // 30 published and 30 enqueued
  assert.match(bulk, /\nenqueued q=final msg=\d+ via=\(default\):final$/); // the last lines are the last events
  await ok(page, "purge final");

  t.step = "a channel error says the channel was closed, and the next line reopens it";
  const closed = await type(page, "publish nosuch k m");
  assert.match(closed, /^error: 404 NOT_FOUND - no exchange 'nosuch' in vhost '\/'$/m); // verbatim
  assert.match(closed, /^ {2}↳ \(the queue or exchange named does not exist\)$/m);
  assert.match(closed, /^ {2}↳ The broker closed channel app for this error; the next command on it opens it again\.$/m);
  assert.doesNotMatch(closed, /note: channel/); // the script's English note is said in the reader's language instead
  assert.equal(await lastEntry(page).getByTestId("entry-closed").textContent(), "The broker closed channel app for this error; the next command on it opens it again.");
  assert.match(await lastEntry(page).getByTestId("entry-amqp-error").locator("code").textContent(), /^404 NOT_FOUND - no exchange 'nosuch' in vhost '\/'$/);
  await ok(page, "publish final again"); // the channel opens again
  const onNamed = await type(page, "@side declare queue final ttl=5s");
  assert.match(onNamed, /The broker closed channel side for this error/);
  const conn = await type(page, "declare exchange e bogus");
  assert.match(conn, /The broker closed connection app for this error, with all its channels/);

  t.step = "a policy error runs over several lines, verbatim, and closes nothing";
  const policy = await type(page, `set_policy bad ".*" '{"message-ttl":-1}'`);
  assert.match(policy, /^error: 406 Validation failed\n(  .*\n)*  -1 is not a valid message TTL\n {2}↳ \(a precondition failed/m);
  assert.doesNotMatch(policy, /closed/);
  assert.equal(await lastEntry(page).getByTestId("entry-closed").count(), 0);
  const reply = await lastEntry(page).getByTestId("entry-amqp-error").locator("code").textContent();
  assert.ok(reply.startsWith("406 Validation failed\n") && reply.endsWith("-1 is not a valid message TTL") && !reply.includes("\\n"), reply);

  t.step = "the importer reads the AMQP error, all of it";
  await section(page, "Import definitions");
  await tid(page, "import-text").fill(JSON.stringify({ policies: [{ vhost: "/", name: "p", pattern: ".*", "apply-to": "queues", definition: { "message-ttl": -1 } }] }));
  await tid(page, "import-button").click();
  assert.match(await tid(page, "import-status").textContent(), /^import failed: line 1 of 1 failed: set_policy 'p' '\.\*' .*\n406 Validation failed\n+-1 is not a valid message TTL\n\(a precondition failed/);
  await page.close();

  t.step = "forms: mandatory publish";
  const f = await open(base + "/playground?lang=en");
  await section(f, "Declare exchange");
  await tid(f, "dx-name").fill("orders");
  await tid(f, "dx-submit").click();
  assert.equal(await lastLine(f), "declare exchange orders direct");
  await tid(f, "pub-exchange").fill("orders");
  await tid(f, "pub-key").fill("nowhere");
  await tid(f, "pub-body").fill("lost");
  await tid(f, "pub-mandatory").check();
  await tid(f, "pub-submit").click();
  assert.equal(await lastLine(f), "publish orders nowhere lost mandatory");
  assert.deepEqual(await lastEntry(f).getByTestId("event").evaluateAll((es) => es.map((e) => e.dataset.kind)), ["published", "returned"]);
  await tid(f, "pub-mandatory").uncheck();

  t.step = "forms: an internal exchange and an exchange-to-exchange binding";
  await tid(f, "dx-name").fill("audit");
  await tid(f, "dx-type").selectOption("fanout");
  await tid(f, "dx-internal").check();
  await tid(f, "dx-submit").click();
  assert.equal(await lastLine(f), "declare exchange audit fanout internal");
  await tid(f, "dx-internal").uncheck();
  await section(f, "Bind");
  await tid(f, "bind-dest-type").selectOption("exchange");
  await tid(f, "bind-dest").fill("audit");
  await tid(f, "bind-exchange").fill("orders");
  await tid(f, "bind-key").fill("paid");
  await tid(f, "bind-submit").click();
  assert.equal(await lastLine(f), "bind exchange audit orders paid");
  assert.equal(await lastEntry(f).getByTestId("event").first().getAttribute("data-kind"), "bound");
  await ok(f, "declare queue audit.log");
  await tid(f, "bind-dest-type").selectOption("queue");
  await tid(f, "bind-dest").fill("audit.log");
  await tid(f, "bind-exchange").fill("audit");
  await tid(f, "bind-key").fill("");
  await tid(f, "bind-submit").click();
  assert.equal(await lastLine(f), "bind audit.log audit");
  await tid(f, "pub-key").fill("paid");
  await tid(f, "pub-body").fill("order 1");
  await tid(f, "pub-submit").click();
  assert.equal(await queue(f, "audit.log").locator('[data-testid="msg"]').count(), 1);

  t.step = "forms: headers binding arguments, with x-match and typed values";
  await tid(f, "dx-name").fill("docs");
  await tid(f, "dx-type").selectOption("headers");
  await tid(f, "dx-submit").click();
  await ok(f, "declare queue level-1");
  await tid(f, "bind-dest").fill("level-1");
  await tid(f, "bind-exchange").fill("docs");
  await tid(f, "bind-x-match").selectOption("any");
  await tid(f, "bind-args").fill("level=1 format='pdf'");
  await tid(f, "bind-submit").click();
  assert.equal(await lastLine(f), `bind level-1 docs "" x-match=any level=1 format='pdf'`);
  const binding = await f.evaluate(() => warren.snapshot().vhosts[0].bindings.find((b) => b.destination === "level-1"));
  assert.deepEqual(binding.args, { "x-match": "any", level: 1, format: "pdf" });
  await tid(f, "pub-exchange").fill("docs");
  await tid(f, "pub-key").fill("");
  await tid(f, "pub-body").fill("as a string");
  await tid(f, "pub-headers").fill("level='1'");
  await tid(f, "pub-submit").click();
  assert.equal(await lastLine(f), `publish docs "" "as a string" header.level='1'`);
  assert.equal(await queue(f, "level-1").locator('[data-testid="msg"]').count(), 0); // a string is not the number 1
  await tid(f, "pub-body").fill("as a number");
  await tid(f, "pub-headers").fill("level=1");
  await tid(f, "pub-submit").click();
  assert.equal(await queue(f, "level-1").locator('[data-testid="msg"]').count(), 1);
  await queue(f, "level-1").locator('[data-testid="msg"]').first().click();
  assert.equal(await tid(f, "insp-via").textContent(), "the binding from headers exchange docs whose arguments {format:pdf,level:1,x-match:any} matched");
  for (const mode of ["all-with-x", "any-with-x", "all"]) {
    await tid(f, "bind-dest").fill("level-1");
    await tid(f, "bind-x-match").selectOption(mode);
    await tid(f, "bind-args").fill(`x-tenant=acme note="a b"`);
    await tid(f, "bind-submit").click();
    assert.equal(await lastLine(f), `bind level-1 docs "" x-match=${mode} x-tenant=acme note="a b"`);
    assert.doesNotMatch(await tid(f, "console-output").textContent(), /error/);
  }
  await tid(f, "bind-args").fill("level");
  await tid(f, "bind-submit").click();
  assert.match(await tid(f, "console-output").textContent(), /Arguments: write NAME=VALUE pairs separated by spaces.*got "level"/);

  t.step = "forms: cc, delay, consumer tag, queue flags";
  await tid(f, "pub-exchange").fill("orders");
  await tid(f, "pub-key").fill("new");
  await tid(f, "pub-body").fill("copy");
  await tid(f, "pub-headers").fill("");
  await tid(f, "pub-cc").fill("paid, other");
  await tid(f, "pub-submit").click();
  assert.equal(await lastLine(f), "publish orders new copy cc=paid,other");
  assert.equal(await queue(f, "audit.log").locator('[data-testid="msg"]').count(), 2); // routed by its CC key
  await tid(f, "pub-cc").fill("");
  await tid(f, "dx-name").fill("later");
  await tid(f, "dx-type").selectOption("x-delayed-message");
  await tid(f, "dx-submit").click();
  await tid(f, "pub-exchange").fill("later");
  await tid(f, "pub-delay").fill("5s");
  await tid(f, "pub-submit").click();
  assert.equal(await lastLine(f), "publish later new copy delay=5s");
  assert.deepEqual(await lastEntry(f).getByTestId("event").evaluateAll((es) => es.map((e) => e.dataset.kind)), ["published", "delayed"]);
  await tid(f, "pub-delay").fill("");
  await section(f, "Declare queue");
  await tid(f, "dq-name").fill("session");
  await tid(f, "dq-exclusive").check();
  await tid(f, "dq-auto-delete").check();
  await tid(f, "dq-submit").click();
  assert.equal(await lastLine(f), "declare queue session exclusive auto-delete");
  const session = await f.evaluate(() => warren.snapshot().vhosts[0].queues.find((q) => q.name === "session"));
  assert.ok(session.exclusive && session.autoDelete, JSON.stringify(session));
  await tid(f, "dq-exclusive").uncheck();
  await tid(f, "dq-auto-delete").uncheck();
  await tid(f, "dq-name").fill("parcels");
  await tid(f, "dq-type").selectOption("quorum");
  await tid(f, "dq-delivery-limit").fill("5");
  await tid(f, "dq-submit").click();
  assert.equal(await lastLine(f), "declare queue parcels type=quorum delivery-limit=5");
  assert.match(await queue(f, "parcels").textContent(), /delivery-limit/);
  await section(f, "Consume / get");
  await tid(f, "con-queue").fill("audit.log");
  await tid(f, "con-channel").fill("reader");
  await tid(f, "con-tag").fill("auditor");
  await tid(f, "con-consume").click();
  assert.equal(await lastLine(f), "@reader consume audit.log tag=auditor");
  assert.equal(await f.evaluate(() => warren.snapshot().vhosts[0].queues.find((q) => q.name === "audit.log").consumers[0].tag), "auditor");
  await t.shot(f, "polish-2-forms");
  await f.close();

  t.step = "Chinese: the channel error note and the x-death glosses, reply texts verbatim";
  const zh = await open(base + "/playground?lang=zh-CN");
  assert.match(await tid(zh, "broker-where").textContent(), /运行在你的浏览器里/);
  const zhClosed = await type(zh, "publish nosuch k m");
  assert.match(zhClosed, /^error: 404 NOT_FOUND - no exchange 'nosuch' in vhost '\/'$/m);
  assert.match(zhClosed, /broker 因这个错误关闭了信道（channel）app；在它上面执行的下一条命令会重新打开它。/);
  for (const line of ["declare exchange dlx fanout", "declare queue dead", "bind dead dlx", "declare queue work ttl=1s dlx=dlx", "publish work hi", "advance 1s"]) await ok(zh, line);
  await queue(zh, "dead").locator('[data-testid="msg"]').first().click();
  const zhTable = tid(zh, "xdeath");
  assert.equal(await zhTable.locator("thead th").first().textContent(), "字段");
  assert.match(await zhTable.locator('tr[data-gloss-of="time"] .gloss').textContent(), /第一次因这个原因从这个队列成为死信的时间/);
  assert.match(await tid(zh, "inspector").textContent(), /最近的在前/);
  await t.shot(zh, "polish-3-zh");
  await zh.close();
});
