// The browser modules' import graph has no cycles. An ES module cycle
// works only while no module in it uses another's binding before that one
// has run, so it breaks silently when an import moves; and a module in a
// cycle cannot be loaded on its own, by a unit test here for one. A module
// that needs to call back up (run a line, render) is handed the function
// when it is wired, instead of importing the module that owns it.
//
// The graph is read from the source: every static import and re-export
// (import … from "x", import "x", export … from "x") and every dynamic
// import("x") with a literal specifier, of every .js file under
// web/static.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const STATIC = resolve(dirname(fileURLToPath(import.meta.url)), "../static");

// modules lists the .js files under root, as paths relative to it.
function modules(root, dir = root) {
  const out = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...modules(root, p));
    else if (d.name.endsWith(".js") && d.name !== "wasm_exec.js") out.push(relative(root, p)); // wasm_exec.js is Go's, a build output
  }
  return out.sort();
}

const SPECIFIERS = [
  /^\s*import\s[^;]*?\bfrom\s*["']([^"']+)["']/gm, // import x from "m", across lines
  /^\s*import\s*["']([^"']+)["']/gm, // import "m"
  /^\s*export\s[^;]*?\bfrom\s*["']([^"']+)["']/gm, // export { x } from "m"
  /\bimport\(\s*["']([^"']+)["']\s*\)/g, // import("m")
];

// importsOf is the modules file (relative to root) imports, relative to root.
export function importsOf(root, file) {
  const src = readFileSync(join(root, file), "utf8");
  const out = new Set();
  for (const re of SPECIFIERS) {
    for (const m of src.matchAll(re)) {
      if (!m[1].startsWith(".")) continue; // not one of ours
      out.add(relative(root, resolve(root, dirname(file), m[1])));
    }
  }
  return [...out].sort();
}

// importGraph maps each module under root to the modules it imports.
export function importGraph(root = STATIC) {
  return new Map(modules(root).map((f) => [f, importsOf(root, f)]));
}

// cycles lists the graph's elementary cycles, each as its modules in
// import order starting from the least, once each (Johnson's idea, plainly:
// from each start, the simple paths back to it through later modules only).
export function cycles(graph) {
  const names = [...graph.keys()].sort();
  const rank = new Map(names.map((n, i) => [n, i]));
  const out = [];
  for (const start of names) {
    const path = [start];
    const on = new Set(path);
    const walk = (n) => {
      for (const m of graph.get(n) ?? []) {
        if (m === start) out.push([...path]);
        else if (rank.get(m) > rank.get(start) && !on.has(m)) {
          path.push(m);
          on.add(m);
          walk(m);
          on.delete(m);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return out;
}

test("every import names a module that exists", () => {
  const graph = importGraph();
  for (const [f, deps] of graph) for (const d of deps) assert.ok(graph.has(d), `${f} imports ${d}, which is not a module under web/static`);
});

test("the browser modules import each other without cycles", () => {
  const found = cycles(importGraph());
  assert.deepEqual(
    found.map((c) => [...c, c[0]].join(" → ")),
    [],
    "a cycle: pass the function the module wants in at wiring instead of importing its owner",
  );
});

test("cycles finds every elementary cycle once", () => {
  const g = new Map([
    ["a", ["b"]],
    ["b", ["a", "c"]],
    ["c", ["a", "c"]],
    ["d", ["a"]],
  ]);
  assert.deepEqual(cycles(g), [["a", "b"], ["a", "b", "c"], ["c"]]);
});

// PAGE_SCRIPTS run the page they are in as they load; every other module
// only defines things, and so loads in Node, without a document, for its
// unit tests.
const PAGE_SCRIPTS = new Set(["lang.js", "lesson.js", "playground/main.js"]);

test("every module but the page scripts loads without a page", async () => {
  for (const f of importGraph().keys()) {
    if (PAGE_SCRIPTS.has(f)) continue;
    await assert.doesNotReject(import(join(STATIC, f)), `${f} does not load in Node`);
  }
});
