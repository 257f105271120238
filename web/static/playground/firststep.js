// The guided first step an empty playground opens with (playground.templ's
// firstStep): three lines, each with a Run button that runs it as if typed,
// and the way to lesson 1. It shows when the page opens on an empty
// session, and again after Start fresh; Close hides it.
import { $ } from "./dom.js";
import { run } from "./app.js";
import { guard, remember } from "./console.js";

export function showFirstStep() {
  $("first-step").hidden = false;
}

export function wireFirstStep() {
  const panel = $("first-step");
  for (const b of panel.querySelectorAll("button[data-line]")) {
    b.addEventListener(
      "click",
      guard(() => {
        remember(b.dataset.line);
        run(b.dataset.line);
        b.closest("li").classList.add("done");
      }),
    );
  }
  $("first-step-close").addEventListener("click", () => (panel.hidden = true));
}
