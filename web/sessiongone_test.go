package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"warren/driver/sessions"
)

// TestSessionLinkOfNoSession: /s/{id} serves the playground for a running
// session's id and read-only id, and 404 with a page that says there is
// no such session, in the reader's language, for an id that never was
// and for one whose session has ended (issue 26: every id got 200 and the
// session page).
func TestSessionLinkOfNoSession(t *testing.T) {
	m := sessions.New(sessions.Config{Logf: t.Logf})
	defer m.Shutdown(context.Background())
	h := Handler(WithSessions(m))
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("POST", "/api/sessions", strings.NewReader(`{}`)))
	var c sessions.Created
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil || rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body, _ := io.ReadAll(rec.Body)
		return rec.Code, string(body)
	}
	for _, id := range []string{c.ID, c.ReadOnlyID} {
		if code, body := get("/s/" + id); code != http.StatusOK || !strings.Contains(body, `data-testid="live-join"`) {
			t.Fatalf("a running session's link /s/%s: %d, live panel missing", id, code)
		}
	}
	gone := func(why, id string) {
		t.Helper()
		for lang, want := range map[string][]string{
			"en":    {"<h1>No such session</h1>", "It may have ended", "Open the playground"},
			"zh-CN": {"<h1>没有这个会话</h1>", "它可能已经结束", "打开演练场"},
		} {
			code, body := get("/s/" + id + "?lang=" + lang)
			if code != http.StatusNotFound || !strings.Contains(body, `data-testid="session-gone"`) || !strings.Contains(body, `<html lang="`+lang+`"`) || strings.Contains(body, `data-testid="live-join"`) {
				t.Fatalf("%s (%s): %d, want 404 and the page that says so", why, lang, code)
			}
			for _, w := range want {
				if !strings.Contains(body, w) {
					t.Errorf("%s (%s): the page lacks %q", why, lang, w)
				}
			}
		}
	}
	gone("an id that never was", "AAAAAAAAAAAAAAAAAAAAAA")
	rec = httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("DELETE", "/api/sessions/"+c.ID, nil))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
	}
	gone("an ended session's id", c.ID)
	gone("an ended session's read-only id", c.ReadOnlyID)
}
