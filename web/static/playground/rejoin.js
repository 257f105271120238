// When a session page whose socket closed joins again, and after how long
// (live.js). A joined page whose socket dropped — the network, a server
// restarting, the session dropping a page that fell behind — keeps
// trying, each try after a pause twice the last, up to REJOIN_PAUSE_MAX_MS,
// until it is back; only a close that says joining again cannot help
// ends it. Pure, for node --test (web/jstest/rejoin.test.mjs).

export const REJOIN_PAUSE_MS = 500; // before the first try
export const REJOIN_PAUSE_MAX_MS = 30000; // the longest pause between tries

// FINAL_CLOSES are the close reasons' keys (hub.CloseReason: the key of
// a hub error in front of its text) after which joining again cannot
// help: the session is gone, or the page was refused for what it is.
const FINAL_CLOSES = new Set(["noSession", "crossSite", "textOnly", "badName", "badRole"]);

// closeKey is the hub error key in front of a close reason, or "".
export function closeKey(reason) {
  return /^(\w+): /.exec(reason ?? "")?.[1] ?? "";
}

// joinsAgain says whether a page whose socket closed with reason tries to
// join again: it was joined, or it is already trying (drops > 0: a try
// that got no welcome, the server still down, is a drop too), the session
// has not said it ended, and the reason is not final.
export function joinsAgain({ wasJoined, drops, ended, reason }) {
  return !ended && (wasJoined || drops > 0) && !FINAL_CLOSES.has(closeKey(reason));
}

// rejoinPause is how long the page waits before try number drops (0 is
// the first).
export function rejoinPause(drops) {
  return Math.min(REJOIN_PAUSE_MS * 2 ** Math.min(drops, 16), REJOIN_PAUSE_MAX_MS);
}
