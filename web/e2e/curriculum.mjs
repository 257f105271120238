// Browser end-to-end test of the whole curriculum, run by
// web/playground_test.go (TestCurriculumInChromium): node curriculum.mjs
// BASE_URL [SLUG...]. In each language a learner opens the lessons index,
// follows its links to every lesson in turn (or to the lessons SLUG names:
// the edge worker's test does lesson 1 alone), and does each lesson
// through the page alone: for every step, Check first fails (when the
// step has Run buttons), the step's Run buttons run exactly its try lines,
// Check then passes, and the page's Next step button carries on from the
// broker the learner built (no rebuild). The pages are in the language
// chosen (html lang, the catalog's step headings and check results,
// Chinese headings and no English sentence on a Chinese page), and no page
// or console error occurs. Each lesson's last step is saved as
// artifacts/curriculum/LANG/SLUG.png. Prints "ok" and exits 0, or exits 1.
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { artifacts, englishRuns, runTest } from "./browser.mjs";

const LANGS = ["en", "zh-CN"];
const only = process.argv.slice(3);
const han = /\p{Script=Han}/u;

// catalog returns lang's message catalog (web/i18n/LANG.json) as a
// function of a key and its {name} parameters.
async function catalog(lang) {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "i18n", `${lang}.json`);
  const messages = JSON.parse(await readFile(file, "utf8"));
  return (key, params = {}) => {
    assert.ok(key in messages, `${lang} catalog lacks ${key}`);
    return messages[key].replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
  };
}

