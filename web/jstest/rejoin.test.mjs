// rejoin.js: a joined page whose socket dropped keeps trying to join
// again, with pauses that double up to a limit, until a close says it
// cannot help.
import { test } from "node:test";
import assert from "node:assert/strict";
import { closeKey, joinsAgain, rejoinPause, REJOIN_PAUSE_MAX_MS } from "../static/playground/rejoin.js";

test("the pause doubles from half a second and stops growing at the limit", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map(rejoinPause), [500, 1000, 2000, 4000, 8000, 16000, 30000]);
  assert.equal(rejoinPause(1000), REJOIN_PAUSE_MAX_MS);
});

test("a dropped joined page tries again, and goes on trying while the server is down", () => {
  assert.equal(joinsAgain({ wasJoined: true, drops: 0, ended: false, reason: "" }), true);
  // The try got no welcome (the socket never opened): still trying.
  for (const drops of [1, 2, 10, 100]) assert.equal(joinsAgain({ wasJoined: false, drops, ended: false, reason: "" }), true);
  // Dropped for falling behind, or a participant the woken session no longer has.
  assert.equal(joinsAgain({ wasJoined: true, drops: 0, ended: false, reason: "tooSlow: too slow: the page fell behind" }), true);
  assert.equal(joinsAgain({ wasJoined: true, drops: 0, ended: false, reason: "pageGone: the session no longer has this page: join again" }), true);
});

test("a page never joined, an ended session and a final close do not try again", () => {
  assert.equal(joinsAgain({ wasJoined: false, drops: 0, ended: false, reason: "sessionFull: the session is full" }), false);
  assert.equal(joinsAgain({ wasJoined: true, drops: 0, ended: true, reason: "closed: the session ended: it was closed" }), false);
  for (const reason of ["noSession: no session has this id (it may have ended)", "crossSite: x", "textOnly: x", "badName: x", "badRole: x"]) {
    assert.equal(joinsAgain({ wasJoined: true, drops: 3, ended: false, reason }), false, reason);
  }
});

test("the key is what stands before the colon of a keyed reason", () => {
  assert.equal(closeKey("noSession: no session has this id"), "noSession");
  assert.equal(closeKey(""), "");
  assert.equal(closeKey("going away"), "");
  assert.equal(closeKey(undefined), "");
});
