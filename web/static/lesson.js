// lesson.js drives a lesson page: it shows one step at a time, runs the
// step's lines through the playground (globalThis.playground, announced by
// static/playground/main.js with the warren:ready event), and checks a step with
// warren.check, which runs the step's expect lines in the page's engine
// without logging them. The lines judge the broker's state as it is, as
// lessons.Check does in Go: looking around or running a harmless line
// before Check does not undo a step. Like the playground's modules it holds
// no engine logic: the lines and what they mean come from the lesson
// (lessons/content) and the engine. Its messages come from the page
// language's catalog (i18n.js), a failed check line's reason too
// (scripterror.js).
import { t } from "./i18n.js";
import { errorText } from "./scripterror.js";

const data = JSON.parse(document.getElementById("lesson-data").textContent);
const $ = (id) => document.getElementById(id);
const articles = [...document.querySelectorAll("article.lesson-step")];
const links = [...document.querySelectorAll("button.step-link")];
let pg = null; // the playground's api, once the engine runs
let current = 0;
const passed = new Set(); // steps whose check passed in this page

function stepFromURL() {
  const n = Number(new URLSearchParams(location.search).get("step"));
  return Number.isInteger(n) && n >= 1 && n <= data.steps.length ? n - 1 : 0;
}

function stepURL(i) {
  const u = new URL(location.href);
  u.searchParams.set("step", String(i + 1));
  return u;
}

// show makes step i the visible one. It changes no state.
function show(i) {
  current = i;
  articles.forEach((a, j) => (a.hidden = j !== i));
  links.forEach((b, j) => {
    if (j === i) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
    b.classList.toggle("done", passed.has(j));
  });
  $("lesson-prev").disabled = i === 0;
  $("lesson-next").disabled = i === data.steps.length - 1;
  $("lesson-check").disabled = data.steps[i].check.length === 0;
  result("", "");
  history.replaceState(null, "", stepURL(i).pathname + stepURL(i).search + location.hash);
}

function result(text, kind, lines = []) {
  const r = $("lesson-result");
  r.className = `lesson-result ${kind}`;
  r.replaceChildren();
  if (text) r.append(Object.assign(document.createElement("p"), { textContent: text }));
  if (lines.length) {
    const ul = document.createElement("ul");
    for (const l of lines) {
      const li = document.createElement("li");
      li.className = l.error ? "fail" : "pass";
      li.dataset.testid = "lesson-check-line";
      const code = Object.assign(document.createElement("code"), { textContent: l.line });
      li.append(l.error ? "✗ " : "✓ ", code);
      if (l.error) li.append(Object.assign(document.createElement("div"), { className: "why", textContent: errorText(l) }));
      ul.append(li);
    }
    r.append(ul);
  }
}

// rebuild replays the state step i starts from, as if every earlier step
// had been done as written.
function rebuild(i) {
  if (!pg.replay(data.steps[i].before)) return false;
  pg.say(i === 0 ? t("js.lesson.ready") : t("js.lesson.rebuilt", { n: i + 1 }));
  return true;
}

function goTo(i) {
  if (i === current) return;
  if (rebuild(i)) show(i);
}

function next() {
  const i = current + 1;
  if (i >= data.steps.length) return;
  const checks = data.steps[current].check;
  if (checks.length === 0 || pg.warren.check(checks).passed) {
    // The step is done in the broker as it is now: carry on from what the
    // learner built, running only the next step's setup.
    for (const line of data.steps[i].setup) pg.run(line);
    show(i);
    return;
  }
  if (rebuild(i)) {
    show(i);
    result(t("js.lesson.notDone", { n: current }), "info");
  }
}

function check() {
  const step = data.steps[current];
  const r = pg.warren.check(step.check);
  if (r.error) return result(t("js.lesson.checkError", { error: r.error }), "fail");
  if (r.passed) {
    passed.add(current);
    show(current);
    const last = current === data.steps.length - 1;
    result(last ? t("js.lesson.doneLast") : t("js.lesson.done"), "pass", r.lines);
    return;
  }
  // Check lines judge the broker's state, never the last line run
  // (lessons.Check proves it), so whatever the learner ran in between, a
  // failed line says what the state lacks.
  result(t("js.lesson.notYet"), "fail", r.lines);
}

function start(api) {
  pg = api;
  links.forEach((b, j) => b.addEventListener("click", () => goTo(j)));
  for (const b of document.querySelectorAll("button.try")) b.addEventListener("click", () => pg.run(b.dataset.line));
  $("lesson-prev").addEventListener("click", () => goTo(current - 1));
  $("lesson-next").addEventListener("click", next);
  $("lesson-check").addEventListener("click", check);
  $("lesson-restart").addEventListener("click", () => rebuild(current) && show(current));
  // The share link keeps the step: the playground writes the session into
  // the fragment, this adds ?step= (the listener runs after share.js's).
  $("share").addEventListener("click", () => {
    const out = $("share-url");
    if (!out.value) return;
    const u = new URL(out.value);
    u.searchParams.set("step", String(current + 1));
    out.value = u.href;
    history.replaceState(null, "", u.pathname + u.search + u.hash);
  });
  const i = stepFromURL();
  if (api.shared) {
    // A share link: the playground replayed its session; only show the step.
    current = -1;
    show(i);
  } else {
    current = -1;
    if (rebuild(i)) show(i);
  }
  document.body.dataset.lessonReady = "true";
}

if (globalThis.playground) start(globalThis.playground);
else document.addEventListener("warren:ready", (e) => start(e.detail), { once: true });
