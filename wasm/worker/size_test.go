//go:build !js

package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// gzipBudgetBytes is the largest worker Cloudflare's free plan deploys:
// 3 MB after compression, as wrangler measures it. The static assets (the
// engine's wasm among them) do not count. What the worker may link is
// the module's import policy (linkRules in the root's deps_test.go).
const gzipBudgetBytes = 3_000_000

// wranglerGzip is how `wrangler deploy --dry-run` reports the worker's
// size: "Total Upload: 5540.87 KiB / gzip: 1581.63 KiB".
var wranglerGzip = regexp.MustCompile(`gzip: ([0-9]+(?:\.[0-9]+)?) KiB`)

// TestWorkerSize bundles the site's worker as a deploy would (wrangler
// deploy --dry-run, which needs no account) and fails when its gzipped
// size passes gzipBudgetBytes. `make edge-size` runs it alone.
func TestWorkerSize(t *testing.T) { checkSize(t, "wrangler.toml", gzipBudgetBytes) }

// TestBrokerWorkerSize is TestWorkerSize for the broker's worker.
func TestBrokerWorkerSize(t *testing.T) {
	checkSize(t, "wasm/broker/wrangler.toml", gzipBudgetBytes)
}

func checkSize(t *testing.T, config string, budget int) {
	js := wranglerJS(t)
	cmd := exec.Command(node(t), js, "deploy", "--dry-run", "-c", config, "--outdir", t.TempDir())
	cmd.Dir = root
	cmd.Env = wranglerEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("wrangler deploy --dry-run -c %s: %v\n%s", config, err, out)
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
	t.Logf("the worker of %s is %d bytes gzipped (%.2f KiB), budget %d", config, size, kib, budget)
	if size > budget {
		t.Errorf("the worker of %s is %d bytes gzipped, over the free plan's %d", config, size, budget)
	}
}
