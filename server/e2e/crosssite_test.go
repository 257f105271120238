package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"warren/server"
	"warren/server/broker"
)

// webE2E is where the browser scripts live; `make web-deps` installs
// chromium and their playwright-core, `make web` the wasm the pages load.
const webE2E = "../../web/e2e"

// TestCrossSiteInChromium runs web/e2e/crosssite.mjs against warren
// serve (a manual clock, so that a move shows): a page of another site
// (127.0.0.2), once the browser holds guest's credentials, submits
// text/plain forms and fetches at POST /api/definitions (an
// administrator), /api/clock and /api/sessions; each is 403 and nothing
// changes (no user, the clock where it was, no session), while the
// server's own page sends the same as application/json and they work,
// and as text/plain is told 415. Without the guard the form importing
// the administrator is answered 204. RabbitMQ 3.10.8 answered that form's
// request (text/plain, with guest's credentials) 415 with an empty body,
// and the same body as application/json 204; it does not look at Origin
// or Sec-Fetch-Site.
func TestCrossSiteInChromium(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: run `make web-deps`")
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	for _, f := range []string{chromium, filepath.Join(webE2E, "node_modules/playwright-core/package.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s is missing: run `make web web-deps`", f)
		}
	}
	srv := startServerWith(t, server.Options{Clock: broker.ClockManual})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(webE2E, "crosssite.mjs"), "http://"+srv.HTTPAddr())
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium, "E2E_ARTIFACTS="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node crosssite.mjs: %v\n%s", err, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("node crosssite.mjs did not print ok:\n%s", out)
	}
}
