// Browser end-to-end test of the topology diagram, run by
// web/playground_test.go (TestTopologyInChromium): node topology.mjs
// BASE_URL. It builds, through the console, a topology of 11 queues and
// 7 exchanges (direct, topic, fanout and headers exchanges whose bindings
// carry keys or arguments, a dead-letter exchange, an alternate exchange,
// exchange-to-exchange bindings), then measures every label and box of the
// diagram from the page's element boxes: no label overlaps another label or
// a box, no box overlaps another, every box's text stays inside it. It
// checks that the three kinds of link look different and that the legend
// names them in the page's language; that the layout does not depend on
// the order of declaration or on messages; that hovering or focusing a box
// picks out its links, Tab walks the boxes top to bottom, and the focus
// survives a redraw; that the default exchange is drawn and listed the same
// way in every vhost, with its tooltip; and, in Chinese on a 390×844
// phone, that the page does not scroll sideways, the diagram scrolls in its
// own box, and its labels stay readable. Screenshots go to ./artifacts.
// Prints "ok" or exits 1.
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, runTest } from "./browser.mjs";

// The topology: declarations first, then bindings (each list in an order
// the second build reverses).
const DECLARE = [
  "declare exchange orders direct ae=unrouted",
  "declare exchange events topic",
  "declare exchange broadcast fanout",
  "declare exchange docs headers",
  "declare exchange dlx direct",
  "declare exchange unrouted fanout",
  "declare queue orders.eu dlx=dlx dlrk=failed",
  "declare queue orders.us dlx=dlx dlrk=failed",
  "declare queue orders.asia dlx=dlx dlrk=failed ttl=30s max-length=100",
  "declare queue logs.error",
  "declare queue logs.all",
  "declare queue audit",
  "declare queue mail",
  "declare queue sms",
  "declare queue pdf",
  "declare queue unrouted.orders",
  "declare queue failed",
];
const BIND = [
  "bind orders.eu orders eu",
  "bind orders.us orders us",
  "bind orders.asia orders asia",
  "bind orders.asia orders apac",
  "bind logs.error events '*.error'",
  "bind logs.all events '#'",
  "bind audit events 'order.*'",
  "bind mail broadcast",
  "bind sms broadcast",
  "bind pdf docs x-match=all format=pdf",
  "bind unrouted.orders unrouted",
  "bind failed dlx failed",
  "bind exchange events orders eu",
  "bind exchange broadcast events 'alert.#'",
];
// The labels the diagram must show on its links, with how many times.
const LABELS = { eu: 2, us: 1, "apac, asia": 1, "*.error": 1, "#": 1, "order.*": 1, "format=pdf x-match=all": 1, failed: 1, "alert.#": 1 };

