// Formatting values for the page: durations of virtual time, field values,
// clipped labels and exchange names. Durations are written as the script
// language writes them (5s, 250ms, 1m30s) in every language, since they
// are what a learner types. fmtMs and exchangeLabel have words in them:
// formatter makes them for a translator (i18n.js), and this module exports
// the page's.
import * as i18n from "../i18n.js";

// formatter returns {fmtMs, exchangeLabel} in tr's language.
export function formatter({ t }) {
  // fmtMs writes a duration of virtual milliseconds as 0s, 250ms, 1.5s,
  // 2m30s or 1h5m; null is never.
  function fmtMs(ms) {
    if (ms === null || ms === undefined) return t("js.never");
    const neg = ms < 0;
    ms = Math.abs(Math.round(ms));
    let out;
    if (ms === 0) out = "0s";
    else if (ms < 1000) out = `${ms}ms`;
    else if (ms < 60000) out = `${+(ms / 1000).toFixed(3)}s`;
    else if (ms < 3600000) out = `${Math.floor(ms / 60000)}m${+((ms % 60000) / 1000).toFixed(3)}s`;
    else out = `${Math.floor(ms / 3600000)}h${Math.floor((ms % 3600000) / 60000)}m`;
    return neg ? `-${out}` : out;
  }

  // exchangeLabel names an exchange; the default exchange's name is empty.
  const exchangeLabel = (name) => (name === "" ? t("js.exchange.default") : name);

  return { fmtMs, exchangeLabel };
}

export const { fmtMs, exchangeLabel } = formatter(i18n);

// typedText writes a field value from the bridge's JSON as the script's
// show msg does (engine.FormatTyped): a string that would read as a
// number, a boolean or void is in single quotes ('1' is not 1), an empty
// one is '', arrays are [a,b] and tables {k:v} by key. A headers exchange
// compares values with their types, so a learner has to see them. JSON
// writes the float 1.0 as 1: for headers, show the bridge's headersText.
export function typedText(v) {
  if (v === null || v === undefined) return "void";
  if (typeof v === "string") return v === "" || looksTyped(v) ? `'${v}'` : v;
  if (Array.isArray(v)) return `[${v.map(typedText).join(",")}]`;
  if (typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${typedText(v[k])}`)
      .join(",")}}`;
  }
  return String(v);
}

// looksTyped says whether a string would read as a number, a boolean or
// void when written bare: Go's strconv.ParseFloat syntax, as the engine
// decides it.
const looksTyped = (s) => s === "true" || s === "false" || s === "void" || /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^[+-]?(inf|infinity|nan)$|^[+-]?0x[\da-f_.]+(p[+-]?\d+)?$/i.test(s);

// clip shortens s to n characters, ending it with … when cut.
export const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const HISTORY_LINE_SHOWN = 72; // characters of a history line the page shows

// lineShown is a log line as the page shows it: a shared session's
// history line (history.js), whose words are a broker's whole state or an
// entry's command records in base64, up to megabytes, cut to its start.
// The log keeps it whole.
export const lineShown = (line) => (line.startsWith("history ") ? clip(line, HISTORY_LINE_SHOWN) : line);
