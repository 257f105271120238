package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var sb strings.Builder
	if err := c.Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestPagesCarryTheirControls renders the components and checks, by their
// data-testid attributes, that each page has what the browser test and the
// playground's script rely on; the playground loads the engine's scripts.
func TestPagesCarryTheirControls(t *testing.T) {
	for _, tc := range []struct {
		name string
		page templ.Component
		want []string
	}{
		{"home", Home(), []string{"home", "home-playground", "home-api", "nav-playground"}},
		{"playground", Playground(), []string{
			"console-form", "console-input", "events", "clock", "advance-by", "inspector", "log",
			"form-declare-queue", "form-declare-exchange", "form-bind", "form-publish", "form-consume", "form-ack",
			"import-form", "download",
		}},
	} {
		html := render(t, tc.page)
		for _, id := range tc.want {
			if !strings.Contains(html, `data-testid="`+id+`"`) {
				t.Errorf("%s: no data-testid=%q", tc.name, id)
			}
		}
		if tc.name == "playground" {
			for _, src := range []string{`src="/static/wasm_exec.js"`, `src="/static/playground.js"`} {
				if !strings.Contains(html, src) {
					t.Errorf("playground does not load %s", src)
				}
			}
		}
	}
}

// TestHandlerRoutes: the pages and assets are served, anything else is 404.
func TestHandlerRoutes(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]int{"/": 200, "/playground": 200, "/static/playground.js": 200, "/nope": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
