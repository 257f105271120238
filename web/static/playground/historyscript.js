// A shared session's history as a script (engine/hub's History.Script):
// the lines to replay, where each is in the file, who did what before
// each, and what the last line's hash check says. Pure: history.js opens
// one in the page. historyScripts makes the functions for a translator
// (i18n.js), so that web/jstest checks them under Node in both languages,
// and this module exports the page's.
import * as i18n from "../i18n.js";
import { UserError } from "./words.js";

export const MAX_HISTORY_LINES = 10000; // the bridge's MaxLogLines: the longest replay

// historyLines splits a history into the lines to run, the number of
// each in the file, and the comment before each: who did what.
export function historyLines(text) {
  const lines = [];
  const numbers = [];
  const notes = new Map();
  let comment = null;
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("#")) {
      comment = line.replace(/^#\s*/, "");
      continue;
    }
    lines.push(line);
    numbers.push(i + 1);
    if (comment !== null) notes.set(line, comment);
    comment = null;
  }
  return { lines, numbers, notes };
}

// historyScripts returns {readHistory, replayedText} in tr's language.
export function historyScripts({ t }) {
  // readHistory is historyLines of text, and first, the entry the history
  // starts after; it throws a UserError when text is not a history the
  // page replays: empty, not starting with history start, or too long.
  function readHistory(text) {
    if (text.trim() === "") throw new UserError(t("js.history.empty"));
    const h = historyLines(text);
    const start = /^history start (\d+) /.exec(h.lines[0] ?? "");
    if (!start) throw new UserError(t("js.history.notHistory"));
    if (h.lines.length > MAX_HISTORY_LINES) throw new UserError(t("js.history.tooLong", { lines: h.lines.length, limit: MAX_HISTORY_LINES }));
    return { ...h, first: Number(start[1]) };
  }

  // replayedText says where replaying lines (a history starting after
  // entry first) left the page, whose hash is h (warren.hash()): the
  // session's state, when the last line is a hash check that h passes,
  // else only the hash reached.
  function replayedText(lines, first, h) {
    const check = /^history hash (\d+) ([0-9a-f]{16})$/.exec(lines.at(-1));
    if (check && Number(check[1]) === h.history && check[2] === h.hash) {
      return first > 0 ? t("js.history.replayedFrom", { first, last: h.history, hash: h.hash }) : t("js.history.replayed", { last: h.history, hash: h.hash });
    }
    return t("js.history.unchecked", { last: h.history ?? 0, hash: h.hash });
  }

  return { readHistory, replayedText };
}

export const { readHistory, replayedText } = historyScripts(i18n);
