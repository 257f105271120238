// Browser end-to-end test of the two languages, run by web/playground_test.go
// (TestI18nInChromium): node i18n.mjs BASE_URL STATIC_URL, where STATIC_URL
// serves the static export (web.Export). A browser that prefers Chinese gets
// Chinese on its first visit, from the server's Accept-Language and from the
// static site's navigator.languages; the switch on a page changes the
// language, keeps the session built so far, and is remembered across a
// reload and on other pages; the playground works in Chinese (events
// explained in Chinese, x-death glossed, the script's errors, a failed
// check's reasons and the help overview in Chinese, no English sentence
// outside code);
// a share link opens in the language it was made in, in a browser that
// prefers English; and switching back works. Prints "ok" or exits 1.
import assert from "node:assert/strict";
import { englishRuns, launch, runTest } from "./browser.mjs";

const staticBase = process.argv[3];
if (!staticBase) throw new Error("usage: node i18n.mjs BASE_URL STATIC_URL");

const lang = (page) => page.evaluate(() => document.documentElement.lang);

await runTest("i18n.mjs", {}, async (t) => {
  const { base, context, watch } = t;
  const tid = (page, id) => page.getByTestId(id);

  async function open(ctx, url, ready = "body[data-ready=true]") {
    const page = await ctx.newPage();
    watch(page);
    await page.goto(url);
    if (ready) await page.waitForSelector(ready);
    return page;
  }

  async function run(page, line) {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
  }

  t.step = "a browser that prefers Chinese gets Chinese on its first visit";
  const zhBrowser = await launch({ locale: "zh-CN" });
  try {
    const first = await open(zhBrowser.context, base + "/", null);
    assert.equal(await lang(first), "zh-CN");
    assert.equal(await tid(first, "nav-playground").textContent(), "演练场");
    assert.equal(await first.title(), "Warren：可以一步一步观察的 RabbitMQ 语义");
    t.step = "the static site sends a first visit to the browser's language";
    const fromRoot = await zhBrowser.context.newPage();
    // (Requests go to the static site here, which watch would count as outside.)
    fromRoot.on("pageerror", (e) => t.problems.push(`page error: ${e.message}`));
    fromRoot.on("console", (m) => m.type() === "error" && t.problems.push(`console error: ${m.text()}`));
    await fromRoot.goto(staticBase + "/playground/");
    await fromRoot.waitForURL(/\/zh-CN\/playground/);
    await fromRoot.waitForSelector("body[data-ready=true]");
    assert.equal(await lang(fromRoot), "zh-CN");
    assert.equal(await tid(fromRoot, "status").textContent(), "引擎已就绪。一切都在这个页面里运行；只有你推进时，时间才会走。");
  } finally {
    await zhBrowser.close();
  }

  t.step = "English by default; build a session, then switch to Chinese";
  const page = await open(context, base + "/playground");
  assert.equal(await lang(page), "en");
  for (const line of ["declare exchange dlx fanout", "declare queue dead", "bind dead dlx", "declare queue work ttl=1s dlx=dlx", "publish work hello"]) await run(page, line);
  const log = await page.evaluate(() => warren.log());
  await Promise.all([page.waitForURL(/lang=zh-CN/), tid(page, "lang-zh-CN").click()]);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await lang(page), "zh-CN");
  assert.deepEqual(await page.evaluate(() => warren.log()), log, "the switch keeps the session");
  assert.match(await tid(page, "status").textContent(), /^引擎已就绪。已从分享链接重放 5 行。$/);
  assert.equal(await tid(page, "lang-zh-CN").getAttribute("aria-current"), "true");

  t.step = "the choice survives a reload and holds on other pages";
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await lang(page), "zh-CN");
  assert.equal(await page.evaluate(() => localStorage.getItem("lang")), "zh-CN");
  assert.ok((await context.cookies(base)).some((c) => c.name === "lang" && c.value === "zh-CN"), "the lang cookie");
  const other = await open(context, base + "/lessons", '[data-testid="lessons"]');
  assert.equal(await lang(other), "zh-CN");
  assert.equal(await other.locator("h1").textContent(), "课程");
  await other.close();

  t.step = "the playground works in Chinese";
  await page.goto(base + "/playground");
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await lang(page), "zh-CN");
  // The tab kept its session (static/playground/store.js): start afresh.
  assert.match(await tid(page, "session-note-text").textContent(), /^已恢复你在这个标签页里的会话（日志共 5 行）。$/);
  await tid(page, "session-fresh").click();
  for (const line of ["declare exchange dlx fanout", "declare queue dead", "bind dead dlx", "declare queue work ttl=1s dlx=dlx", "publish work hello"]) await run(page, line);
  const explained = await page.locator('[data-testid="entry"]').last().locator('[data-testid="event-explain"]').allTextContents();
  assert.deepEqual(explained, ["消息 #1 以路由键 work 发布到默认交换机，它会进入名为 work 的队列（如果存在）。", "消息 #1 进入队列 work，路由依据：默认交换机（按队列名 work 路由）。它的 TTL 在 1s 耗尽。"]);
  await run(page, "publish nowhere lost");
  assert.deepEqual(await page.locator('[data-testid="entry"]').last().locator('[data-testid="event-explain"]').allTextContents(), [
    "消息 #2 以路由键 nowhere 发布到默认交换机，它会进入名为 nowhere 的队列（如果存在）。",
    "默认交换机没有把消息 #2 路由到任何队列（没有与路由键同名的队列）；它没有设置 mandatory，所以 broker 把它丢弃了。",
  ]);
  await tid(page, "step").click();
  const stepExplained = (await page.locator('[data-testid="entry"]').last().locator('[data-testid="event-explain"]').allTextContents()).join("\n");
  assert.match(stepExplained, /消息 #1 从队列 work 成为死信（TTL 耗尽）：以路由键 work 作为消息 #3 重新发布到交换机 dlx。/);
  assert.match(stepExplained, /消息 #3 进入队列 dead，路由依据：fanout 交换机 dlx 上的绑定（fanout 不看路由键）。/);
  assert.match(await tid(page, "next-timer").textContent(), /^无$/);
  await page.locator('[data-testid="queue"][data-queue="dead"] [data-testid="msg"]').first().click();
  assert.equal(await tid(page, "xdeath-reason").first().textContent(), "expired");
  assert.equal(await tid(page, "xdeath-count").first().textContent(), "1");
  assert.match(await page.locator('[data-testid="xdeath"] tr[data-gloss-of="count"]').textContent(), /消息因这个原因从这个队列成为死信的次数/);
  await run(page, "get nope");
  assert.match(await page.locator('[data-testid="entry"]').last().textContent(), /broker 关闭了信道 app：404 NOT_FOUND - no queue 'nope' in vhost '\/'（所指的队列或交换机不存在）。/);
  await tid(page, "dq-name").fill("bad");
  await tid(page, "dq-ttl").fill("soon");
  await tid(page, "dq-submit").click();
  assert.equal(await tid(page, "console-output").textContent(), "错误：消息过期时间（message TTL）必须是一个时长，例如 5s、250ms 或 1m30s，收到的是“soon”");
  await tid(page, "dq-ttl").fill("");

  t.step = "the script's errors and help in Chinese";
  await run(page, "frobnicate q");
  assert.equal(await tid(page, "console-output").textContent(), '> frobnicate q\n错误：未知命令 "frobnicate"（试试 "help"）');
  assert.equal(await tid(page, "entry-error").last().textContent(), '未知命令 "frobnicate"（试试 "help"）');
  await run(page, "consume");
  assert.match(await tid(page, "console-output").textContent(), /\n错误：用法：consume QUEUE \[tag=TAG\]/);
  await run(page, "expect queue dead ready=5 nope=1");
  assert.equal(await tid(page, "entry-error").last().textContent(), "检查未通过：队列 dead：ready=1（应为 5）、nope=（不存在）（应为 1）");
  await run(page, "expect msg nowhere 0");
  assert.equal(await tid(page, "entry-error").last().textContent(), '检查未通过：没有队列 "nowhere"');
  await run(page, "help");
  const help = (await tid(page, "console-output").textContent()).split("\n");
  assert.match(help[1], /^拓扑：\s+bind, bind exchange, declare exchange/);
  assert.ok(help.some((l) => /^策略与虚拟主机：\s+clear_operator_policy, clear_policy, set_operator_policy, set_policy/.test(l)), help.join("\n"));
  assert.equal(help.at(-1), "help COMMAND 显示一个命令的用法，例如 help publish、help show");
  const columns = (s) => [...s].reduce((n, c) => n + (/[\u2e80-\uffef]/.test(c) ? 2 : 1), 0); // a Chinese character is two wide
  assert.equal(new Set(help.slice(1, -1).map((l) => columns(/^\S+\s+/.exec(l)[0]))).size, 1, `the commands line up:\n${help.join("\n")}`);
  // help COMMAND: the usage, then the command's description in Chinese
  // instead of the engine's English aside ("(its messages, head first)").
  await run(page, "help show queue");
  assert.equal(await tid(page, "console-output").textContent(), "> help show queue\nshow queue NAME\n    显示一个队列及其就绪消息，从队首开始。");
  // show's own prose: an empty list, and where a long list was cut.
  await run(page, "show timers");
  assert.equal(await tid(page, "console-output").textContent(), "> show timers\n没有待触发的定时器");
  await run(page, "publish dead x count=150");
  await run(page, "show queue dead");
  assert.equal((await tid(page, "console-output").textContent()).split("\n").at(-1), "  ……另有 51 条消息未显示（输出已截断：show 只列出前 100 条）");
  await page.locator("details.help summary").click();
  assert.deepEqual(await englishRuns(page), []);
  await t.shot(page, "i18n-zh-playground");

  t.step = "a share link opens in its language in a browser that prefers English";
  await tid(page, "share").click();
  const link = await tid(page, "share-url").inputValue();
  assert.match(link, /\/playground\?lang=zh-CN#s=/);
  const shareLog = await page.evaluate(() => warren.log());
  const enBrowser = await launch({ locale: "en-US" });
  try {
    const shared = await open(enBrowser.context, link);
    assert.equal(await lang(shared), "zh-CN");
    assert.deepEqual(await shared.evaluate(() => warren.log()), shareLog);
    assert.equal(await tid(shared, "nav-lessons").textContent(), "课程");
  } finally {
    await enBrowser.close();
  }

  t.step = "a lesson in Chinese, its frame and its text";
  const lesson = await open(context, base + "/lessons/ttl-and-dead-lettering", "body[data-lesson-ready=true]");
  assert.equal(await lang(lesson), "zh-CN");
  assert.match(await lesson.locator("article.lesson-step:not([hidden]) h3").textContent(), /^第 1 步，共 \d+ 步：\p{Script=Han}/u);
  assert.match(await lesson.locator("#lesson-h").textContent(), /\p{Script=Han}/u);
  await tid(lesson, "lesson-check").click();
  assert.match(await tid(lesson, "lesson-result").textContent(), /^还没有：/);
  t.step = "a failed check says why in Chinese";
  assert.deepEqual(await lesson.locator('[data-testid="lesson-result"] .why').allTextContents(), ["检查未通过：没有队列 orders"]);
  const tries = await lesson.locator("article.lesson-step:not([hidden]) button.try").all();
  await tries[0].click();
  await tid(lesson, "lesson-check").click();
  await lesson.waitForFunction(() => document.querySelector('[data-testid="lesson-result"] .why')?.textContent.includes("ready=0"));
  assert.deepEqual(await lesson.locator('[data-testid="lesson-result"] .why').allTextContents(), ["检查未通过：队列 orders：ready=0（应为 1）"]);
  assert.deepEqual(await englishRuns(lesson), []);
  for (const b of tries.slice(1)) await b.click();
  await tid(lesson, "lesson-check").click();
  await lesson.waitForFunction(() => document.querySelector('[data-testid="lesson-result"]').classList.contains("pass"));
  assert.match(await tid(lesson, "lesson-result").textContent(), /^完成。/);
  assert.deepEqual(await englishRuns(lesson), []);
  await lesson.close();

  t.step = "and back to English";
  await Promise.all([page.waitForURL(/lang=en/), tid(page, "lang-en").click()]);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await lang(page), "en");
  assert.equal(await tid(page, "nav-playground").textContent(), "Playground");
  assert.equal(await page.evaluate(() => localStorage.getItem("lang")), "en");
  t.step = "in English, the script's errors and help read as the engine writes them";
  for (const line of ["frobnicate q", "consume", "expect queue dead ready=5 nope=1", "help"]) {
    await run(page, line);
    const r = await page.evaluate((l) => warren.exec(l), line); // the same line again, for its English
    const want = [`> ${line}`];
    if (r.output) want.push(r.output.replace(/\n$/, ""));
    if (r.error) want.push(`error: ${r.error}`);
    assert.equal(await tid(page, "console-output").textContent(), want.join("\n"));
  }
  const back = await open(context, base + "/", null);
  assert.equal(await lang(back), "en");
});
