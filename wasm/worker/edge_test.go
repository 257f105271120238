//go:build !js

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"warren/web"
	"warren/web/i18n/locale"
)

// TestEdge runs the worker under `wrangler dev --local` and checks what a
// visitor gets from it: every page in every language, chosen as `warren
// serve` chooses; the static assets; nothing the edge does not have; and,
// in chromium, lesson 1 done step by step in both languages, the
// playground's TTL to dead-letter scenario and a shared session among
// several pages (web/e2e's own scripts).
func TestEdge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs wrangler dev and chromium (about a minute)")
	}
	base := startDev(t)
	t.Run("pages", func(t *testing.T) { testPages(t, base) })
	t.Run("language", func(t *testing.T) { testLanguage(t, base) })
	t.Run("assets", func(t *testing.T) { testAssets(t, base) })
	t.Run("lesson 1 in chromium", func(t *testing.T) { runBrowser(t, base, "curriculum.mjs", "amqp-model") })
	t.Run("playground in chromium", func(t *testing.T) { runBrowser(t, base, "playground.mjs") })
	// Shared sessions from the pages: Share live, two editors, a
	// read-only page, a late joiner, the clock, DELETE (web/e2e/live.mjs,
	// as against warren serve).
	t.Run("live session in chromium", func(t *testing.T) { runBrowser(t, base, "live.mjs") })
	// The session's "Connect a program" panel offers AMQP over WebSocket
	// only, and the program it shows works (web/e2e/edgeamqp.mjs).
	t.Run("connect a program in chromium", func(t *testing.T) { runBrowser(t, base, "edgeamqp.mjs") })
	// No change from another site, no body that is not JSON: the
	// replies warren serve gives, and another site's page in chromium.
	t.Run("cross-site", func(t *testing.T) { testGuard(t, base) })
}

// fetch GETs url with the header's fields.
func fetch(t *testing.T, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	// The worker's answers are checked as they are: no redirect followed.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// testPages: every page web.PagePaths lists, in each language, is 200 in
// that language and does not link to the management API, which the edge
// does not have; the playground offers shared sessions (Share live),
// which it has, and a session's link is the playground.
func testPages(t *testing.T, base string) {
	for _, lang := range locale.Langs {
		paths, err := web.PagePaths(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			res, body := fetch(t, base+p+"?lang="+lang, nil)
			if res.StatusCode != 200 || !strings.Contains(body, `<html lang="`+lang+`"`) {
				t.Errorf("GET %s?lang=%s: %d, in %q", p, lang, res.StatusCode, res.Header.Get("Content-Language"))
				continue
			}
			if strings.Contains(body, `href="/api/`) {
				t.Errorf("GET %s?lang=%s links to the management API", p, lang)
			}
			if live := strings.Contains(body, `data-testid="live"`); live != (p == "/playground") {
				t.Errorf("GET %s?lang=%s: the live session panel there is %v", p, lang, live)
			}
		}
		// A link of no session is 404 with the page that says so, as
		// warren serve answers it; a running session's link is the
		// playground (live.mjs opens those, and the ended one's).
		for _, id := range []string{"AAAAAAAAAAAAAAAAAAAAAA", "not-an-id"} {
			res, body := fetch(t, base+"/s/"+id+"?lang="+lang, nil)
			if res.StatusCode != 404 || !strings.Contains(body, `data-testid="session-gone"`) || !strings.Contains(body, `<html lang="`+lang+`"`) {
				t.Errorf("GET /s/%s?lang=%s: %d, want 404 and the page that says there is no such session", id, lang, res.StatusCode)
			}
		}
	}
}

// testLanguage: with no ?lang=, the lang cookie and then Accept-Language
// choose, and ?lang= is remembered in the cookie.
func testLanguage(t *testing.T, base string) {
	for _, c := range []struct {
		path, cookie, accept, want string
		setsCookie                 bool
	}{
		{"/", "", "", "en", false},
		{"/playground", "", "zh-CN,zh;q=0.9", "zh-CN", false},
		{"/lessons", "zh-CN", "en-US", "zh-CN", false},
		{"/lessons/amqp-model?lang=en&step=2", "zh-CN", "zh-CN", "en", true},
	} {
		header := http.Header{}
		if c.cookie != "" {
			header.Set("Cookie", locale.CookieName+"="+c.cookie)
		}
		if c.accept != "" {
			header.Set("Accept-Language", c.accept)
		}
		res, body := fetch(t, base+c.path, header)
		if res.StatusCode != 200 || !strings.Contains(body, `<html lang="`+c.want+`"`) || res.Header.Get("Content-Language") != c.want {
			t.Errorf("GET %s (cookie %q, Accept-Language %q): %d in %q, want %s", c.path, c.cookie, c.accept, res.StatusCode, res.Header.Get("Content-Language"), c.want)
		}
		if !strings.Contains(res.Header.Get("Vary"), "Accept-Language") {
			t.Errorf("GET %s: Vary %q", c.path, res.Header.Get("Vary"))
		}
		set := ""
		for _, ck := range res.Cookies() {
			if ck.Name == locale.CookieName {
				set = ck.Value
			}
		}
		if c.setsCookie && set != c.want || !c.setsCookie && set != "" {
			t.Errorf("GET %s: sets the lang cookie to %q", c.path, set)
		}
	}
}

// testAssets: the files the pages load are served with their types; what
// the edge does not have, and the pages' own files, are 404.
func testAssets(t *testing.T, base string) {
	for path, want := range map[string]string{
		"/static/warren.wasm":        "application/wasm",
		"/static/wasm_exec.js":       "javascript",
		"/static/playground/main.js": "javascript",
		"/static/style.css":          "text/css",
	} {
		if res, _ := fetch(t, base+path, nil); res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), want) {
			t.Errorf("GET %s: %d %q, want 200 %s", path, res.StatusCode, res.Header.Get("Content-Type"), want)
		}
	}
	for _, path := range []string{"/nope", "/api/overview", "/s/abc", "/ws/sessions/abc", "/lessons/nope", "/_pages/en/index.html", "/_pages/zh-CN/playground/index.html"} {
		if res, _ := fetch(t, base+path, nil); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

// browserTimeout bounds one web/e2e script against the worker.
const browserTimeout = 3 * time.Minute

// runBrowser runs web/e2e/SCRIPT against base in Debian's chromium through
// web/e2e's playwright-core, with args after the URL; the script prints
// "ok" last when everything held. Screenshots go to
// web/e2e/artifacts/edge.
func runBrowser(t *testing.T, base, script string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	out, err := browserCommand(t, ctx, script, append([]string{base}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node web/e2e/%s %s: %v\n%s", script, base, err, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("node web/e2e/%s did not print ok:\n%s", script, out)
	}
}

// browserCommand is node running web/e2e/script with args, in Debian's
// chromium, its screenshots in web/e2e/artifacts/edge.
func browserCommand(t *testing.T, ctx context.Context, script string, args ...string) *exec.Cmd {
	t.Helper()
	e2e := filepath.Join(root, "web", "e2e")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("chromium is not at %s: %s", chromium, depsHint)
	}
	checkPinned(t, e2e, "playwright-core")
	artifacts, err := filepath.Abs(filepath.Join(e2e, "artifacts", "edge"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node(t), append([]string{filepath.Join(e2e, script)}, args...)...)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium, "E2E_ARTIFACTS="+artifacts)
	return cmd
}
