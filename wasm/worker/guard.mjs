// The edge's guard: warren serve's rules for every state-changing
// request (server/httpguard, whose doc says why), applied by entry.mjs
// before anything else sees a request, since the edge's state-changing
// endpoints (creating a session, a session's clock and DELETE) are
// answered in JavaScript and in the session objects, which no Go handler
// fronts. The replies are warren serve's to the letter: the hub's key,
// its values and its English text, which TEMPLATES keeps as
// engine/hub's catalog has it (guard_test.go checks that, and the edge
// test sends the same requests to both).
//
//  1. A request a browser marks as coming from another site is 403:
//     Sec-Fetch-Site other than same-origin or none, or, without it, an
//     Origin whose host is not the request's.
//  2. A body is JSON: Content-Type application/json, or 415.

export const TEMPLATES = {
  crossSite: "refused: a page of another site ({from}) may not change anything here; Warren takes changes only from its own pages ({own}) and from clients that are not browsers",
  notJSON: "the body must be JSON, sent with Content-Type: application/json (this request's Content-Type is \"{type}\")",
};

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
const KINDS = { 403: "not_authorised", 415: "unsupported_media_type" };

// refuse returns the reply that refuses req, or null when it may go on.
export function refuse(req) {
  if (SAFE.has(req.method)) return null;
  const url = new URL(req.url);
  const site = req.headers.get("Sec-Fetch-Site") ?? "";
  const origin = req.headers.get("Origin") ?? "";
  if (site !== "" ? site !== "same-origin" && site !== "none" : origin !== "" && originHost(origin) !== url.host) {
    return reply(403, "crossSite", { from: origin !== "" ? origin : `Sec-Fetch-Site: ${site}`, own: url.origin });
  }
  if (req.body === null || req.headers.get("Content-Length") === "0") return null;
  const type = req.headers.get("Content-Type") ?? "";
  if (type.split(";")[0].trim().toLowerCase() !== "application/json") return reply(415, "notJSON", { type });
  return null;
}

// originHost is the host an Origin names ("" for one that names none,
// such as "null").
function originHost(origin) {
  try {
    return new URL(origin).host;
  } catch {
    return "";
  }
}

function reply(status, key, args) {
  const reason = TEMPLATES[key].replace(/\{(\w+)\}/g, (_, name) => args[name] ?? "");
  return new Response(JSON.stringify({ args, error: KINDS[status], key, reason }), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-cache" },
  });
}
