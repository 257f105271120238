// Performance benchmark of the playground page in headless chromium (a
// benchmark, not a test: `make bench-playground` runs it; `make test` does
// not). node perf.mjs BASE_URL [RUNS]. It measures, against the targets of
// the playground issue:
//
//   - load: navigation start → body[data-ready=true] (the page sets it once
//     the engine runs and the first render is done), for a cold load with a
//     fresh profile and for warm reloads (HTTP and wasm code caches);
//   - step: with 20 queues holding 500 messages each (10,000, every queue
//     with its own TTL so there are timers), the Step button's click → the
//     next paint (requestAnimationFrame, then a task after that frame);
//   - play: Play at 100× from that state, every frame's duration for ~5 s
//     of wall time, from a requestAnimationFrame loop in the page.
//
// It also reports what the time goes to where it can tell: the click
// handler's synchronous part, warren.snapshot() alone and the size of its
// JSON, the number of DOM elements, a 4th step's JS self time under the
// CPU profiler and a 5th step's style, layout and paint from a trace. Prints a table and exits 0;
// CHROMIUM names the browser (default /usr/bin/chromium).
import { launch } from "./browser.mjs";

const base = process.argv[2];
if (!base) throw new Error("usage: node perf.mjs BASE_URL [RUNS]");
const runs = Number(process.argv[3] || 1);
const QUEUES = 20;
const PER_QUEUE = 500;
const PLAY_MS = 5000;
const WARM_RELOADS = 3;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

// Recorded in every document before its scripts run: when body gets
// data-ready=true, in ms since navigation start (performance.now()).
function readyProbe() {
  globalThis.__readyAt = null;
  new MutationObserver((_, obs) => {
    if (document.body?.dataset.ready === "true" && globalThis.__readyAt === null) {
      globalThis.__readyAt = performance.now();
      obs.disconnect();
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready"] });
}

async function loadTimes(page) {
  await page.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const wasm = performance.getEntriesByType("resource").find((r) => r.name.endsWith("/warren.wasm"));
    return {
      ready: globalThis.__readyAt,
      dcl: nav.domContentLoadedEventEnd,
      wasmStart: wasm ? wasm.startTime : NaN,
      wasmEnd: wasm ? wasm.responseEnd : NaN,
      wasmTransfer: wasm ? wasm.transferSize : NaN,
    };
  });
}

async function consoleRun(page, line) {
  await page.getByTestId("console-input").fill(line);
  await page.getByTestId("console-input").press("Enter");
  const out = await page.getByTestId("console-output").textContent();
  if (out.includes("error:")) throw new Error(`${line}: ${out}`);
}

// setup fills the broker: queue qNN has TTL (NN+1)×20 s, so the first step
// expires q00's 500 messages at 20 s and leaves 9,500.
function setupLines() {
  const lines = [];
  for (let i = 0; i < QUEUES; i++) {
    const q = `q${String(i).padStart(2, "0")}`;
    lines.push(`declare queue ${q} ttl=${(i + 1) * 20}s`, `publish ${q} m count=${PER_QUEUE}`);
  }
  return lines;
}

// setup runs setupLines through the console, one line at a time, and
// returns the messages queued and the wall time of the last publish line.
async function setup(page) {
  const t0 = Date.now();
  let lastLineMs = 0;
  for (const line of setupLines()) {
    const t = Date.now();
    await consoleRun(page, line);
    lastLineMs = Date.now() - t;
  }
  const totalMs = Date.now() - t0;
  const messages = await page.evaluate(() => {
    const s = globalThis.warren.snapshot();
    return s.vhosts.flatMap((v) => v.queues).reduce((n, q) => n + q.readyCount, 0);
  });
  return { messages, totalMs, lastLineMs };
}

// shareURL is the page with setupLines as a share link (#s=, base64url of
// the lines): the page replays them at load and renders once.
function shareURL() {
  return `${base}/playground#s=${Buffer.from(setupLines().join("\n")).toString("base64url")}`;
}

// stepOnce clicks Step and times it to the next paint. The marks bound the
// step for traceStep.
function stepOnce(page) {
  return page.evaluate(async () => {
    const btn = document.querySelector('[data-testid="step"]');
    performance.mark("warren-step-start");
    const t0 = performance.now();
    btn.click(); // the handler runs synchronously: engine step, snapshot, DOM rebuild
    const t1 = performance.now();
    const t2 = await new Promise((resolve) =>
      requestAnimationFrame(() => {
        // A task queued from rAF runs after this frame's style, layout and paint.
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve(performance.now());
        ch.port2.postMessage(0);
      }),
    );
    performance.mark("warren-step-end");
    return { handler: t1 - t0, paint: t2 - t0 };
  });
}

// traceStep takes one more step under Chrome's tracing and sums, between
// the step's marks, what the CPU profile cannot name: style, layout and
// paint (the native "(program)" time), besides the click handler.
async function traceStep(page) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on("Tracing.dataCollected", (d) => events.push(...d.value));
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.start", { categories: "devtools.timeline,blink.user_timing", transferMode: "ReportEvents" });
  const s = await stepOnce(page);
  await cdp.send("Tracing.end");
  await complete;
  await cdp.detach();
  const mark = (name) => events.find((e) => e.name === name)?.ts;
  const from = mark("warren-step-start"), to = mark("warren-step-end");
  const sum = (...names) => events.filter((e) => e.ph === "X" && e.ts >= from && e.ts <= to && names.includes(e.name)).reduce((ms, e) => ms + e.dur / 1000, 0);
  return { step: s, style: sum("UpdateLayoutTree"), layout: sum("Layout"), paint: sum("PrePaint", "Paint", "Layerize", "Commit") };
}

