// The engine: the Go program (wasm/playground) running in this page, and
// what happens when it dies. Go's WebAssembly runtime ends the program on a
// fatal error (running out of memory, a panic nothing recovers): the
// runtime calls go.exit, go.run's promise settles, a call that was running
// returns undefined and every later call throws "Go program has already
// exited". Nothing in the page could tell before, and every action failed
// while the status still said the engine was ready.
//
// engine is the object the other modules call (session.js's w): it has the
// methods of the global warren object the Go program puts up (see
// wasm/playground/bridge's Methods), forwards each call to the engine
// running now, and notices a death in the call, by go.exit, a throw, or
// go.run's promise, whichever comes first. Then the onDeath hooks run,
// once, with what was being called, and the call throws EngineStopped, as
// does every call until load starts a fresh engine. The session's log is
// the page's own copy (session.js), so it outlives the engine.
import { t } from "../i18n.js";
import { UserError } from "./words.js";

const WASM_URL = "/static/warren.wasm";

// EngineStopped is what a call throws once the engine has died. It is a
// UserError: guard shows it in the console like a mistake, and the status
// line and the restore panel (recovery.js) say what happened.
export class EngineStopped extends UserError {}

export const engine = {};

let compiled = null; // the module, compiled once: a restore instantiates it again
let current = null; // {api, go, code, dead}: the engine running now, or the last one
const deathHooks = [];

// onDeath registers fn(death) to run once per engine death; death is
// {call: {name, args} or null when the death came between calls, code: the
// exit code or null, error: the exception's text or null}.
export const onDeath = (fn) => deathHooks.push(fn);

// alive says whether an engine is running.
export const alive = () => current !== null && !current.dead;

// load starts a fresh engine and makes engine call it. The first load
// fetches and compiles the program; later ones (a restore) reuse it.
export async function load() {
  compiled ??= await WebAssembly.compileStreaming(fetch(WASM_URL));
  const go = new Go();
  const inst = { api: null, go, code: null, dead: false };
  // go.exit runs inside the call that ended the program, before it returns.
  go.exit = (code) => {
    inst.code = code;
  };
  const instance = await WebAssembly.instantiate(compiled, go.importObject);
  delete globalThis.warren; // the dead engine's, if this is a restore
  go.run(instance).then(
    () => died(inst, null, null),
    (e) => died(inst, null, e),
  ); // settles only if Go exits
  if (!globalThis.warren) throw new Error("warren is not defined after go.run");
  inst.api = globalThis.warren;
  for (const name of Object.keys(inst.api)) engine[name] ??= (...args) => call(name, args);
  // Let the dead engine's memory go (its Go object holds it), as a death
  // by running out of memory leaves little room for a new one.
  if (current) current.api = current.go = null;
  current = inst;
}

function call(name, args) {
  const inst = current;
  if (!inst || inst.dead) throw new EngineStopped(t("js.engine.stoppedError"));
  let r;
  try {
    r = inst.api[name](...args);
  } catch (e) {
    // The bridge answers even a bug with {error}: a throw is the runtime's.
    died(inst, { name, args }, e);
  }
  if (inst.code !== null || inst.go.exited) died(inst, { name, args }, null);
  if (inst.dead) throw new EngineStopped(t("js.engine.stoppedError"));
  return r;
}

function died(inst, call, error) {
  if (inst.dead) return;
  inst.dead = true;
  const death = { call, code: inst.code, error: error ? String(error.message || error) : null };
  if (inst === current) for (const fn of deathHooks) fn(death);
}
