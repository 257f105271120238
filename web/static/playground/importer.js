// Importing a RabbitMQ definitions document: its lines (definitions.js)
// run one by one through run(), so they enter the log (and share links
// and rewind) like typed lines, stopping at the first that fails.
import { t, list } from "../i18n.js";
import { $ } from "./dom.js";
import { UserError } from "./words.js";
import { definitionsLines } from "./definitions.js";
import { entries } from "./session.js";
import { run } from "./app.js";
import { guard } from "./console.js";
import { codeMeaning } from "./explain.js";
import { errorText } from "../scripterror.js";

// countsText is what an import added: "1 exchange, 2 queues, ...".
function countsText(counts) {
  const n = (c, one, other) => t(c === 1 ? one : other, { n: c });
  const what = [];
  if (counts.vhosts) what.push(n(counts.vhosts, "js.import.vhosts.one", "js.import.vhosts.other"));
  what.push(
    n(counts.exchanges, "js.import.exchanges.one", "js.import.exchanges.other"),
    n(counts.queues, "js.import.queues.one", "js.import.queues.other"),
    n(counts.bindings, "js.import.bindings.one", "js.import.bindings.other"),
    n(counts.policies, "js.import.policies.one", "js.import.policies.other"),
  );
  return list(what);
}

function importDefinitions(text) {
  const status = $("import-status");
  status.classList.remove("error");
  try {
    if (text.trim() === "") throw new UserError(t("js.import.empty"));
    const { lines, counts } = definitionsLines(text);
    for (const [i, line] of lines.entries()) {
      run(line);
      const r = entries.at(-1)?.result;
      // A script error, or an AMQP exception: its reply code and text as
      // RabbitMQ sends them (a policy's can run over several lines), and
      // what the code means.
      const e = r?.amqpError;
      const failure = errorText(r) || (e && [`${e.code} ${e.text}`, codeMeaning(e.code).trim()].filter(Boolean).join("\n"));
      if (failure) throw new UserError(t("js.import.lineFailed", { n: i + 1, total: lines.length, line, error: failure }));
    }
    status.textContent = t("js.import.done", { what: countsText(counts) });
  } catch (e) {
    status.textContent = t("js.import.failed", { error: e.message });
    status.classList.add("error");
    if (!(e instanceof UserError)) throw e;
  }
}

export function wireImport() {
  $("import-form").addEventListener(
    "submit",
    guard((e) => {
      e.preventDefault();
      importDefinitions($("import-text").value);
    }),
  );
  $("import-file").addEventListener("change", async (e) => {
    const file = e.target.files?.[0];
    if (!file) return;
    $("import-text").value = await file.text();
    guard(importDefinitions)($("import-text").value);
  });
}
