// Formatting values for the page: durations of virtual time, field values,
// clipped labels and exchange names. Durations are written as the script
// language writes them (5s, 250ms, 1m30s) in every language, since they
// are what a learner types.
import { t } from "../i18n.js";

// fmtMs writes a duration of virtual milliseconds as 0s, 250ms, 1.5s,
// 2m30s or 1h5m; null is never.
export function fmtMs(ms) {
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

// valueText writes a header, property or argument value.
export function valueText(v) {
  if (v === null) return "null";
  if (v === "") return '""';
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// clip shortens s to n characters, ending it with … when cut.
export const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

// exchangeLabel names an exchange; the default exchange's name is empty.
export const exchangeLabel = (name) => (name === "" ? t("js.exchange.default") : name);
