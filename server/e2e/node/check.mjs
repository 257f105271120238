// check.mjs is the small kit the client scripts share: named steps, checks
// that report what was expected and what came, bounded waits, and a runner
// that turns the outcome into an exit status for clients_test.go.
//
// A script prints one line per step. A mismatch found by eq or ok is
// printed at once ("MISMATCH in step <name>: <what>") and the scenario goes
// on, so that one run shows every difference; an exception or a timeout
// stops it ("FAIL in step <name>: ..."). The last line is "ok: N checks"
// (exit 0) or "FAIL: M of N checks mismatched" (exit 1).

import { isDeepStrictEqual, inspect } from "node:util";

let currentStep = "start";
let checks = 0;
let mismatches = 0;

// step names the part of the scenario that runs next, for failure messages.
export function step(name) {
  currentStep = name;
  console.log(`- ${name}`);
}

// fail stops the scenario with a message.
export function fail(message) {
  throw new Error(message);
}

function mismatch(message) {
  mismatches++;
  console.error(`MISMATCH in step ${currentStep}: ${message}`);
}

// eq compares with deep strict equality and names the compared thing.
export function eq(got, want, what) {
  checks++;
  if (!isDeepStrictEqual(got, want)) {
    mismatch(`${what}: got ${show(got)}, want ${show(want)}`);
  }
}

// ok checks a condition, describing the value that broke it.
export function ok(cond, what, got) {
  checks++;
  if (!cond) mismatch(`${what}${got === undefined ? "" : `: got ${show(got)}`}`);
}

function show(v) {
  return inspect(v, { depth: 4, breakLength: Infinity, maxStringLength: 200, maxArrayLength: 20 });
}

// within resolves to the promise's value or fails after timeoutMs.
export function within(timeoutMs, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// rejection awaits a promise that must reject and returns its error.
export async function rejection(promise, what) {
  try {
    const v = await promise;
    fail(`${what}: succeeded with ${show(v)}, want an error`);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith(`${what}: succeeded`)) throw err;
    return err;
  }
}

// unique returns a name no earlier run used, so a script can be run again
// (or against RabbitMQ) without colliding with leftovers.
export function unique(prefix) {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}`;
}

// inbox is a FIFO filled by a client's callback and drained with a bounded
// wait, so that a script can await "the next delivery" in order.
export function inbox() {
  const items = [];
  const waiters = [];
  return {
    push(v) {
      const w = waiters.shift();
      if (w) w(v);
      else items.push(v);
    },
    take(timeoutMs, what) {
      if (items.length > 0) return Promise.resolve(items.shift());
      return within(timeoutMs, new Promise((resolve) => waiters.push(resolve)), what);
    },
    get length() {
      return items.length;
    },
  };
}

// target reads the server address from argv[2] or the named variable.
export function target(envName, example) {
  const v = process.argv[2] || process.env[envName];
  if (!v) {
    console.error(`usage: node ${process.argv[1]} URL   (or set ${envName}), e.g. ${example}`);
    process.exit(2);
  }
  return v;
}

// run runs the scenario under an overall deadline and exits with its outcome.
export function run(scenario, deadlineMs = 30000) {
  const deadline = setTimeout(() => {
    console.error(`FAIL in step ${currentStep}: the scenario did not finish within ${deadlineMs} ms`);
    process.exit(1);
  }, deadlineMs);
  scenario().then(
    () => {
      clearTimeout(deadline);
      if (mismatches > 0) {
        console.error(`FAIL: ${mismatches} of ${checks} checks mismatched`);
        process.exit(1);
      }
      console.log(`ok: ${checks} checks`);
      process.exit(0);
    },
    (err) => {
      clearTimeout(deadline);
      console.error(`FAIL in step ${currentStep}: ${err instanceof Error ? err.message : show(err)}`);
      if (process.env.WARREN_E2E_STACK) console.error(err?.stack);
      process.exit(1);
    },
  );
}
