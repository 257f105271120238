// The playground's engine under Node: web/static's warren.wasm (built by
// make web) run with the wasm_exec.js of the Go that built it, as the page
// runs it, so that the tests feed the modules what the engine really
// answers. warren is the global object the Go program puts up
// (wasm/playground/bridge's Methods).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const STATIC = resolve(dirname(fileURLToPath(import.meta.url)), "../static");

// startEngine starts the engine and returns its warren object.
export async function startEngine() {
  let wasm;
  try {
    wasm = readFileSync(join(STATIC, "warren.wasm"));
  } catch (e) {
    throw new Error(`web/static/warren.wasm is missing: run make web (${e.message})`);
  }
  createRequire(import.meta.url)(join(STATIC, "wasm_exec.js")); // a classic script: defines globalThis.Go
  const go = new globalThis.Go();
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  delete globalThis.warren;
  go.run(instance); // settles only if Go exits; warren is up once run returns
  if (!globalThis.warren) throw new Error("warren is not defined after go.run");
  return globalThis.warren;
}
