// The edge worker's entry module (wrangler.toml's main). Every request
// that reaches the worker goes to the Go handler (main.go, built into
// build/app.wasm); build/worker.mjs, which workers-assets-gen writes when
// `make edge` runs, starts a fresh Go instance for each.
export { default } from "./build/worker.mjs";
