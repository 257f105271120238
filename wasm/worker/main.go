//go:build js && wasm

// Command worker is Warren at the edge: the Go half of a Cloudflare
// worker (wrangler.toml at the repository root; the JS entry module is
// entry.mjs). It answers the site's pages in the request's language
// (package site) from the worker's static assets, which `make edge`
// writes with `warren site --edge`; the engine's wasm, the scripts and
// the styles are static assets Cloudflare serves without the worker, and
// the playground and the lessons run in the browser as they do from
// `warren serve`.
//
// It runs under github.com/syumai/workers, which starts a fresh Go
// instance for every request: nothing survives from one request to the
// next, so the program keeps nothing but its handler.
//
// Build it with `make edge`, run it locally with `make edge-dev`, and
// deploy it with `make edge-deploy` (see docs/edge.md).
package main

import (
	"context"
	"net/http"
	"syscall/js"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"

	"warren/wasm/worker/sessionrole"
	"warren/wasm/worker/site"
)

// assetsBinding is the binding of the worker's static assets
// (wrangler.toml's [assets] binding).
const assetsBinding = "ASSETS"

func main() {
	// A shared session's Durable Object (session.mjs) starts this same
	// program, long-lived, in the session role; the worker starts it
	// once per request otherwise.
	if binding := js.Global().Get("context").Get("binding"); binding.Get("role").String() == "session" {
		workers.Ready()
		sessionrole.Serve(binding)
	}
	workers.Serve(site.Handler(fetchAsset))
}

// fetchAsset gets the static asset at path through the assets binding.
// The binding reads only the URL's path; the host names nothing.
func fetchAsset(ctx context.Context, path string) (*http.Response, error) {
	req, err := fetch.NewRequest(ctx, http.MethodGet, "https://assets.invalid"+path, nil)
	if err != nil {
		return nil, err
	}
	return fetch.NewClient(fetch.WithBinding(cloudflare.GetBinding(assetsBinding))).Do(req, nil)
}
