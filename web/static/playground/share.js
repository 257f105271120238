// Share links and downloads. A share link carries the whole log in its
// fragment (#s=, base64url of the lines joined by newlines), so opening it
// replays the session in the page: nothing is stored anywhere else. It
// carries the page's language too (?lang=), so that it opens in the
// language it was made in.
import { t, lang } from "../i18n.js";
import { $, el, say } from "./dom.js";
import { UserError } from "./words.js";
import { logLines, commitPending, replayTo } from "./session.js";
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
    say(t("js.share.damaged"), true);
    return null;
  }
}

// fragment is the session as a share link's fragment, or null when it is
// too long for one (or the log is empty: nothing to carry). It is the
// page's copy of the log, so it works even after the engine died.
export function fragment() {
  const log = logLines;
  if (!log.length) return null;
  const frag = `#s=${encodeLines(log)}`;
  return frag.length > MAX_SHARE_CHARS ? null : frag;
}

export function wireShare() {
  // A share link opened in this tab over the page (only the fragment
  // differs, so the page does not load again) opens its session too.
  window.addEventListener(
    "hashchange",
    guard(() => {
      const lines = sharedLines();
      if (!lines || lines.join("\n") === logLines.join("\n")) return;
      if (replayTo(lines, lines.length)) say(t("js.status.readyShared", { n: lines.length }));
      render();
    }),
  );
  $("share").addEventListener(
    "click",
    guard(() => {
      commitPending();
      const frag = `#s=${encodeLines(logLines)}`;
      if (frag.length > MAX_SHARE_CHARS) throw new UserError(t("js.share.tooLong", { n: frag.length }));
      const u = new URL(location.pathname, location.origin);
      u.searchParams.set("lang", lang);
      u.hash = frag;
      const url = u.href;
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
      const blob = new Blob([logLines.map((l) => `${l}\n`).join("")], { type: "text/plain" });
      const a = el("a", { href: URL.createObjectURL(blob), download: "warren-session.txt" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      render();
    }),
  );
}