// profileStep takes one more step under the V8 CPU profiler and sums self
// time by function (native work — style, layout, GC — shows as "(program)"
// or "(garbage collector)"; the wasm engine as wasm-function[...]).
async function profileStep(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  const s = await stepOnce(page);
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.detach();
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) dt.set(profile.samples[i], (dt.get(profile.samples[i]) || 0) + (profile.timeDeltas[i] || 0));
  const self = new Map();
  for (const n of profile.nodes) {
    const name = n.callFrame.functionName || "(anonymous)";
    const key = name.startsWith("wasm-function") || n.callFrame.url.endsWith(".wasm") ? "(wasm engine)" : name;
    self.set(key, (self.get(key) || 0) + (dt.get(n.id) || 0) / 1000);
  }
  self.delete("(idle)");
  // "(program)" is native time, the profiler's own included: traceStep
  // says what of it is the page's.
  self.delete("(program)");
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return { step: s, top };
}

// probe times warren.snapshot() alone and measures its JSON and the DOM.
function probe(page) {
  return page.evaluate(() => {
    const t0 = performance.now();
    const s = globalThis.warren.snapshot();
    const t1 = performance.now();
    return {
      snapshotMs: t1 - t0,
      snapshotBytes: JSON.stringify(s).length,
      ready: s.vhosts.flatMap((v) => v.queues).reduce((n, q) => n + q.readyCount, 0),
      elements: document.getElementsByTagName("*").length,
      queueElements: document.querySelectorAll('[data-testid="queue"] *').length,
      eventLogElements: document.querySelectorAll('[data-testid="entry"] *').length,
    };
  });
}

function play(page, ms) {
  return page.evaluate(async (ms) => {
    document.querySelector('[data-testid="speed"]').value = "100";
    const frames = [];
    const longTasks = [];
    const po = new PerformanceObserver((l) => l.getEntries().forEach((e) => longTasks.push(e.duration)));
    try {
      po.observe({ type: "longtask", buffered: false });
    } catch {}
    const clock = document.querySelector('[data-testid="clock"]');
    const startClock = clock.textContent;
    await new Promise((resolve) => {
      let last = null;
      let start = null;
      const tick = (t) => {
        if (last !== null) frames.push(t - last);
        last = t;
        if (start === null) start = t;
        if (t - start >= ms) return resolve();
        requestAnimationFrame(tick);
      };
      document.querySelector('[data-testid="play"]').click();
      requestAnimationFrame(tick);
    });
    document.querySelector('[data-testid="play"]').click(); // pause
    po.disconnect();
    return { frames, longTasks, startClock, endClock: clock.textContent };
  }, ms);
}

