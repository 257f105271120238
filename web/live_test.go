package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"warren/driver/sessions"
	"warren/engine/hub"
	"warren/server/httpguard"
)

// TestLivePageTranslatesEveryHubError: static/playground/live.js names a
// catalog entry for every key of the hub's errors (engine/hub's
// ErrorKeys), as js.live.error.KEY, so that a page in a shared session
// says each in its reader's language; the catalogs' own tests check that
// the entries exist in both languages.
func TestLivePageTranslatesEveryHubError(t *testing.T) {
	src, err := os.ReadFile("static/playground/live.js")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(\w+): "js\.live\.error\.(\w+)",$`).FindAllStringSubmatch(string(src), -1) {
		if m[1] != m[2] {
			t.Errorf("live.js translates the hub error %s with js.live.error.%s", m[1], m[2])
		}
		keys = append(keys, m[1])
	}
	slices.Sort(keys)
	if want := hub.ErrorKeys(); !slices.Equal(keys, want) {
		t.Errorf("live.js translates the hub errors %v, the hub has %v", keys, want)
	}
}

// TestSessionPage: a shared session's link (/s/{id}) serves the
// playground with the live panel, which live.js fills; the static
// export's playground has no panel, since it has no server to run
// sessions.
func TestSessionPage(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/s/AbC-12_x", nil))
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != 200 || !strings.Contains(string(body), `data-testid="live-join"`) || !strings.Contains(string(body), `data-testid="console-input"`) {
		t.Fatalf("GET /s/{id}: %d, live panel or console missing", rec.Code)
	}
	if html := render(t, Playground(staticPage("en", "/playground"))); strings.Contains(html, `data-testid="live"`) {
		t.Error("the static export's playground offers shared sessions")
	}
}

// TestLiveInChromium runs e2e/live.mjs against the pages and a session
// manager (driver/sessions) mounted as warren serve mounts them, behind
// its guard (server/httpguard): Share live, two editors replicating one
// session, stepping its clock, a read-only page, and a late joiner with
// the same state hash.
func TestLiveInChromium(t *testing.T) {
	m := sessions.New(sessions.Config{Logf: t.Logf})
	defer m.Shutdown(context.Background())
	mux := http.NewServeMux()
	for _, p := range []string{"/api/sessions", "/api/sessions/", "/ws/sessions/"} {
		mux.Handle(p, m)
	}
	mux.Handle("/", Handler(WithSessions(m)))
	runBrowserTestOn(t, httpguard.Wrap(mux), 2*time.Minute, "live.mjs")
}
