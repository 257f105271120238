// Share links and downloads. A share link carries the whole log in its
// fragment (#s=, base64url of the lines joined by newlines), so opening it
// replays the session in the page: nothing is stored anywhere else.
import { $, el, say } from "./dom.js";
import { UserError } from "./words.js";
import { w, commitPending } from "./session.js";
import { render } from "./app.js";
import { guard } from "./console.js";

const MAX_SHARE_CHARS = 60000; // a longer share link is refused (URLs that long break in practice)

function encodeLines(lines) {
  const bytes = new TextEncoder().encode(lines.join("\n"));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeLines(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const text = new TextDecoder().decode(bytes);
  return text === "" ? [] : text.split("\n");
}

// sharedLines is the lines of the share link the page was opened with, or
// null.
export function sharedLines() {
  const m = /^#s=([A-Za-z0-9_-]*)$/.exec(location.hash);
  if (!m) return null;
  try {
    return decodeLines(m[1]);
  } catch {
    say("The share link is damaged: its #s= part is not base64url.", true);
    return null;
  }
}

export function wireShare() {
  $("share").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const frag = `#s=${encodeLines(w.log())}`;
      if (frag.length > MAX_SHARE_CHARS) throw new UserError(`the session is too long to share as a link (${frag.length} characters); download the script instead`);
      const url = `${location.origin}${location.pathname}${frag}`;
      window.history.replaceState(null, "", frag);
      $("share-url").value = url;
      $("share-url").select();
      navigator.clipboard?.writeText(url).catch(() => {});
      render();
    }),
  );
  $("download").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const blob = new Blob([w.log().map((l) => `${l}\n`).join("")], { type: "text/plain" });
      const a = el("a", { href: URL.createObjectURL(blob), download: "warren-session.txt" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      render();
    }),
  );
}
