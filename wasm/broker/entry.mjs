// The edge broker's entry module (wasm/broker/wrangler.toml's main): it
// routes every request to the Durable Object of the vhost it is for
// (vhost.mjs), after the guard every Warren endpoint has (the site
// worker's guard.mjs: no change from a page of another site, no body
// that is not JSON).
//
// Where a request goes (docs/edge.md, "The broker at the edge"):
//  - AMQP over WebSocket: /ws/amqp/{vhost} (the vhost URL-encoded, "/"
//    as %2F) to that vhost's object; /ws/amqp to "/". The vhost is in
//    the path because an object is chosen before the first byte of AMQP;
//    connection.open must then name the same vhost.
//  - The management API's paths that name a vhost's exchanges, queues,
//    bindings, policies, consumers, connections or channels, and its
//    definitions, to that vhost's object.
//  - Everything else (overview, users, permissions, vhosts, whoami) to
//    the object of "/", which is also the directory: it holds every
//    user, password hash, tag and permission, and every vhost's name,
//    and hands each vhost's object its copy of them after each change.
//  - A listing of all vhosts' queues (GET /api/queues, and so on) asks
//    each vhost the caller may see and joins the answers, as RabbitMQ
//    lists a cluster's.
import { refuse } from "../worker/guard.mjs";
export { Vhost } from "./vhost.mjs";

const json = (status, body) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" } });

// IN_VHOST are the API's paths whose second segment is a vhost whose own
// object answers them.
const IN_VHOST = /^\/api\/(?:exchanges|queues|bindings|policies|operator-policies|consumers|definitions)\/([^/]+)(?:\/.*)?$/;
const VHOST_LISTS = /^\/api\/vhosts\/([^/]+)\/(?:connections|channels)\/?$/;
// ACROSS are the listings of every vhost's resources.
const ACROSS = /^\/api\/(exchanges|queues|bindings|policies|operator-policies|consumers|connections|channels)\/?$/;
const AMQP = /^\/ws\/amqp(?:\/([^/]+))?\/?$/;

// vhostName decodes a path segment; null when it is not valid encoding.
function vhostName(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

// toVhost sends req to vhost's object. An object whose vhost was never
// created (or was deleted) says so, and the request goes to the
// directory instead, which answers as RabbitMQ does for a vhost that
// does not exist (404, or 530 NOT_ALLOWED at connection.open).
export async function toVhost(env, vhost, req) {
  const res = await stub(env, vhost).fetch(req.clone());
  if (res.headers.get("X-Warren-No-Vhost") !== "1" || vhost === "/") return res;
  return stub(env, "/").fetch(req);
}

export function stub(env, vhost) {
  return { fetch: (req, init) => env.VHOSTS.get(env.VHOSTS.idFromName(vhost)).fetch(withVhost(req, init, vhost)) };
}

// withVhost names the vhost on the request for its object, which does
// not know the name it was made by.
function withVhost(req, init, vhost) {
  const r = new Request(req, init);
  r.headers.set("X-Warren-Vhost", vhost);
  return r;
}

// across answers a listing of every vhost's resources: the vhosts the
// caller may see (the directory's answer, with the caller's credentials),
// each asked with the same query, their arrays joined in vhost order.
async function across(env, req, url, kind) {
  const vurl = new URL(req.url);
  vurl.pathname = "/api/vhosts";
  vurl.search = "";
  const listed = await stub(env, "/").fetch(new Request(vurl, { headers: req.headers }));
  if (listed.status !== 200) return listed;
  const vhosts = (await listed.json()).map((v) => v.name);
  const answers = await Promise.all(
    vhosts.map((name) => {
      const u = new URL(url);
      u.pathname = kind === "connections" || kind === "channels" ? `/api/vhosts/${encodeURIComponent(name)}/${kind}` : `/api/${kind}/${encodeURIComponent(name)}`;
      return toVhost(env, name, new Request(u, { headers: req.headers }));
    }),
  );
  const items = [];
  for (const res of answers) {
    if (res.status !== 200) continue; // a vhost the caller may not see
    const body = await res.json();
    items.push(...(Array.isArray(body) ? body : (body.items ?? [])));
  }
  return json(200, items);
}

export default {
  async fetch(req, env) {
    const refused = refuse(req);
    if (refused) return refused;
    const url = new URL(req.url);
    let m;
    if ((m = AMQP.exec(url.pathname))) {
      const vhost = m[1] === undefined ? "/" : vhostName(m[1]);
      if (vhost === null) return json(400, { error: "bad_request", reason: "the vhost in the path is not URL-encoded text" });
      return toVhost(env, vhost, req);
    }
    if (!url.pathname.startsWith("/api/")) {
      return json(404, { error: "not_found", reason: "Warren's broker at the edge answers /api/ (the management API) and /ws/amqp/{vhost} (AMQP over WebSocket)" });
    }
    if ((m = IN_VHOST.exec(url.pathname) ?? VHOST_LISTS.exec(url.pathname))) {
      const vhost = vhostName(m[1]);
      if (vhost === null) return json(400, { error: "bad_request", reason: "the vhost in the path is not URL-encoded text" });
      return toVhost(env, vhost, req);
    }
    if ((m = ACROSS.exec(url.pathname)) && req.method === "GET") return across(env, req, url, m[1]);
    if (url.pathname.replace(/\/$/, "") === "/api/definitions" && req.method !== "GET" && req.method !== "HEAD") {
      return json(400, {
        error: "bad_request",
        reason: "at the edge, definitions are imported a vhost at a time (POST /api/definitions/{vhost}), users and permissions through /api/users and /api/permissions",
      });
    }
    return stub(env, "/").fetch(req);
  },
};
