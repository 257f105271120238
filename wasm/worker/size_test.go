//go:build !js

package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gzipBudgetBytes is the largest worker Cloudflare's free plan deploys:
// 3 MB after compression, as wrangler measures it. The static assets (the
// engine's wasm among them) do not count.
const gzipBudgetBytes = 3_000_000

// wranglerGzip is how `wrangler deploy --dry-run` reports the worker's
// size: "Total Upload: 5540.87 KiB / gzip: 1581.63 KiB".
var wranglerGzip = regexp.MustCompile(`gzip: ([0-9]+(?:\.[0-9]+)?) KiB`)

// TestWorkerSize bundles the worker as a deploy would (wrangler deploy
// --dry-run, which needs no account) and fails when its gzipped size
// passes gzipBudgetBytes. `make edge-size` runs it alone.
func TestWorkerSize(t *testing.T) {
	js := wranglerJS(t)
	cmd := exec.Command(node(t), js, "deploy", "--dry-run", "--outdir", t.TempDir())
	cmd.Dir = root
	cmd.Env = wranglerEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("wrangler deploy --dry-run: %v\n%s", err, out)
	}
	m := wranglerGzip.FindSubmatch(out)
	if m == nil {
		t.Fatalf("wrangler deploy --dry-run did not say the gzip size:\n%s", out)
	}
	kib, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	size := int(kib * 1024)
	t.Logf("the worker is %d bytes gzipped (%.2f KiB), budget %d", size, kib, gzipBudgetBytes)
	if size > gzipBudgetBytes {
		t.Errorf("the worker is %d bytes gzipped, over the free plan's %d", size, gzipBudgetBytes)
	}
}

// forbiddenInWorker are packages the worker must not link: templ and
// html/template cost hundreds of kilobytes of the budget, and the
// catalogs and lessons would be decoded at every request, each a fresh
// Go instance. The pages come rendered from the static assets instead
// (package site).
var forbiddenInWorker = []string{"warren/web", "warren/web/i18n", "warren/lessons", "github.com/a-h/templ", "html/template"}

// TestWorkerLinks checks what the worker's build links (go list -deps).
func TestWorkerLinks(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/syumai/workers"] || !deps["warren/wasm/worker/site"] {
		t.Fatalf("go list -deps does not list the worker's own imports:\n%s", out)
	}
	for _, p := range forbiddenInWorker {
		if deps[p] {
			t.Errorf("the worker links %s", p)
		}
	}
}