await runTest("curriculum.mjs", {}, async (t) => {
  const { base, context, watch } = t;
  const tid = (page, id) => page.getByTestId(id);
  // press is a learner's click on a lesson button: a real mouse click at
  // its centre, scrolled into view, without Playwright's wait for the
  // button to hold still over two animation frames, which costs about
  // 100 ms a click on a loaded machine, over a thousand clicks. The steps
  // check what that wait would: the buttons are visible and enabled
  // (unusable), and each click did its work (the log, the result).
  const press = (locator) => locator.click({ force: true });
  // unusable lists the step's buttons a learner could not press: hidden,
  // or disabled (Check is disabled on a step with nothing to check).
  const unusable = (page, checkable) =>
    page.evaluate(
      (checkable) =>
        [...document.querySelectorAll("article.lesson-step:not([hidden]) button.try"), ...(checkable ? [document.getElementById("lesson-check")] : [])]
          .filter((b) => !b.checkVisibility() || b.disabled)
          .map((b) => b.dataset.testid),
      checkable,
    );
  const log = (page) => page.evaluate(() => globalThis.warren.log());
  // result waits for Check's verdict (the result's class) and returns its
  // text and how many check lines passed and failed.
  const result = async (page, kind) => {
    await page.waitForFunction((k) => document.querySelector('[data-testid="lesson-result"]').classList.contains(k), kind);
    return page.evaluate(() => {
      const r = document.querySelector('[data-testid="lesson-result"]');
      return { text: r.textContent, pass: r.querySelectorAll("li.pass").length, fail: r.querySelectorAll("li.fail").length };
    });
  };

  for (const lang of LANGS) {
    const T = await catalog(lang);
    const shots = path.join(artifacts, "curriculum", lang);
    await mkdir(shots, { recursive: true });
    const page = await context.newPage();
    watch(page);

    t.step = `${lang}: the lessons index`;
    await page.goto(`${base}/lessons?lang=${lang}`);
    await page.waitForSelector('[data-testid="lessons"]');
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
    assert.equal(await page.locator("h1").textContent(), T("lessons.h"));
    const lessons = await page
      .locator('[data-testid^="lesson-link-"]')
      .evaluateAll((as) => as.map((a) => ({ slug: a.dataset.testid.replace("lesson-link-", ""), title: a.textContent })));
    assert.ok(lessons.length >= 16, `${lessons.length} lessons on the index`);
    const chosen = only.length ? lessons.filter((l) => only.includes(l.slug)) : lessons;
    assert.equal(chosen.length, only.length || lessons.length, `lessons ${only} on the index`);

    for (const [k, { slug, title }] of chosen.entries()) {
      t.step = `${lang}: lesson ${slug}, from the index`;
      if (k > 0) {
        // Back to the index by the lesson's own crumb; the language holds.
        await page.locator('[data-testid="lesson"] .crumb a').click();
        await page.waitForSelector('[data-testid="lessons"]');
        assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
      }
      await tid(page, `lesson-link-${slug}`).click();
      await page.waitForSelector("body[data-lesson-ready=true]");
      assert.match(page.url(), new RegExp(`/lessons/${slug}\\?`));
      assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
      const h2 = await page.locator("#lesson-h").textContent();
      assert.equal(h2, title, "the lesson's heading is its title on the index");
      if (lang === "zh-CN") assert.match(h2, han, "a Chinese lesson heading");
      const data = await page.evaluate(() => JSON.parse(document.getElementById("lesson-data").textContent));
      assert.equal(data.slug, slug);
      const total = data.steps.length;

      for (const [i, s] of data.steps.entries()) {
        t.step = `${lang}: lesson ${slug}, step ${i + 1} of ${total} (${s.title})`;
        const article = page.locator("article.lesson-step:not([hidden])");
        assert.equal(await article.getAttribute("data-step"), String(i + 1));
        const h3 = await article.locator("h3").textContent();
        assert.equal(h3, T("lesson.step", { n: i + 1, total, title: s.title }));
        if (lang === "zh-CN") assert.match(s.title, han, "a Chinese step heading");
        const tries = article.locator("button.try");
        assert.equal(await tries.count(), s.try.length, "a Run button per try line");
        const check = tid(page, "lesson-check");
        assert.deepEqual(await unusable(page, s.check.length > 0), [], "buttons a learner cannot press");

        if (s.check.length === 0) {
          assert.ok(await check.isDisabled(), "a step with nothing to check has Check disabled");
        } else if (s.try.length > 0) {
          await press(check);
          const before = await result(page, "fail");
          assert.ok(before.text.startsWith(T("js.lesson.notYet")), `before the try lines: ${before.text}`);
          assert.ok(before.fail > 0, "a failed check names a failing line");
        }
        const logged = await log(page);
        for (let j = 0; j < s.try.length; j++) await press(tries.nth(j));
        assert.deepEqual((await log(page)).slice(logged.length), s.try, "the Run buttons run the step's try lines");
        if (s.check.length > 0) {
          await press(check);
          const after = await result(page, "pass");
          const done = i === total - 1 ? T("js.lesson.doneLast") : T("js.lesson.done");
          assert.ok(after.text.startsWith(done), `after the try lines: ${after.text}`);
          assert.deepEqual([after.pass, after.fail], [s.check.length, 0]);
          assert.ok(await tid(page, `lesson-goto-${i + 1}`).evaluate((b) => b.classList.contains("done")), "the step is marked done");
        }
        if (lang === "zh-CN") assert.deepEqual(await englishRuns(page), [], "English on the Chinese page");

        if (i < total - 1) {
          await press(tid(page, "lesson-next"));
          await page.waitForSelector(`article.lesson-step[data-step="${i + 2}"]:not([hidden])`);
          // The step was done in the broker, so Next carries on from it
          // rather than rebuilding the broker (which would say so here).
          assert.equal(await tid(page, "lesson-result").textContent(), "", "Next carried on without a rebuild");
          assert.match(page.url(), new RegExp(`[?&]step=${i + 2}(&|#|$)`));
        }
      }
      assert.ok(await tid(page, "lesson-next").isDisabled(), "the last step has no next step");
      await page.screenshot({ path: path.join(shots, `${slug}.png`), fullPage: true });
    }
    await page.close();
  }
});
