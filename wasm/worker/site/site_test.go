package site

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"warren/web"
	"warren/web/i18n/locale"
)

// fakeAssets holds pages by asset path, each body naming its path.
func fakeAssets(t *testing.T) Fetch {
	t.Helper()
	have := map[string]bool{}
	for _, lang := range locale.Langs {
		paths, err := web.PagePaths(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			have[PagePath(lang, p)] = true
		}
		have[PagePath(lang, web.EdgeNoSession)] = true
	}
	return func(_ context.Context, path string) (*http.Response, error) {
		if !have[path] {
			return &http.Response{StatusCode: 404, Status: "404 Not Found", Body: io.NopCloser(strings.NewReader("no"))}, nil
		}
		return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(strings.NewReader("page " + path))}, nil
	}
}

func get(t *testing.T, h http.Handler, method, target string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestPagesDirIsTheExports: the worker reads the pages where
// web.ExportEdge writes them (the worker does not link package web).
func TestPagesDirIsTheExports(t *testing.T) {
	if PagesDir != web.EdgePages {
		t.Fatalf("PagesDir %q, web.EdgePages %q", PagesDir, web.EdgePages)
	}
	if noSessionPage != web.EdgeNoSession {
		t.Fatalf("noSessionPage %q, web.EdgeNoSession %q", noSessionPage, web.EdgeNoSession)
	}
	if got := PagePath("zh-CN", "/"); got != "/_pages/zh-CN/index.html" {
		t.Errorf("PagePath(zh-CN, /) = %q", got)
	}
}

// TestEveryPageInEveryLanguage: each page the site has answers with its
// file in the language asked for, with the headers `warren serve` sends.
func TestEveryPageInEveryLanguage(t *testing.T) {
	h := Handler(fakeAssets(t))
	for _, lang := range locale.Langs {
		paths, err := web.PagePaths(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			w := get(t, h, "GET", p+"?lang="+lang, nil)
			if w.Code != 200 || w.Body.String() != "page "+PagePath(lang, p) {
				t.Errorf("GET %s?lang=%s: %d %q", p, lang, w.Code, w.Body.String())
			}
			if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("GET %s: Content-Type %q", p, ct)
			}
		}
	}
}

// TestLanguageAsTheServerPicksIt: ?lang=, then the cookie, then
// Accept-Language; ?lang= is remembered in the cookie; the answer says it
// depends on those headers.
func TestLanguageAsTheServerPicksIt(t *testing.T) {
	h := Handler(fakeAssets(t))
	for _, c := range []struct {
		target, cookie, accept, want string
		setsCookie                   bool
	}{
		{"/", "", "", "en", false},
		{"/playground", "", "zh-CN,zh;q=0.9", "zh-CN", false},
		{"/lessons?lang=en", "", "zh-CN", "en", true},
		{"/lessons/ttl-and-dead-lettering?lang=zh-CN&step=2", "", "en", "zh-CN", true},
		{"/", "zh-CN", "en-US", "zh-CN", false},
	} {
		header := http.Header{}
		if c.cookie != "" {
			header.Set("Cookie", locale.CookieName+"="+c.cookie)
		}
		if c.accept != "" {
			header.Set("Accept-Language", c.accept)
		}
		w := get(t, h, "GET", c.target, header)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "/_pages/"+c.want+"/") {
			t.Errorf("GET %s (cookie %q, Accept-Language %q): %d %q, want %s", c.target, c.cookie, c.accept, w.Code, w.Body.String(), c.want)
		}
		if got := w.Header().Get("Content-Language"); got != c.want {
			t.Errorf("GET %s: Content-Language %q", c.target, got)
		}
		if !strings.Contains(w.Header().Get("Vary"), "Accept-Language") {
			t.Errorf("GET %s: Vary %q", c.target, w.Header().Get("Vary"))
		}
		set := w.Header().Get("Set-Cookie")
		if c.setsCookie != strings.HasPrefix(set, locale.CookieName+"="+c.want+";") {
			t.Errorf("GET %s: Set-Cookie %q", c.target, set)
		}
	}
}

// TestOnlyThePages: what the edge does not have is 404, as are lessons it
// does not have and slugs that could name another asset; a page's own
// file has no second URL.
func TestOnlyThePages(t *testing.T) {
	h := Handler(fakeAssets(t))
	for _, target := range []string{
		"/nope", "/api/overview", "/s/abc", "/ws/sessions/abc", "/lessons/nope", "/lessons/..%2Fplayground",
		"/lessons/a%2Fb", "/lessons/" + strings.Repeat("a", maxSlugBytes+1), "/_pages/en/index.html", "/playground/x",
	} {
		if w := get(t, h, "GET", target, nil); w.Code != 404 {
			t.Errorf("GET %s: %d, want 404", target, w.Code)
		}
	}
	if w := get(t, h, "POST", "/playground", nil); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /playground: %d", w.Code)
	}
	if w := get(t, h, "HEAD", "/playground", nil); w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD /playground: %d with %d bytes", w.Code, w.Body.Len())
	}
}

// TestEveryLessonSlugIsValid: the slug check lets every lesson through.
func TestEveryLessonSlugIsValid(t *testing.T) {
	for _, lang := range locale.Langs {
		paths, err := web.PagePaths(lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if slug, ok := strings.CutPrefix(p, "/lessons/"); ok && !validSlug(slug) {
				t.Errorf("lesson %q fails validSlug", slug)
			}
		}
	}
}

// TestAssetFailures: an asset that does not load is a 502, not a page.
func TestAssetFailures(t *testing.T) {
	for name, f := range map[string]Fetch{
		"error": func(context.Context, string) (*http.Response, error) { return nil, errors.New("binding gone") },
		"500": func(context.Context, string) (*http.Response, error) {
			return &http.Response{StatusCode: 500, Status: "500 Internal Server Error", Body: io.NopCloser(strings.NewReader(""))}, nil
		},
	} {
		if w := get(t, Handler(f), "GET", "/", nil); w.Code != http.StatusBadGateway {
			t.Errorf("%s: %d, want 502", name, w.Code)
		}
	}
}

// TestNoSessionPage: the page for a link of no session is 404 in the
// request's language, at NoSessionPath (where entry.mjs sends an id no
// session object holds) and at /s/{id} for what cannot be an id.
func TestNoSessionPage(t *testing.T) {
	h := Handler(fakeAssets(t))
	for _, c := range []struct{ target, lang string }{
		{NoSessionPath + "?lang=zh-CN", "zh-CN"}, {NoSessionPath + "?lang=en", "en"}, {"/s/abc?lang=zh-CN", "zh-CN"},
	} {
		w := get(t, h, "GET", c.target, nil)
		if w.Code != 404 || w.Body.String() != "page /_pages/"+c.lang+"/no-session/index.html" || w.Header().Get("Content-Language") != c.lang {
			t.Errorf("GET %s: %d %q", c.target, w.Code, w.Body.String())
		}
	}
	if w := get(t, h, "GET", "/s/AAAAAAAAAAAAAAAAAAAAAA", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "/playground/") {
		t.Errorf("GET /s/{id} the worker passes on: %d %q", w.Code, w.Body.String())
	}
}
