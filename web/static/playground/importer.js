// Importing a RabbitMQ definitions document: its lines (definitions.js)
// run one by one through run(), so they enter the log (and share links
// and rewind) like typed lines, stopping at the first that fails.
import { $ } from "./dom.js";
import { UserError } from "./words.js";
import { definitionsLines } from "./definitions.js";
import { entries } from "./session.js";
import { run } from "./app.js";
import { guard } from "./console.js";

function importCount(n, word) {
  return `${n} ${n === 1 ? word : word.endsWith("y") ? `${word.slice(0, -1)}ies` : `${word}s`}`;
}

function importDefinitions(text) {
  const status = $("import-status");
  status.classList.remove("error");
  try {
    if (text.trim() === "") throw new UserError("nothing to import: choose a file or paste a definitions JSON");
    const { lines, counts } = definitionsLines(text);
    for (const [i, line] of lines.entries()) {
      run(line);
      const r = entries.at(-1)?.result;
      // A script error, or an AMQP exception: an "error:" line in the output.
      const failure = r?.error || /^error: .*$/m.exec(r?.output ?? "")?.[0].slice("error: ".length);
      if (failure) throw new UserError(`line ${i + 1} of ${lines.length} failed: ${line}\n${failure}`);
    }
    const what = [];
    if (counts.vhosts) what.push(importCount(counts.vhosts, "vhost"));
    what.push(importCount(counts.exchanges, "exchange"), importCount(counts.queues, "queue"), importCount(counts.bindings, "binding"), importCount(counts.policies, "policy"));
    status.textContent = `imported ${what.join(", ")}`;
  } catch (e) {
    status.textContent = `import failed: ${e.message}`;
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
