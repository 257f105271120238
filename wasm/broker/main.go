//go:build js && wasm

// Command broker is the edge's broker for applications: the Go half of a
// Cloudflare worker of its own (wasm/broker/wrangler.toml; the JS entry
// module is entry.mjs), apart from the site's worker (wasm/worker) so
// that each stays within the Workers Free plan's 3 MB. Every vhost is a
// Durable Object (vhost.mjs) that starts this program once, long-lived,
// in the vhost role (vhostrole); the worker's own fetch handler is
// JavaScript, and routes each request to its vhost's object.
//
// Build it with `make edge`, run it locally with `make edge-dev`, and
// deploy it with `make edge-deploy` (see docs/edge.md).
package main

import (
	"syscall/js"

	"warren/wasm/broker/vhostrole"
)

// ready tells the object's JavaScript that the program has set up what
// it calls: the import vhost.mjs gives the instance, as
// github.com/syumai/workers' Ready does for the site's worker. That
// package is not linked here: it serves requests the object's
// JavaScript hands over itself, and costs the size the free plan does
// not have to spare (docs/edge.md, "Tests": the size checks).
//
//go:wasmimport workers ready
func ready()

func main() {
	ready()
	vhostrole.Serve(js.Global().Get("context").Get("binding"))
}
