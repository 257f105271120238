// Package site is the edge worker's handler for the site's pages: home,
// playground, the lessons' index and each lesson, at the URLs `warren
// serve` answers them at and in the language it would pick for the
// request (locale.Answer: ?lang=, then the lang cookie, then
// Accept-Language).
//
// The pages are not rendered here. `warren site --edge` (web.ExportEdge)
// writes each page in each language among the worker's static assets,
// under PagesDir, and the handler answers with the file the request's
// language names. Rendering at the edge would link templ, html/template,
// the catalogs and the lessons into a worker that Cloudflare limits to
// 3 MB gzipped, and would decode the catalogs in every request, since each
// request starts a fresh Go instance; a file costs one fetch from the
// assets. Everything else the site has (the engine's wasm, scripts,
// styles) is a static asset Cloudflare serves without the worker.
//
// The package links no more than net/http and web/i18n/locale (the
// worker's tests hold it to that).
package site

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"warren/web/i18n/locale"
)

// PagesDir is the folder of the static assets that holds the pages:
// PagesDir/LANG/PATH/index.html (web.EdgePages, which the tests check it
// equals; the worker does not link package web).
const PagesDir = "_pages"

// NoSessionPath is where entry.mjs sends a request for /s/{id} when no
// session has the id (the session's Durable Object says so): the handler
// answers it with the page that says there is no such session, and 404,
// as warren serve answers /s/{id}.
const NoSessionPath = "/_no-session"

// noSessionPage is that page's file under PagesDir/LANG (web.EdgeNoSession,
// which the tests check it equals).
const noSessionPage = "/no-session"

// Fetch gets the static asset at path ("/_pages/en/index.html") from the
// worker's assets. A missing asset is a response with status 404, not an
// error.
type Fetch func(ctx context.Context, path string) (*http.Response, error)

// maxSlugBytes bounds a lesson slug in a URL; the lessons' own are short.
const maxSlugBytes = 64

// Handler answers GET /, /playground, /lessons and /lessons/{slug} with
// the page in the request's language, fetched by assets; anything else is
// 404, as `warren serve` answers it (the edge has no management API);
// GET /s/{id} is the playground, for a shared session's page (entry.mjs
// sends an id no session has to NoSessionPath).
func Handler(assets Fetch) http.Handler {
	mux := http.NewServeMux()
	page := func(path string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { servePage(w, r, assets, path) }
	}
	mux.Handle("GET /{$}", page("/"))
	mux.Handle("GET /playground", page("/playground"))
	mux.Handle("GET /lessons", page("/lessons"))
	// A shared session's page is the playground, which joins the
	// session its path names (as from warren serve).
	mux.HandleFunc("GET /s/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !validID(r.PathValue("id")) {
			servePageStatus(w, r, assets, noSessionPage, http.StatusNotFound)
			return
		}
		servePage(w, r, assets, "/playground")
	})
	mux.HandleFunc("GET "+NoSessionPath, func(w http.ResponseWriter, r *http.Request) {
		servePageStatus(w, r, assets, noSessionPage, http.StatusNotFound)
	})
	mux.HandleFunc("GET /lessons/{slug}", func(w http.ResponseWriter, r *http.Request) {
		slug := r.PathValue("slug")
		if !validSlug(slug) {
			http.NotFound(w, r)
			return
		}
		servePage(w, r, assets, "/lessons/"+slug)
	})
	return mux
}

// PagePath is the asset that holds the page at path in lang.
func PagePath(lang, path string) string {
	if path == "/" {
		path = ""
	}
	return "/" + PagesDir + "/" + lang + path + "/index.html"
}

// servePage answers r with the page at path in the language
// locale.Answer picks (and remembers, when ?lang= chose it).
func servePage(w http.ResponseWriter, r *http.Request, assets Fetch, path string) {
	servePageStatus(w, r, assets, path, http.StatusOK)
}

// servePageStatus is servePage answering with status.
func servePageStatus(w http.ResponseWriter, r *http.Request, assets Fetch, path string, status int) {
	lang := locale.Answer(w, r)
	res, err := assets(r.Context(), PagePath(lang, path))
	if err != nil {
		http.Error(w, fmt.Sprintf("the page's asset did not load: %v", err), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		http.NotFound(w, r)
		return
	default:
		http.Error(w, fmt.Sprintf("the page's asset answered %s", res.Status), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if status != http.StatusOK {
		w.Header().Set("Cache-Control", "no-cache") // the session may be one a moment later
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, res.Body)
}

// validSlug says whether s can be a lesson's slug: lowercase letters,
// digits and hyphens, so that no slug names another asset.
func validSlug(s string) bool {
	if s == "" || len(s) > maxSlugBytes {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validID says whether s can be a shared session's id at the edge: 22 or
// 44 characters of unpadded base64url (entry.mjs makes them).
func validID(s string) bool {
	if len(s) != 22 && len(s) != 44 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
