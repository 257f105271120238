package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// depsHint says how to get what the browser test needs.
const depsHint = "run `make web web-deps` (or `make test`, which does)"

func get(t *testing.T, srv *httptest.Server, path string) (int, string, string) {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

func TestPages(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, c := range []struct {
		path, contentType string
		status            int
		contains          []string
	}{
		{"/", "text/html", 200, []string{`data-testid="home"`, `href="/playground"`, `href="/api/overview"`}},
		{"/playground", "text/html", 200, []string{`data-testid="playground"`, `data-testid="console-input"`, `/static/playground/main.js`, `/static/wasm_exec.js`}},
		{"/static/playground/app.js", "text/javascript", 200, []string{"refresh()"}},
		{"/static/style.css", "text/css", 200, nil},
		{"/nowhere", "", 404, nil},
		{"/playground/x", "", 404, nil},
	} {
		status, ct, body := get(t, srv, c.path)
		if status != c.status || !strings.HasPrefix(ct, c.contentType) {
			t.Errorf("GET %s: %d %q, want %d %q", c.path, status, ct, c.status, c.contentType)
		}
		for _, s := range c.contains {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s: the body lacks %q", c.path, s)
			}
		}
	}
}

// TestPlaygroundInChromium serves Handler and runs e2e/playground.mjs
// against it in Debian's chromium through playwright-core: forms, stepping
// time, dead-lettering and x-death in the inspector, the per-message TTL
// head-of-line caveat, rewind and replay, and a share link opened in a
// fresh page. Screenshots land in e2e/artifacts.
func TestPlaygroundInChromium(t *testing.T) { runBrowserTest(t, "playground.mjs") }

// TestPolishInChromium runs e2e/polish.mjs: the inspector's x-death table
// after a TTL expiry to a dead-letter exchange, typed values, a cut console
// output, an AMQP error's note of what it closed (a channel, a connection,
// nothing for a policy), the forms the lessons need, and the management
// API link saying which broker it shows, in English and Chinese.
func TestPolishInChromium(t *testing.T) { runBrowserTest(t, "polish.mjs") }

// TestLessonInChromium runs e2e/lesson.mjs: the lessons index, a lesson
// done step by step with its Try buttons and Check, a failing check, a step
// opened directly, and a share link that keeps the step.
func TestLessonInChromium(t *testing.T) { runBrowserTest(t, "lesson.mjs") }

// TestAccessInChromium runs e2e/access.mjs: the playground and a lesson
// keep working offline once loaded, a keyboard alone gets through the TTL
// to dead-letter scenario, and every control has an accessible name.
func TestAccessInChromium(t *testing.T) { runBrowserTest(t, "access.mjs") }

// TestTopologyInChromium runs e2e/topology.mjs: a topology of 11 queues
// and 7 exchanges built through the console, measured from the page's
// element boxes (no label overlaps a label or a box), its links picked out
// on hover and focus, the default exchange drawn by one rule everywhere,
// and the diagram in Chinese on a phone.
func TestTopologyInChromium(t *testing.T) { runBrowserTest(t, "topology.mjs") }

// TestSessionInChromium runs e2e/session.mjs: the guided first step, the
// session kept across a lesson and back (and a reload, Start fresh, share
// links, a log too large to keep), the engine killed on purpose four ways
// and restored from the log, and a queue of 100,000 messages that stays
// usable.
func TestSessionInChromium(t *testing.T) { runBrowserTest(t, "session.mjs") }

// TestI18nInChromium runs e2e/i18n.mjs against the server and against the
// static export served as files: Chinese on a first visit from a browser
// that prefers it, the language switch (which keeps the session) and its
// memory across reloads and pages, the playground and a lesson in
// Chinese, and a share link that keeps its language.
func TestI18nInChromium(t *testing.T) {
	dir := t.TempDir()
	if err := Export(dir); err != nil {
		t.Fatalf("%v: %s", err, depsHint)
	}
	site := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer site.Close()
	runBrowserTest(t, "i18n.mjs", site.URL)
}

// TestCurriculumInChromium runs e2e/curriculum.mjs: every lesson, in
// English and in Chinese, done step by step through the page as a learner
// would (Check fails, the Run buttons, Check passes, Next step), in the
// right language and without a page or console error. Screenshots of each
// lesson's last step land in e2e/artifacts/curriculum/LANG/SLUG.png.
func TestCurriculumInChromium(t *testing.T) {
	runBrowserTestWithin(t, curriculumTimeout, "curriculum.mjs")
}

// curriculumTimeout bounds the whole curriculum in both languages: 34
// lessons, about 1,500 button presses, which took two to two and a half
// minutes on two cores shared with other browsers.
const curriculumTimeout = 6 * time.Minute

// runBrowserTest serves Handler and runs the node script e2e/NAME against
// it in chromium, with args after the server's URL; the script prints
// "ok" last when everything held.
func runBrowserTest(t *testing.T, name string, args ...string) {
	runBrowserTestWithin(t, 2*time.Minute, name, args...)
}

// runBrowserTestWithin is runBrowserTest with the script's time limit.
func runBrowserTestWithin(t *testing.T, limit time.Duration, name string, args ...string) {
	runBrowserTestOn(t, Handler(), limit, name, args...)
}

// runBrowserTestOn is runBrowserTestWithin against handler.
func runBrowserTestOn(t *testing.T, handler http.Handler, limit time.Duration, name string, args ...string) {
	for _, f := range []string{"static/warren.wasm", "static/wasm_exec.js"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s is missing (a build output, embedded at compile time): %s", f, depsHint)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %s", depsHint)
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("chromium is not at %s: %s", chromium, depsHint)
	}
	var pkg, lock struct {
		Version      string            `json:"version"`
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "e2e/package.json", &pkg)
	readJSON(t, "e2e/node_modules/playwright-core/package.json", &lock)
	if want := pkg.Dependencies["playwright-core"]; lock.Version != want {
		t.Fatalf("playwright-core is %q in e2e/node_modules, package.json pins %q: %s", lock.Version, want, depsHint)
	}

	srv := httptest.NewServer(handler)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("e2e", name), srv.URL}, args...)...)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node e2e/%s %s: %v\n%s", name, srv.URL, err, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("node e2e/%s did not print ok:\n%s", name, out)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v: %s", path, err, depsHint)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
