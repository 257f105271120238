// The browser tests' shared frame: Debian's chromium through playwright-core
// with a fresh profile (RECIPES.md's flags), the artifacts folder, a watch
// that turns page errors, console errors and requests to other hosts into
// problems, the try/finally that reports the failing step, prints "ok"
// when all held, and always closes the browser and removes the profile, and
// englishRuns, which finds English left on a Chinese page.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// artifacts is where screenshots go: ./artifacts, or E2E_ARTIFACTS when a
// test runs a script against another server (the edge worker's test).
export const artifacts = process.env.E2E_ARTIFACTS || path.join(path.dirname(fileURLToPath(import.meta.url)), "artifacts");

// launch starts chromium on a fresh profile; close ends it and removes the
// profile. locale, when given, is the browser's language (Accept-Language
// and navigator.languages); chromium's own is en-US.
export async function launch({ viewport = { width: 1400, height: 1000 }, timeout = 10000, locale } = {}) {
  const profile = await mkdtemp(path.join(os.tmpdir(), "warren-web-e2e-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport,
    ...(locale ? { locale } : {}),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context.setDefaultTimeout(timeout);
  // A page load fetches some fifty modules and the engine's wasm; under
  // make test's parallel packages, from workerd, that once took more than
  // ten seconds on 2 cores. Loads get at least 30 s: the scripts check
  // what a page does, the benchmarks how fast it loads.
  const loadTimeout = Math.max(timeout, 30000);
  context.setDefaultNavigationTimeout(loadTimeout);
  const close = async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  };
  return { context, close, loadTimeout };
}

// runTest runs body(t) against the server at process.argv[2]. t holds
// base, context, problems, watch(page), shot(page, name), open(url, init) and step, which
// body sets to name what it is doing, so a failure says where it was.
export async function runTest(script, opts, body) {
  const base = process.argv[2];
  if (!base) throw new Error(`usage: node ${script} BASE_URL`);
  await mkdir(artifacts, { recursive: true });
  const { context, close, loadTimeout } = await launch(opts);
  const t = {
    base,
    context,
    step: "start",
    problems: [],
    watch(page) {
      page.on("pageerror", (e) => t.problems.push(`page error: ${e.message}`));
      page.on("console", (m) => m.type() === "error" && t.problems.push(`console error: ${m.text()}`));
      // Nothing but this server: the engine runs in the page.
      page.on("request", (r) => {
        if (!r.url().startsWith(base)) t.problems.push(`request outside the server: ${r.url()}`);
      });
    },
    shot: (page, name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true }),
    // open loads url in a new watched page of the context and waits, as
    // long as a load may take, for the page to be ready; init runs in the
    // page before its scripts.
    async open(url, init) {
      const page = await context.newPage();
      t.watch(page);
      if (init) await page.addInitScript(init);
      await page.goto(url);
      await page.waitForSelector("body[data-ready=true]", { timeout: loadTimeout });
      return page;
    },
  };
  try {
    await body(t);
    assert.deepEqual(t.problems, []);
    console.log("ok");
  } catch (e) {
    console.error(`failed at "${t.step}": ${e.stack || e}`);
    if (t.problems.length) console.error(t.problems.join("\n"));
    process.exitCode = 1;
  } finally {
    await close();
  }
}

// englishRuns returns the visible text of the page's main element that
// holds three or more English words in a row, outside code (code, pre,
// .mono, translate="no", the event kinds) and outside the English terms
// Chinese text gives in full-width parentheses on first use: on a Chinese
// page, each is a string that was not translated. The diagram's message
// tokens are skipped too: they live for an animation, and their titles
// quote message bodies, the learner's data.
export const englishRuns = (page) =>
  page.evaluate(() => {
    const skip = "code, pre, .mono, [translate=no], .kind, .tokens, script, style, option, [hidden]";
    const out = [];
    const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest(skip)) continue;
      const s = n.textContent.replace(/（[^（）]*）/g, "");
      const m = /[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*){2,}/.exec(s);
      if (m) out.push(`${m[0]} ← ${n.textContent.trim().slice(0, 120)}`);
    }
    for (const e of document.querySelectorAll("main [title], main [aria-label], main [placeholder]")) {
      if (e.closest(skip)) continue;
      for (const a of ["title", "aria-label", "placeholder"]) {
        const v = (e.getAttribute(a) ?? "").replace(/（[^（）]*）/g, "");
        const m = /[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*){2,}/.exec(v);
        if (m) out.push(`${a}: ${m[0]} ← ${v.slice(0, 120)}`);
      }
    }
    return out;
  });
