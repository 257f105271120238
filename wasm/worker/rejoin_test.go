//go:build !js

package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEdgePageRejoins: a session page in chromium whose socket drops as
// wrangler dev stops joins the session again by itself once it is back on
// the same port and state, though its first tries find nothing there;
// and again the second time (issue 29: it used to try once and stop).
func TestEdgePageRejoins(t *testing.T) {
	if testing.Short() {
		t.Skip("runs wrangler dev and chromium")
	}
	const drops = 2
	persist, port := t.TempDir(), freePort(t)
	d := startDevOn(t, persist, port)
	c := createSession(t, d.base, `{"clock":"manual"}`)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout+4*time.Minute)
	defer cancel()
	cmd := browserCommand(t, ctx, "rejoin.mjs", d.base, c.Link, fmt.Sprint(drops))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	restarts := 0
	for sc := bufio.NewScanner(stdout); sc.Scan(); {
		out.WriteString(sc.Text() + "\n")
		if restarts < drops && sc.Text() == fmt.Sprint("joined ", restarts) {
			d.stop()
			// Nothing listens for a while: the page's first tries fail.
			time.Sleep(3 * time.Second)
			d = startDevOn(t, persist, port)
			restarts++
		}
	}
	if err := cmd.Wait(); err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "ok") {
		t.Fatalf("node web/e2e/rejoin.mjs after %d restarts: %v\n%s%s", restarts, err, out.String(), stderr.String())
	}
	if restarts != drops {
		t.Fatalf("the page said it joined after %d restarts, want %d:\n%s", restarts, drops, out.String())
	}
}