const results = [];
for (let run = 1; run <= runs; run++) {
  const { context, close } = await launch({ timeout: 60000 });
  await context.addInitScript(readyProbe);
  const errors = [];
  try {
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(base + "/playground");
    const cold = await loadTimes(page);
    const warm = [];
    for (let i = 0; i < WARM_RELOADS; i++) {
      await page.reload();
      warm.push(await loadTimes(page));
    }

    const set = await setup(page);
    const messages = set.messages;
    const before = await probe(page);
    const steps = [];
    for (let i = 0; i < 3; i++) {
      steps.push(await stepOnce(page));
      await page.waitForTimeout(100);
    }
    const after = await probe(page);
    const profile = await profileStep(page);
    const traced = await traceStep(page);

    // Play from 10,000 messages again: a fresh page replaying the same lines
    // from a share link (faster than the console).
    const page2 = await context.newPage();
    page2.on("pageerror", (e) => errors.push(e.message));
    await page.close();
    await page2.goto(shareURL());
    await page2.waitForSelector("body[data-ready=true]", { timeout: 120000 });
    const replayReady = await page2.evaluate(() => globalThis.__readyAt);
    const playFrom = await probe(page2);
    const p = await play(page2, PLAY_MS);
    results.push({ run, cold, warm, messages, set, before, steps, after, profile, traced, replayReady, playFrom, play: p, errors });
  } finally {
    await close();
  }
}

const rows = [];
const row = (...c) => rows.push(c);
row("run", "metric", "value", "target", "ok");
for (const r of results) {
  const warmReady = median(r.warm.map((x) => x.ready));
  row(r.run, "load cold: nav start → data-ready (ms)", f(r.cold.ready), "≤ 1500", r.cold.ready <= 1500 ? "yes" : "NO");
  row(r.run, "  of which warren.wasm fetched by (ms)", f(r.cold.wasmEnd), "", "");
  row(r.run, `load warm (median of ${WARM_RELOADS} reloads) (ms)`, f(warmReady), "≤ 1500", warmReady <= 1500 ? "yes" : "NO");
  row(r.run, "  of which warren.wasm fetched by (ms)", f(median(r.warm.map((x) => x.wasmEnd))), "", "");
  row(r.run, `messages queued before stepping`, r.messages, "10000", "");
  row(r.run, "  console setup, 40 lines (ms)", r.set.totalMs, "", "");
  row(r.run, "  console: last publish count=500 line (ms)", r.set.lastLineMs, "", "");
  r.steps.forEach((s, i) =>
    row(r.run, `step ${i + 1}: click → next paint (ms)`, f(s.paint, 1), "< 50", s.paint < 50 ? "yes" : "NO"),
  );
  r.steps.forEach((s, i) => row(r.run, `  step ${i + 1}: click handler, synchronous (ms)`, f(s.handler, 1), "", ""));
  row(r.run, "  warren.snapshot() alone, 10,000 msgs (ms)", f(r.before.snapshotMs, 1), "", "");
  row(r.run, "  snapshot JSON (bytes)", r.before.snapshotBytes, "", "");
  row(r.run, "  DOM elements before / after steps", `${r.before.elements} / ${r.after.elements}`, "", "");
  row(r.run, "  DOM elements in queue cards / event log", `${r.before.queueElements} / ${r.before.eventLogElements}`, "", "");
  row(r.run, `  profiled step 4: click → next paint (ms)`, f(r.profile.step.paint, 1), "", "");
  row(r.run, "  its JS self time by function (ms)", r.profile.top.map(([k, v]) => `${k} ${f(v, 1)}`).join(", "), "", "");
  row(r.run, "  traced step 5: click → next paint / handler (ms)", `${f(r.traced.step.paint, 1)} / ${f(r.traced.step.handler, 1)}`, "", "");
  row(r.run, "  its style / layout / paint (ms)", `${f(r.traced.style, 1)} / ${f(r.traced.layout, 1)} / ${f(r.traced.paint, 1)}`, "", "");
  row(r.run, "share link replaying the 40 lines: nav → data-ready (ms)", f(r.replayReady), "", "");
  row(r.run, "messages queued before play", r.playFrom.ready, "10000", "");
  const fr = r.play.frames;
  const maxF = Math.max(...fr);
  row(r.run, `play 100×: frames in ${PLAY_MS / 1000} s`, fr.length, "", "");
  row(r.run, "play 100×: max frame (ms)", f(maxF, 1), "≤ 100", maxF <= 100 ? "yes" : "NO");
  row(r.run, "play 100×: p99 frame (ms)", f(pct(fr, 99), 1), "", "");
  row(r.run, "play 100×: median frame (ms)", f(median(fr), 1), "", "");
  row(r.run, "play 100×: frames over 100 ms", fr.filter((x) => x > 100).length, "0", "");
  row(r.run, "play 100×: virtual clock", `${r.play.startClock} → ${r.play.endClock}`, "", "");
  if (r.errors.length) row(r.run, "page errors", r.errors.join("; "), "", "");
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join("  ").trimEnd());
if (process.env.PERF_JSON) console.log(JSON.stringify(results.map((r) => ({ ...r, play: { ...r.play, frames: undefined } }))));
process.exit(0);
