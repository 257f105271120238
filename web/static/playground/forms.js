// The command forms: each writes one script line (lines.js) and runs it
// like a typed one, history included.
import { lineFor } from "./lines.js";
import { run } from "./app.js";
import { guard, remember } from "./console.js";

export function wireForms() {
  for (const form of document.querySelectorAll("form.cmd")) {
    form.addEventListener(
      "submit",
      guard((e) => {
        e.preventDefault();
        const line = lineFor(form, e.submitter?.value);
        remember(line);
        run(line);
      }),
    );
  }
}
