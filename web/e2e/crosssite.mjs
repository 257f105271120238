// Cross-site requests change nothing (issue 26): a person's browser holds
// guest's Basic credentials for warren serve (they opened an /api/ URL),
// and a page of another site — served here on 127.0.0.2, a distinct site
// from 127.0.0.1 — submits text/plain forms (no script needed) and fetches
// (no-cors and cors, with credentials) whose bodies read as JSON at
// POST /api/definitions (adding an administrator), /api/clock (moving
// time on) and /api/sessions. Every one is refused, 403, and nothing
// changed: no new user, the clock where it was, no session. From the
// server's own page the same requests, sent as application/json, work.
//
// Usage: node crosssite.mjs BASE_URL [sessions-only]. Run by
// server/e2e's TestCrossSiteInChromium against warren serve (manual
// clock), and with sessions-only by wasm/worker's edge test, where the
// edge has sessions and no management API.
import assert from "node:assert/strict";
import http from "node:http";
import { runTest } from "./browser.mjs";

const sessionsOnly = process.argv[3] === "sessions-only";
const guest = "Basic " + Buffer.from("guest:guest").toString("base64");

// The attacks: each a path and a JSON body; a text/plain form sends
// name=value, so the form splits the body where a "=" can go, inside
// a string (the clock's repeated key keeps one key: the last one wins).
const attacks = [
  ...(sessionsOnly
    ? []
    : [
        {
          path: "/api/definitions",
          name: '{"users":[{"name":"mallory","password":"mallory","tags":"administrator"}],"rabbit_version":"',
          value: '"}',
          json: '{"users":[{"name":"mallory","password":"mallory","tags":"administrator"}]}',
        },
        { path: "/api/clock", name: '{"advance":"', value: '","advance":"1h"}', json: '{"advance":"1h"}' },
      ]),
  { path: "/api/sessions", name: '{"name":"', value: 'stolen"}', json: '{"name":"stolen"}' },
];

// The other site's page: a form per attack. A form navigates the whole
// tab: chromium keys its cache of credentials by the top-level site, so
// only a top-level request to the server carries guest's, and a
// subresource or frame of another site's page goes without them.
const attackPage = (base) => `<!doctype html><meta charset="utf-8"><title>another site</title>
${attacks
  .map(
    (a, i) =>
      `<form id="form${i}" method="POST" enctype="text/plain" action="${base}${a.path}"><input type="hidden" name='${a.name.replace(/'/g, "&#39;")}' value='${a.value.replace(/'/g, "&#39;")}'></form>`,
  )
  .join("\n")}`;

// state is what the attacks would change, read as a client that is not
// a browser reads it.
async function state(base) {
  const get = async (path) => {
    const res = await fetch(base + path, { headers: { Authorization: guest } });
    assert.equal(res.status, 200, `GET ${path}`);
    return res.json();
  };
  if (sessionsOnly) return {};
  return {
    users: (await get("/api/users")).map((u) => u.name).sort(),
    nowMs: (await get("/api/clock")).now_ms,
    sessions: (await get("/api/sessions")).length,
  };
}

await runTest("crosssite.mjs", { timeout: 10000 }, async (t) => {
  const other = http.createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(attackPage(t.base));
  });
  await new Promise((ok) => other.listen(0, "127.0.0.2", ok));
  const otherBase = `http://127.0.0.2:${other.address().port}`;
  try {
    t.step = "the browser keeps guest's credentials for the server";
    if (!sessionsOnly) {
      const u = new URL("/api/overview", t.base);
      u.username = u.password = "guest";
      const login = await t.context.newPage();
      const res = await login.goto(u.href);
      assert.equal(res.status(), 200);
      await login.close();
    }
    const before = await state(t.base);

    t.step = "another site's forms (text/plain) are refused";
    const page = await t.context.newPage();
    page.on("pageerror", (e) => t.problems.push(`page error: ${e.message}`));
    for (const [i, a] of attacks.entries()) {
      await page.goto(`${otherBase}/`);
      const answered = page.waitForResponse((r) => r.url() === t.base + a.path && r.request().method() === "POST");
      await page.evaluate((i) => document.getElementById(`form${i}`).submit(), i);
      const res = await answered;
      assert.equal(res.status(), 403, `form at ${a.path}`);
      const headers = await res.request().allHeaders();
      assert.equal(headers["sec-fetch-site"], "cross-site", `form at ${a.path}`);
      assert.equal(headers["content-type"], "text/plain", `form at ${a.path}`);
      assert.equal(await res.request().postData(), `${a.name}=${a.value}\r\n`);
      if (!sessionsOnly) assert.equal(headers.authorization, guest, `form at ${a.path} carried guest's credentials`);
      assert.equal((await res.json()).key, "crossSite");
    }

    t.step = "another site's fetches (no-cors and cors, text/plain and JSON) are refused";
    // These go without guest's credentials (see attackPage), which the
    // management API needs; creating a session needs none.
    await page.goto(`${otherBase}/`);
    for (const a of attacks) {
      for (const mode of ["no-cors", "cors"]) {
        for (const type of ["text/plain", "application/json"]) {
          // A cors fetch as application/json is preflighted, which the
          // server does not allow: the POST itself is never sent.
          if (mode === "cors" && type === "application/json") continue;
          // A refused cors reply has no Access-Control-Allow-Origin: the
          // browser reports the request failed, and shows no status.
          const answered =
            mode === "no-cors"
              ? page.waitForResponse((r) => r.url() === t.base + a.path && r.request().method() === "POST")
              : page.waitForEvent("requestfailed", (r) => r.url() === t.base + a.path && r.method() === "POST");
          const outcome = await page.evaluate(
            ({ url, body, mode, type }) =>
              fetch(url, { method: "POST", mode, credentials: "include", headers: { "Content-Type": type }, body }).then(
                (r) => r.type,
                (e) => `rejected: ${e.message}`,
              ),
            { url: t.base + a.path, body: a.json, mode, type },
          );
          const res = await answered;
          if (mode === "no-cors") assert.equal(res.status(), 403, `${mode} ${type} fetch at ${a.path}`);
          // The page learns nothing: an opaque reply, or a refused cors one.
          assert.match(outcome, mode === "no-cors" ? /^opaque$/ : /^rejected: /, `${mode} fetch at ${a.path}`);
        }
      }
    }
    await page.close();

    t.step = "nothing changed";
    assert.deepEqual(await state(t.base), before);

    t.step = "the server's own page sends the same requests as application/json, and they work";
    const own = await t.context.newPage();
    own.on("pageerror", (e) => t.problems.push(`page error: ${e.message}`));
    await own.goto(`${t.base}/playground`);
    for (const a of attacks) {
      const status = await own.evaluate(
        ({ url, body }) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body }).then((r) => r.status),
        { url: t.base + a.path, body: a.json },
      );
      assert.equal(status, { "/api/definitions": 204, "/api/clock": 200, "/api/sessions": 201 }[a.path], `own page at ${a.path}`);
      // As text/plain the same page is told the body is not JSON.
      const plain = await own.evaluate(
        ({ url, body }) => fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body }).then(async (r) => [r.status, (await r.json()).key]),
        { url: t.base + a.path, body: a.json },
      );
      assert.deepEqual(plain, [415, "notJSON"], `own page at ${a.path} as text/plain`);
    }
    if (!sessionsOnly) {
      const after = await state(t.base);
      assert.deepEqual(after.users, [...before.users, "mallory"].sort());
      assert.equal(after.nowMs, before.nowMs + 3600000);
      assert.equal(after.sessions, before.sessions + 1);
    }
    await own.close();
  } finally {
    other.close();
  }
});
