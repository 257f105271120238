// scripterror.js says what the engine's script runner answers in the
// page's language: its errors (a mistyped command, a bad option, a failed
// check) and the help overview. The engine stays English: the bridge
// sends each error's English text (error) and the same as data
// (errorDetail: a key, named values, the fields a check found different,
// and the error it wraps), and the catalog's js.scriptError.KEY entry says
// it here, as engine/script's own templates say it in English. These keys
// are built from the data, not written out; web's tests check that the
// catalogs have one entry for each key the engine lists. A key the
// catalog lacks falls back to the English text. scriptErrors makes the
// functions for a translator (i18n.js), so that web/jstest checks them
// under Node in both languages; this module exports the page's.
import * as i18n from "./i18n.js";

// scriptErrors returns {errorText, helpText, usageText, showText} in tr's
// language.
export function scriptErrors({ t, has, list }) {
  // errorText returns a result's (or a checked line's) error in the page's
  // language, or "" when it has none.
  function errorText(r) {
    if (!r?.error) return "";
    return (r.errorDetail && detailText(r.errorDetail)) ?? r.error;
  }

  // detailText renders an error detail, or null when the catalog lacks a key
  // it needs.
  function detailText(d) {
    const key = `js.scriptError.${d.key}`;
    if (!has(key)) return null;
    const vars = { ...d.args };
    if (d.cause) {
      vars.cause = detailText(d.cause);
      if (vars.cause === null) return null;
    }
    if (d.mismatches) {
      vars.mismatches = list(
        d.mismatches.map((m) => t("js.scriptError.mismatch", { field: m.field, got: m.absent ? t("js.scriptError.absent") : m.got, want: m.want })),
      );
    }
    return t(key, vars);
  }

  // helpText renders the help overview: each group's title and commands on
  // one line, the titles padded to one width (a Chinese character takes two
  // columns), then how to ask about one command.
  function helpText(help) {
    const labels = help.groups.map((g) => {
      const key = `js.scriptHelp.group.${g.key}`;
      return t("js.scriptHelp.label", { group: has(key) ? t(key) : g.title });
    });
    const width = Math.max(...labels.map(columns));
    const lines = help.groups.map((g, i) => `${labels[i]}${" ".repeat(width - columns(labels[i]))} ${g.verbs.join(", ")}`);
    return [...lines, t("js.scriptHelp.more")].join("\n");
  }

  // usageText renders what help COMMAND printed: each usage line without the
  // engine's English aside ("   (its messages, head first)"), followed by the
  // help panel's description of that command in the page's language (the
  // catalog's help.VERB entry, VERB's words joined by "_": help.show_queue).
  // A line whose command the catalog does not describe stays as printed.
  function usageText(output) {
    return output
      .split("\n")
      .map((line) => {
        const [usage] = line.split("   (");
        const words = usage.split(" ");
        const key = [`help.${words[0]}_${words[1]}`, `help.${words[0]}`].find(has);
        return key ? `${usage.trimEnd()}\n    ${t(key)}` : line;
      })
      .join("\n");
  }

  // showText says in the page's language the few lines of prose that show
  // and step print among their key=value lines: that a list is empty, that
  // nothing is scheduled, and where show cut a long list (engine/script
  // ShowLimit). Every other line stays as the engine printed it.
  function showText(output) {
    const whole = {
      "no queues": () => t("js.scriptShow.noQueues"),
      "no bindings": () => t("js.scriptShow.noBindings"),
      "no consumers": () => t("js.scriptShow.noConsumers"),
      "no policies": () => t("js.scriptShow.noPolicies"),
      "nothing scheduled": () => t("js.scriptShow.nothingScheduled"),
    };
    const cuts = {
      messages: (v) => t("js.scriptShow.cut.messages", v),
      deliveries: (v) => t("js.scriptShow.cut.deliveries", v),
      timers: (v) => t("js.scriptShow.cut.timers", v),
    };
    return output
      .split("\n")
      .map((line) => {
        if (whole[line]) return whole[line]();
        const m = /^ {2}\.\.\. (\d+) more (messages|deliveries|timers) not shown \(output cut: show lists the first (\d+)\)$/.exec(line);
        return m ? `  ${cuts[m[2]]({ n: m[1], first: m[3] })}` : line;
      })
      .join("\n");
  }

  return { errorText, helpText, usageText, showText };
}

export const { errorText, helpText, usageText, showText } = scriptErrors(i18n);

// columns is how wide a monospace font draws s.
function columns(s) {
  let n = 0;
  for (const ch of s) n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  return n;
}
