// The edge worker's entry module (wrangler.toml's main). The site's pages
// go to the Go handler (main.go, built into build/app.wasm; build/worker.mjs,
// which workers-assets-gen writes when `make edge` runs, starts a fresh Go
// instance for each request). A shared session's requests go to its
// Durable Object (session.mjs), which this module exports, by the session's
// id: a Go handler cannot answer a WebSocket upgrade, and only JavaScript
// can reach a Durable Object's sockets. Every request passes the guard
// first (guard.mjs, warren serve's server/httpguard).
//
// Ids: a session's read-only id is 22 characters of base64url (128 random
// bits) and names its object; its editor id is the read-only id followed
// by 22 more (another 128 random bits), so that either id finds the object
// while the read-only one does not give the editor's away.
import worker from "./build/worker.mjs";
import { refuse } from "./guard.mjs";
import { noSuchSession } from "./session.mjs";
export { Session } from "./session.mjs";

const ID = /^[A-Za-z0-9_-]{22}(?:[A-Za-z0-9_-]{22})?$/;
const SESSION_PAGE = /^\/s\/([^/]+)\/?$/;
// NO_SESSION_PATH is where the Go handler answers with the page that says
// no session has the id, as 404 (site.NoSessionPath).
const NO_SESSION_PATH = "/_no-session";
const SESSION_PATH = /^\/(?:api\/sessions\/([^/]+)(?:\/clock|\/history)?|ws\/sessions\/([^/]+)|ws\/amqp\/([^/]+))\/?$/;

const json = (status, body, headers = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache", ...headers } });

// randomId is 128 random bits in unpadded base64url: 22 characters.
function randomId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// amqpUser is a session's own AMQP user, as warren serve names one.
function amqpUser() {
  const b = crypto.getRandomValues(new Uint8Array(6));
  return "session-" + [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

// maxCreateBody bounds POST /api/sessions (a seed of 2000 lines of 4 KiB,
// as warren serve takes).
const maxCreateBody = 2000 * 4096 + (64 << 10);

// create makes a session: its ids and AMQP login here, the session in its
// object (session.mjs init).
async function create(req, env) {
  const text = await req.text();
  if (text.length > maxCreateBody) return json(413, { error: "bad_request", reason: `the body may be ${maxCreateBody} bytes at most` });
  let body = {};
  if (text.trim() !== "") {
    try {
      body = JSON.parse(text);
    } catch (e) {
      return json(400, { error: "bad_request", reason: `the body is not a JSON object of name, clock and lines: ${e.message}` });
    }
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return json(400, { error: "bad_request", reason: "the body is not a JSON object of name, clock and lines" });
  }
  const readOnlyId = randomId();
  const config = {
    id: readOnlyId + randomId(),
    readOnlyId,
    name: typeof body.name === "string" ? body.name : "",
    clock: typeof body.clock === "string" ? body.clock : "",
    lines: Array.isArray(body.lines) ? body.lines.map(String) : [],
    createdMs: Date.now(),
    login: { user: amqpUser(), password: randomId(), vhost: "/", webSocket: `/ws/amqp/${readOnlyId}` },
  };
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(readOnlyId));
  return stub.fetch("https://session/init", { method: "POST", body: JSON.stringify(config) });
}

// sessionExists asks the object an id names whether it holds that
// session. It costs one request to the object and a row read there (the
// session is not started), as the page's join will again a moment later;
// an id no object holds makes an empty object, as a join to it does.
async function sessionExists(env, id) {
  if (!ID.test(id)) return false;
  const res = await env.SESSIONS.get(env.SESSIONS.idFromName(id.slice(0, 22))).fetch(`https://session/exists/${id}`);
  return res.status === 204;
}

export default {
  async fetch(req, env, ctx) {
    // No change from a page of another site, no body that is not JSON
    // (guard.mjs), whichever endpoint it is for.
    const refused = refuse(req);
    if (refused) return refused;
    const url = new URL(req.url);
    // A shared session's page: the playground for a session that runs;
    // for an id that never was or whose session ended, 404 with a page
    // that says so, as warren serve answers.
    const page = SESSION_PAGE.exec(url.pathname);
    if (page && (req.method === "GET" || req.method === "HEAD") && !(await sessionExists(env, page[1]))) {
      const gone = new URL(req.url);
      gone.pathname = NO_SESSION_PATH;
      return worker.fetch(new Request(gone, req), env, ctx);
    }
    if (url.pathname === "/api/sessions" || url.pathname === "/api/sessions/") {
      if (req.method === "POST") return create(req, env);
      return json(405, { error: "method_not_allowed", reason: "the edge keeps no list of its sessions: POST creates one" }, { Allow: "POST" });
    }
    const m = SESSION_PATH.exec(url.pathname);
    if (m) {
      const id = m[1] ?? m[2] ?? m[3];
      if (!ID.test(id)) return noSuchSession(req);
      return env.SESSIONS.get(env.SESSIONS.idFromName(id.slice(0, 22))).fetch(req);
    }
    return worker.fetch(req, env, ctx);
  },
};