await runTest("topology.mjs", {}, async (t) => {
  const { base } = t;
  const tid = (page, id) => page.getByTestId(id);
  const shot = (page, name, opts = {}) => page.screenshot({ path: path.join(artifacts, `${name}.png`), ...opts });

  const open = (url) => t.open(url);
  async function run(page, line) {
    await tid(page, "console-input").fill(line);
    await tid(page, "console-input").press("Enter");
    const out = await tid(page, "console-output").textContent();
    assert.ok(!out.includes("error:"), `${line}: ${out}`);
  }
  async function build(page, lines) {
    for (const line of lines) await run(page, line);
    await tid(page, "diagram-binding-events-broadcast").waitFor();
  }

  // measure returns the diagram of vhost's boxes ({id, box, texts}), its
  // labels (link labels and legend texts, {text, box}) and its own box,
  // each box {x, y, w, h} in CSS pixels relative to the diagram.
  const measure = (page, vhost = "/") =>
    page.evaluate((vhost) => {
      const svg = document.querySelector(`svg[data-testid="diagram"][data-vhost="${vhost}"]`);
      const o = svg.getBoundingClientRect();
      const r = (e) => {
        const b = e.getBoundingClientRect();
        return { x: b.left - o.left, y: b.top - o.top, w: b.width, h: b.height };
      };
      return {
        svg: r(svg),
        boxes: [...svg.querySelectorAll("[data-node]")].map((n) => ({ id: n.dataset.node, box: r(n.querySelector("rect.box")), texts: [...n.querySelectorAll("text")].map((e) => ({ text: e.textContent, box: r(e) })) })),
        labels: [...svg.querySelectorAll("text.edge-label, .legend text")].map((e) => ({ text: e.textContent, box: r(e), linkLabel: e.classList.contains("edge-label") })),
      };
    }, vhost);
  const EPS = 0.5;
  const overlap = (a, b) => a.x < b.x + b.w - EPS && b.x < a.x + a.w - EPS && a.y < b.y + b.h - EPS && b.y < a.y + a.h - EPS;
  const inside = (a, b) => a.x >= b.x - EPS && a.y >= b.y - EPS && a.x + a.w <= b.x + b.w + EPS && a.y + a.h <= b.y + b.h + EPS;
  const fmt = (b) => `[${b.x.toFixed(1)},${b.y.toFixed(1)} ${b.w.toFixed(1)}×${b.h.toFixed(1)}]`;

  // assertReadable is the layout's promise, measured.
  function assertReadable(m, where) {
    const bad = [];
    m.labels.forEach((a, i) => {
      if (!a.text.trim()) bad.push(`an empty label at ${fmt(a.box)}`);
      if (!inside(a.box, m.svg)) bad.push(`label "${a.text}" ${fmt(a.box)} is outside the diagram ${fmt(m.svg)}`);
      for (const b of m.labels.slice(i + 1)) if (overlap(a.box, b.box)) bad.push(`label "${a.text}" ${fmt(a.box)} overlaps label "${b.text}" ${fmt(b.box)}`);
      for (const n of m.boxes) if (overlap(a.box, n.box)) bad.push(`label "${a.text}" ${fmt(a.box)} overlaps box ${n.id} ${fmt(n.box)}`);
    });
    m.boxes.forEach((a, i) => {
      for (const b of m.boxes.slice(i + 1)) if (overlap(a.box, b.box)) bad.push(`box ${a.id} ${fmt(a.box)} overlaps box ${b.id} ${fmt(b.box)}`);
      for (const x of a.texts) if (!inside(x.box, a.box)) bad.push(`"${x.text}" ${fmt(x.box)} sticks out of box ${a.id} ${fmt(a.box)}`);
    });
    assert.deepEqual(bad, [], `${where}: ${bad.length} overlaps`);
  }
  function assertLabels(m) {
    const seen = {};
    for (const l of m.labels) if (l.linkLabel && !/failed/.test(l.text)) seen[l.text] = (seen[l.text] ?? 0) + 1;
    const want = { ...LABELS };
    delete want.failed;
    assert.deepEqual(seen, want);
    assert.equal(m.labels.filter((l) => l.linkLabel && /failed/.test(l.text)).length, 4, "the failed binding and three dead-letter keys");
  }
  // geometry is where every box and label is: what must not move.
  const geometry = (m) => JSON.stringify([m.svg, m.boxes.map((b) => [b.id, b.box]).sort(), m.labels.filter((l) => l.linkLabel).map((l) => [l.text, l.box]).sort()]);

  t.step = "a fresh playground draws the default exchange, and only it";
  const page = await open(base + "/playground");
  assert.deepEqual(await page.locator("svg[data-testid=diagram] [data-node]").evaluateAll((ns) => ns.map((n) => n.dataset.node)), ["x:"]);
  const defaultBox = tid(page, "diagram-exchange-");
  const defaultTip = await defaultBox.locator("title").textContent();
  assert.match(defaultTip, /every queue is bound to by its own name/);
  assert.equal(await tid(page, "exchange").count(), 1);
  assert.equal(await tid(page, "exchange").first().getAttribute("title"), defaultTip);
  assert.match(await tid(page, "exchange").first().textContent(), /^\(default\) direct: every queue is bound to it by its own name/);

  t.step = "build 11 queues and 7 exchanges through the console";
  await build(page, [...DECLARE, ...BIND]);
  await page.setViewportSize({ width: 1400, height: 1400 });
  const m1 = await measure(page);
  assert.equal(m1.boxes.filter((b) => b.id.startsWith("q:")).length, 11);
  assert.deepEqual(m1.boxes.filter((b) => b.id.startsWith("x:")).map((b) => b.id).sort(), ["x:", "x:broadcast", "x:dlx", "x:docs", "x:events", "x:orders", "x:unrouted"]);
  assert.ok(!m1.boxes.some((b) => b.id.startsWith("x:amq.")), "amq.* exchanges are not drawn when nothing links to them");

  t.step = "no label overlaps a label or a box; every box holds its text";
  assertReadable(m1, "desktop");
  assertLabels(m1);
  await tid(page, "diagram").scrollIntoViewIfNeeded();
  await tid(page, "diagram").screenshot({ path: path.join(artifacts, "topology-desktop.png") });

  t.step = "the three kinds of link look different, and the legend says which is which";
  const look = (sel) => page.locator(sel).first().evaluate((p) => ({ stroke: getComputedStyle(p).stroke, dash: getComputedStyle(p).strokeDasharray }));
  const binding = await look('[data-testid="diagram-binding-orders-orders.eu"] path.edge');
  const e2e = await look('[data-testid="diagram-binding-orders-events"] path.edge');
  const dlx = await look('[data-testid="diagram-link-dlx-orders.eu"] path.edge');
  const ae = await look('[data-testid="diagram-link-ae-orders"] path.edge');
  assert.deepEqual(e2e, binding, "an exchange-to-exchange binding is a binding");
  assert.equal(binding.dash, "none");
  for (const [a, b] of [[binding, dlx], [binding, ae], [dlx, ae]]) {
    assert.notEqual(a.stroke, b.stroke);
    assert.notEqual(a.dash, b.dash);
  }
  assert.deepEqual(await page.locator('[data-testid="diagram-legend"] text').allTextContents(), ["binding (routing key)", "dead-letter", "alternate exchange", "consumer"]);
  assert.match(await tid(page, "diagram-binding-broadcast-mail").locator("title").textContent(), /fanout exchange ignores it/);
  assert.equal(await tid(page, "diagram-binding-broadcast-mail").locator("text").count(), 0, "a fanout binding has no key label");

  t.step = "messages do not move anything";
  await run(page, "publish orders eu hello count=3");
  await run(page, "publish events order.created hi");
  await run(page, "consume orders.us");
  await page.waitForFunction(() => /3 ready/.test(document.querySelector('[data-testid="diagram-queue-orders.eu"]').textContent));
  assert.equal(geometry(await measure(page)), geometry(m1));

  t.step = "hovering a queue picks out its links and the exchanges at their ends";
  const cls = (id) => tid(page, id).evaluate((e) => e.getAttribute("class"));
  const dimmed = (id) => page.waitForFunction((id) => +getComputedStyle(document.querySelector(`[data-testid="${id}"]`)).opacity < 0.5, id);
  const clear = (id) => page.waitForFunction((id) => +getComputedStyle(document.querySelector(`[data-testid="${id}"]`)).opacity === 1, id);
  await tid(page, "diagram-queue-orders.eu").hover();
  assert.match(await cls("diagram"), /\bhl\b/);
  for (const id of ["diagram-binding-orders-orders.eu", "diagram-link-dlx-orders.eu", "diagram-exchange-orders", "diagram-exchange-dlx", "diagram-queue-orders.eu"]) assert.match(await cls(id), /\bon\b/, id);
  for (const id of ["diagram-binding-orders-orders.us", "diagram-link-ae-orders", "diagram-queue-mail", "diagram-exchange-events"]) assert.doesNotMatch(await cls(id), /\bon\b/, id);
  await dimmed("diagram-queue-mail");
  await dimmed("diagram-binding-broadcast-mail");
  await clear("diagram-exchange-dlx");
  await tid(page, "diagram").screenshot({ path: path.join(artifacts, "topology-hover.png") });
  await page.mouse.move(1, 1);
  await clear("diagram-queue-mail");
  assert.doesNotMatch(await cls("diagram"), /\bhl\b/);

  t.step = "focus picks out links too, and the box says them";
  const orders = tid(page, "diagram-exchange-orders");
  assert.equal(await orders.getAttribute("tabindex"), "0");
  const label = await orders.getAttribute("aria-label");
  for (const want of ["exchange orders, direct", "Links:", "binding orders → queue orders.eu, key eu", "binding orders → exchange events, key eu", "exchange orders has alternate exchange unrouted"]) assert.ok(label.includes(want), `aria-label lacks ${want}: ${label}`);
  await orders.focus();
  for (const id of ["diagram-link-ae-orders", "diagram-binding-orders-events", "diagram-binding-orders-orders.asia", "diagram-exchange-unrouted", "diagram-exchange-events"]) assert.match(await cls(id), /\bon\b/, id);
  await dimmed("diagram-queue-mail");
  await dimmed("diagram-link-dlx-orders.eu");

  t.step = "the focus survives a redraw";
  await page.evaluate(() => globalThis.playground.run("publish orders us again"));
  await page.waitForFunction(() => /1 ready/.test(document.querySelector('[data-testid="diagram-queue-orders.us"]').textContent) || /unacked/.test(document.querySelector('[data-testid="diagram-queue-orders.us"]').textContent));
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.node), "x:orders");
  assert.match(await cls("diagram-link-ae-orders"), /\bon\b/);

  t.step = "Tab walks the boxes top to bottom, exchanges then queues; Escape lets go";
  await defaultBox.focus();
  const walk = [];
  for (let i = 0; i < 18; i++) {
    walk.push(await page.evaluate(() => {
      const a = document.activeElement;
      const r = a.querySelector("rect.box").getBoundingClientRect();
      return { id: a.dataset.node, x: r.left, y: r.top, hl: a.closest("svg").classList.contains("hl") && a.classList.contains("on") };
    }));
    if (i < 17) await page.keyboard.press("Tab");
  }
  assert.equal(new Set(walk.map((w) => w.id)).size, 18, `every box once: ${walk.map((w) => w.id)}`);
  assert.ok(walk.every((w) => w.hl), "each focused box is picked out");
  for (let i = 1; i < walk.length; i++) {
    const [a, b] = [walk[i - 1], walk[i]];
    assert.ok(a.x < b.x || (a.x === b.x && a.y < b.y), `Tab went from ${a.id} to ${b.id}`);
  }
  await page.keyboard.press("Escape");
  assert.doesNotMatch(await cls("diagram"), /\bhl\b/);

  t.step = "the same topology declared in another order is drawn the same";
  const again = await open(base + "/playground");
  await again.setViewportSize({ width: 1400, height: 1400 });
  await build(again, [...DECLARE.slice().reverse(), ...BIND.slice().reverse()]);
  const m1Now = await measure(page);
  const m2 = await measure(again);
  // (Counts differ: page has messages; geometry does not depend on them.)
  assert.equal(geometry(m2), geometry(m1Now));
  await again.close();

  t.step = "the default exchange is shown by one rule in every vhost, amq.* only when used";
  await run(page, "vhost add v2");
  await run(page, "open c2 vhost=v2");
  await run(page, "declare queue q2");
  await run(page, "bind q2 amq.fanout");
  const v2 = page.locator('svg[data-testid="diagram"][data-vhost="v2"]');
  await v2.waitFor();
  assert.deepEqual(await v2.locator("[data-node]").evaluateAll((ns) => ns.map((n) => n.dataset.node)), ["x:", "x:amq.fanout", "q:q2"]);
  assert.equal(await v2.locator('[data-testid="diagram-exchange-"] title').textContent(), defaultTip);
  const lists = page.locator('[data-testid="exchanges"]');
  assert.equal(await lists.count(), 2);
  assert.deepEqual(await lists.nth(1).locator('[data-testid="exchange"]').evaluateAll((ls) => ls.map((l) => l.dataset.exchange)), ["", "amq.fanout"]);
  assert.deepEqual(await lists.nth(0).locator('[data-testid="exchange"]').evaluateAll((ls) => ls.map((l) => l.dataset.exchange)), ["", "broadcast", "dlx", "docs", "events", "orders", "unrouted"]);

  t.step = "awkward links stay readable: a self-binding, dead-lettering to the default exchange, missing exchanges, long names, many consumers";
  for (const line of [
    "declare exchange loop topic",
    "bind exchange loop loop 'again.#'",
    "declare exchange a-really-quite-long-exchange-name-for-testing direct ae=nowhere",
    "declare exchange later x-delayed-message delayed-type=topic",
    "declare queue retry.with.a.very.long.queue.name.indeed dlx='' dlrk=q2 ttl=5s",
    "declare queue work dlx=ghost",
    "bind q2 a-really-quite-long-exchange-name-for-testing a.very.long.routing.key.that.goes.on.and.on.and.on",
    "bind q2 later 'x.*'",
    "bind work amq.headers x-match=any a=1 b=2",
    ...Array(8).fill("consume q2"),
  ])
    await run(page, line);
  await v2.locator('[data-testid="diagram-binding-loop-loop"]').waitFor();
  for (const x of ["ghost", "nowhere"]) assert.match(await v2.locator(`[data-testid="diagram-exchange-${x}"]`).getAttribute("class"), /\bmissing\b/);
  assert.equal(await v2.locator('[data-testid="diagram-link-dlx-retry.with.a.very.long.queue.name.indeed"]').getAttribute("data-to"), "x:");
  assert.match(await v2.locator('[data-testid="diagram-queue-q2"]').textContent(), /\+2/);
  assertReadable(await measure(page, "v2"), "vhost v2");
  await page.setViewportSize({ width: 2000, height: 1400 }); // wide enough for all of it
  await v2.screenshot({ path: path.join(artifacts, "topology-awkward.png") });
  await page.setViewportSize({ width: 1400, height: 1400 });
  await run(page, "use app");

  t.step = "in Chinese on a phone: readable, no overlaps, scrolls in its own box";
  const zh = await open(base + "/playground?lang=zh-CN");
  await build(zh, [...DECLARE, ...BIND]);
  assert.deepEqual(await zh.locator('[data-testid="diagram-legend"] text').allTextContents(), ["绑定（路由键）", "死信", "备用交换机", "消费者"]);
  assert.match(await tid(zh, "diagram-exchange-").locator("title").textContent(), /^默认交换机/);
  assert.match(await tid(zh, "diagram-queue-orders.eu").getAttribute("aria-label"), /^队列 orders\.eu：.*。连线：绑定 orders → 队列 orders\.eu，键 eu；队列 orders\.eu 的死信以路由键 failed 发往交换机 dlx。$/);
  await zh.setViewportSize({ width: 1400, height: 1400 });
  const mz = await measure(zh);
  assertReadable(mz, "zh-CN desktop");
  assertLabels(mz);
  await zh.setViewportSize({ width: 390, height: 844 });
  const phone = await zh.evaluate(() => {
    const svg = document.querySelector('svg[data-testid="diagram"]');
    const wrap = svg.parentElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll("text")].map((e) => parseFloat(getComputedStyle(e).fontSize) * scale);
    return { pageOverflow: document.documentElement.scrollWidth - innerWidth, wrap: [wrap.scrollWidth, wrap.clientWidth], scale, smallest: Math.min(...sizes) };
  });
  assert.ok(phone.pageOverflow <= 0, `the page is ${phone.pageOverflow}px wider than the phone`);
  assert.ok(phone.smallest >= 9.5, `the smallest text is drawn ${phone.smallest}px high on a phone (scale ${phone.scale})`);
  assert.ok(phone.wrap[0] > phone.wrap[1], `the diagram scrolls in its own box: ${phone.wrap}`);
  assertReadable(await measure(zh), "zh-CN phone");
  // A box out of view comes into view when it takes the focus.
  await tid(zh, "diagram-queue-unrouted.orders").focus();
  const seen = await zh.evaluate(() => {
    const box = document.activeElement.querySelector("rect.box").getBoundingClientRect();
    const wrap = document.activeElement.closest(".diagram-wrap").getBoundingClientRect();
    return box.left >= wrap.left - 0.5 && box.right <= wrap.right + 0.5;
  });
  assert.ok(seen, "the focused queue scrolled into view");
  await shot(zh, "topology-phone-zh-CN");
  await tid(zh, "diagram-exchange-").focus();
  await tid(zh, "diagram").scrollIntoViewIfNeeded();
  await shot(zh, "topology-phone-zh-CN-left");
  await zh.close();
});
