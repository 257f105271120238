// The words of a script line, as the forms write them: quoting, and the
// checks on numbers, durations and channel names that say what was wrong
// in the user's own terms. A field is named as its form's label names it.
import { t } from "../i18n.js";

// UserError is a mistake in what the user typed into a form, shown to them;
// any other exception is a bug in this page.
export class UserError extends Error {}

// word quotes a value for the script language when it has to: spaces,
// quotes, #, = or emptiness. Quoting a value makes it a string, so numbers
// and durations are passed bare (see numberWord, durationWord).
export function word(s) {
  s = String(s);
  if (s !== "" && /^[A-Za-z0-9_.\-:\/*@+,\[\]]+$/.test(s) && !s.startsWith("@")) return s;
  return `"${s.replace(/[\\"]/g, "\\$&")}"`;
}

// pairWords reads "k=v n=1 s='1' t=\"a b\"" as the script's key=value
// words, each key after prefix: a value in quotes keeps its quotes and is
// a string; a bare one is passed as typed, so the script types it (1 a
// number, 1.0 a float, true a boolean, [a,b] an array, anything else a
// string), and is quoted only when the script could not read it bare.
// A headers exchange compares values with their types, so the form must
// not turn 1 into '1' or back. bad names the mistake in the user's terms.
export function pairWords(text, prefix, bad) {
  const out = [];
  const pair = /\s*([A-Za-z0-9_.:\/-]+)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']*)(?=\s|$)/y;
  text = text.trim();
  while (pair.lastIndex < text.length) {
    const at = pair.lastIndex;
    const m = pair.exec(text);
    if (!m) throw new UserError(bad(text.slice(at).trim().split(/\s+/)[0]));
    const [, key, value] = m;
    out.push(`${prefix}${key}=${/^["']/.test(value) ? value : value === "" ? '""' : word(value)}`);
  }
  return out;
}

export function numberWord(name, s) {
  if (!/^\d+$/.test(s)) throw new UserError(t("js.err.number", { field: name, value: s }));
  return s;
}

export function durationWord(name, s) {
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d)?)+$/.test(s)) throw new UserError(t("js.err.duration", { field: name, value: s }));
  return s;
}

// channelPrefix is the "@name " that runs a line on a named channel, or
// nothing for the default one.
export function channelPrefix(ch) {
  ch = ch.trim();
  if (ch === "") return "";
  if (!/^[A-Za-z0-9_.\-]+$/.test(ch)) throw new UserError(t("js.err.channel", { value: ch }));
  return `@${ch} `;
}
