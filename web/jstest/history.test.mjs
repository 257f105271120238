// historyscript.js reads a shared session's history as engine/hub's
// History.Script writes it: comments saying who did what, then the
// history verbs, and hash lines that check the state on the way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { historyLines, historyScripts, MAX_HISTORY_LINES } from "../static/playground/historyscript.js";
import { UserError } from "../static/playground/words.js";
import { en, zh } from "./catalog.mjs";

// SCRIPT is shaped as History.Script writes one (its doc comment), with
// the records cut short: reading it never decodes them.
const SCRIPT = `# Warren: the history of the shared session "Tuesday class"
# exported at 2026-12-01 21:00 UTC, entry 3, clock manual
history start 0 V1JOUwEB

# 1 @0s Ada: declare queue jobs ttl=30m
history entry 1 FQEB

# 2 @0s AMQP connection c7 (pika 1.3.2, 10.0.0.5:50122)
history entry 2 AQEv KAAA
history hash 2 2d9200697ccb1d30
#   3 @5s the clock
history entry 3 BQEC
history hash 3 81c3a5e0d2f4b967
`;

test("a history's lines, where each is in the file, and who did what", () => {
  const { lines, numbers, notes } = historyLines(SCRIPT);
  assert.deepEqual(lines, [
    "history start 0 V1JOUwEB",
    "history entry 1 FQEB",
    "history entry 2 AQEv KAAA",
    "history hash 2 2d9200697ccb1d30",
    "history entry 3 BQEC",
    "history hash 3 81c3a5e0d2f4b967",
  ]);
  assert.deepEqual(numbers, [3, 6, 9, 10, 12, 13]);
  assert.equal(notes.get("history start 0 V1JOUwEB"), 'exported at 2026-12-01 21:00 UTC, entry 3, clock manual', "the comment just before a line is its note");
  assert.equal(notes.get("history entry 1 FQEB"), "1 @0s Ada: declare queue jobs ttl=30m");
  assert.equal(notes.get("history entry 2 AQEv KAAA"), "2 @0s AMQP connection c7 (pika 1.3.2, 10.0.0.5:50122)");
  assert.equal(notes.get("history entry 3 BQEC"), "3 @5s the clock");
  assert.equal(notes.has("history hash 2 2d9200697ccb1d30"), false);
});

test("what is not a history the page replays says why", () => {
  const { readHistory } = historyScripts(en);
  const fails = (text, key, vars) => assert.throws(() => readHistory(text), (e) => e instanceof UserError && e.message === en.t(key, vars), text.slice(0, 40));
  fails("  \n", "js.history.empty");
  fails("declare queue q\n", "js.history.notHistory");
  fails(`# a comment\n${SCRIPT.split("\n").slice(3).join("\n")}`, "js.history.notHistory");
  const long = `history start 0 X\n${"history entry 1 Y\n".repeat(MAX_HISTORY_LINES)}`;
  fails(long, "js.history.tooLong", { lines: MAX_HISTORY_LINES + 1, limit: MAX_HISTORY_LINES });
  assert.throws(() => historyScripts(zh).readHistory("declare queue q"), (e) => e.message === zh.t("js.history.notHistory"));
  assert.equal(readHistory(SCRIPT).first, 0);
  assert.equal(readHistory(SCRIPT.replace("history start 0", "history start 40")).first, 40);
});

test("the last hash line checks the state the replay reached", () => {
  const { readHistory, replayedText } = historyScripts(en);
  const { lines } = readHistory(SCRIPT);
  const same = { history: 3, hash: "81c3a5e0d2f4b967" };
  assert.equal(replayedText(lines, 0, same), "Replayed the session's history up to entry 3: state hash 81c3a5e0d2f4b967, the session's.");
  assert.equal(replayedText(lines, 2, same), en.t("js.history.replayedFrom", { first: 2, last: 3, hash: same.hash }));
  const other = { history: 3, hash: "0000000000000000" };
  assert.equal(replayedText(lines, 0, other), en.t("js.history.unchecked", { last: 3, hash: other.hash }));
  assert.equal(replayedText(lines.slice(0, -1), 0, { history: 3, hash: "abc" }), en.t("js.history.unchecked", { last: 3, hash: "abc" }), "no hash line last: nothing checked");
  assert.equal(historyScripts(zh).replayedText(lines, 0, same), "已重放会话的历史，直到第 3 条日志：状态哈希 81c3a5e0d2f4b967，与会话的相同。");
});
