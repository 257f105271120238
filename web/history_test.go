package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"warren/driver/sessions"
	"warren/server/httpguard"
)

// TestHistoryInChromium runs e2e/history.mjs against the pages and a
// session manager, as warren serve mounts them (behind server/httpguard):
// a session's page exports its history, and an offline playground page
// replays it to the same state hash.
func TestHistoryInChromium(t *testing.T) {
	m := sessions.New(sessions.Config{Logf: t.Logf})
	defer m.Shutdown(context.Background())
	mux := http.NewServeMux()
	for _, p := range []string{"/api/sessions", "/api/sessions/", "/ws/sessions/"} {
		mux.Handle(p, m)
	}
	mux.Handle("/", Handler(WithSessions(m)))
	runBrowserTestOn(t, httpguard.Wrap(mux), 2*time.Minute, "history.mjs")
}
